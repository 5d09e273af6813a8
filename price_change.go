package topupd

import (
	"context"
	"time"
)

// Scheduled prices (back-office.md, section 4 (e)): an operator schedules
// a pack's list price to change at a later time. The change takes effect
// at its EffectiveAt for every order whose placement's time is at or
// after it, however late the server writes it into the pack: the order
// path and the catalog read a pack with its latest change and resolve the
// list price at their own time (ListPriceAt); a background step then
// writes the change into the pack, as the server's own change.

// The states of a price change.
const (
	// PriceChangeScheduled: the change is still to take effect.
	PriceChangeScheduled = "scheduled"
	// PriceChangeApplied: the change took effect (StateAt), or the server
	// wrote it into its pack (as stored).
	PriceChangeApplied = "applied"
)

// SystemOperator names the server's own changes in the action log.
const SystemOperator = "system"

// ActionPriceChangeApply is the action log's name of a change the server
// wrote into its pack (PriceChangeStore.ApplyPriceChanges), as
// SystemOperator.
const ActionPriceChangeApply = "price-change.apply"

// AppliedBySystem is the action log's entry of the server writing c into
// its pack, its price from old to c.Price, told as a catalog change.
func AppliedBySystem(c *PriceChange, old Money) *Change {
	return &Change{Actor: Actor{Operator: SystemOperator, IP: "127.0.0.1"}, Action: ActionPriceChangeApply, Target: c.ID,
		Tells:  CatalogChanged,
		Before: map[string]any{"state": PriceChangeScheduled, "packPriceUsd": old},
		After:  map[string]any{"state": PriceChangeApplied, "pid": c.PID, "packPriceUsd": c.Price}}
}

// MinPriceChangeLead is how long after its scheduling a change may take
// effect, at the soonest.
const MinPriceChangeLead = time.Hour

// PriceChange is a pack's list price scheduled to change.
type PriceChange struct {
	Seq         int64
	ID          string
	PID         string
	Price       Money
	EffectiveAt time.Time
	// State is as stored: PriceChangeScheduled until the server writes
	// the change into its pack, PriceChangeApplied from then on. StateAt
	// says what the change is at a time.
	State     string
	CreatedAt time.Time
	Operator  string
	// OldPrice is the list price the change replaced in its pack, and
	// AppliedAt when the server wrote it there; both nil until then.
	OldPrice  *Money
	AppliedAt *time.Time
}

// Due reports whether the change has taken effect at now.
func (c *PriceChange) Due(now time.Time) bool { return !now.Before(c.EffectiveAt) }

// StateAt is the change's state at now: applied from its EffectiveAt on,
// written into its pack or not.
func (c *PriceChange) StateAt(now time.Time) string {
	if c.State == PriceChangeApplied || c.Due(now) {
		return PriceChangeApplied
	}
	return PriceChangeScheduled
}

// LogFields are the change's fields, as the admin API names them.
func (c *PriceChange) LogFields() map[string]any {
	return map[string]any{"id": c.ID, "pid": c.PID, "priceUsd": c.Price, "effectiveAt": c.EffectiveAt.UTC().Format(time.RFC3339Nano)}
}

// CheckPriceChange checks a new change as the admin API receives it, at
// now: a pid, a price above 0 in whole cents, and an effectiveAt at least
// MinPriceChangeLead after now (INVALID_BODY naming the field).
func CheckPriceChange(c *PriceChange, now time.Time) error {
	if !ValidIdent(c.PID) {
		return Errorf(EInvalidBody, "pid is required: letters, digits and ._:- only, at most 100")
	}
	if c.Price <= 0 {
		return Errorf(EInvalidBody, "priceUsd is required and must be above 0")
	}
	if err := WholeCents("priceUsd", c.Price); err != nil {
		return err
	}
	if c.EffectiveAt.IsZero() {
		return Errorf(EInvalidBody, "effectiveAt is required: an RFC 3339 time")
	}
	if c.EffectiveAt.Before(now.Add(MinPriceChangeLead)) {
		return Errorf(EInvalidBody, "effectiveAt must be at least 1 hour from now (%s or later)",
			now.Add(MinPriceChangeLead).UTC().Format(time.RFC3339))
	}
	return nil
}

// ListPriceAt is a pack's list price at now, given its price as stored and
// its latest change (nil for none), and the change still to come at now,
// if any. A scheduled change that is due at now has taken effect, written
// into the pack or not; an applied change that is not due at now (an order
// placed just before it whose transaction ran after it was written, or a
// node whose clock is behind the writer's) has not: the price it replaced
// stands.
func ListPriceAt(stored Money, c *PriceChange, now time.Time) (Money, *PriceChange) {
	switch {
	case c == nil:
		return stored, nil
	case c.Due(now):
		if c.State == PriceChangeScheduled {
			return c.Price, nil
		}
		return stored, nil
	case c.State == PriceChangeApplied && c.OldPrice != nil:
		return *c.OldPrice, c
	default:
		return stored, c
	}
}

// NextPrice is what an account will pay for a pack once its scheduled
// change takes effect, and when.
type NextPrice struct {
	Price Money
	At    time.Time
}

// NextPrice is what the book charges for p (at its list price now) once
// next takes effect: ok is false without a change to come, or when the
// account's price stays as it is (its own price, its tier's listed price
// or markup on cost, or a discount that rounds to the same price).
func (b *PriceBook) NextPrice(p *Pack, next *PriceChange) (NextPrice, bool) {
	if next == nil {
		return NextPrice{}, false
	}
	then := *p
	then.Price = next.Price
	price := b.PriceOf(&then)
	if price == b.PriceOf(p) {
		return NextPrice{}, false
	}
	return NextPrice{Price: price, At: next.EffectiveAt}, true
}

// AccountTier is an account and its tier ("" for none).
type AccountTier struct {
	ID, Tier string
}

// Repriced lists, of accounts, those whose price of p changes when its
// list price becomes to: those without an own price of it (prices.Own)
// whose tier (prices.Tiers, with their listed prices of p), or the list
// price itself for an account without one, prices it differently then.
func Repriced(p *Pack, to Money, prices *PackPrices, accounts []AccountTier) []string {
	then := *p
	then.Price = to
	own := map[string]bool{}
	for _, o := range prices.Own {
		own[o.AccountID] = true
	}
	moves := map[string]bool{"": p.Price != to}
	for i := range prices.Tiers {
		book := PriceBook{Tier: &prices.Tiers[i]}
		moves[prices.Tiers[i].Name] = book.PriceOf(p) != book.PriceOf(&then)
	}
	var out []string
	for _, a := range accounts {
		if !own[a.ID] && moves[a.Tier] {
			out = append(out, a.ID)
		}
	}
	return out
}

// PriceChangesQuery selects a page of price changes, by EffectiveAt (then
// Seq), soonest first.
type PriceChangesQuery struct {
	// PID, when set, keeps that pack's changes; State, when set, those in
	// that state at Now (StateAt).
	PID, State string
	Now        time.Time
	// After, when set, starts after the change of this EffectiveAt and Seq.
	After *ListKey
	Limit int
}

// PriceChangeStore keeps scheduled price changes. Each write tells, in its
// own transaction, the accounts whose catalog row it changes
// (catalog.changed), and marks the pack changed for every catalog.
type PriceChangeStore interface {
	// SchedulePriceChange stores c (checked, with its ID, CreatedAt and
	// Operator set) as the pack's scheduled change, holding the pack's row
	// lock, logged as the change ch: NOT_FOUND for an unknown pack;
	// BELOW_COST (400) for a price below the pack's cost unless the
	// CostGuard in ctx allows it; CONFLICT while the pack has a change
	// scheduled. A change of the pack due at c.CreatedAt but not yet
	// written is written first.
	SchedulePriceChange(ctx context.Context, ch *Change, c PriceChange) (PriceChange, error)
	// DeletePriceChange removes a change still scheduled at now, logged as
	// the change ch: NOT_FOUND, or PRICE_CHANGE_APPLIED once it is due.
	DeletePriceChange(ctx context.Context, ch *Change, id string, now time.Time) (PriceChange, error)
	// PriceChanges returns the page q selects.
	PriceChanges(ctx context.Context, q PriceChangesQuery) ([]PriceChange, error)
	// LatestPriceChanges returns each pack's latest change (the scheduled
	// one, else the last applied), by PID: what ListPriceAt resolves the
	// catalog's list prices with.
	LatestPriceChanges(ctx context.Context) (map[string]PriceChange, error)
	// ApplyPriceChanges writes every change due at now into its pack's
	// price and marks it applied, each logged as AppliedBySystem (the
	// server's own change) and told as its scheduling was; it returns how
	// many it wrote. A write of a pack (PutPack, UpdatePack) writes the
	// pack's due change first, the same way.
	ApplyPriceChanges(ctx context.Context, now time.Time) (int, error)
	// ScheduledPriceChanges counts the changes not yet written into their
	// packs.
	ScheduledPriceChanges(ctx context.Context) (int, error)
}
