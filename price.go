package topupd

import (
	"context"
	"math/big"
	"regexp"
	"time"
)

// Percent is a percentage as an integer count of ten-thousandths of a
// percent, parsed and written exactly, like Money.
type Percent int64

// MarshalJSON writes the percentage as an exact JSON number.
func (p Percent) MarshalJSON() ([]byte, error) { return Money(p).MarshalJSON() }

// UnmarshalJSON reads a JSON number exactly.
func (p *Percent) UnmarshalJSON(data []byte) error { return (*Money)(p).UnmarshalJSON(data) }

// percentScale is one percent in Percent's units.
const percentScale = MoneyScale

// MinMarkup is the lowest markup a tier may have: a price above nothing.
const MinMarkup = -100 * percentScale

// Tier is a price level: accounts on it pay its own price for a pack when
// it lists one, otherwise the pack's cost marked up, otherwise the pack's
// price.
type Tier struct {
	Name string
	// Markup, when set, prices a pack with a cost at its cost plus this much.
	Markup *Percent
	// PercentOff, when set (instead of Markup), prices a pack at its list
	// price less this much, with or without a cost.
	PercentOff *Percent
	// RoundTo rounds the prices Markup and PercentOff make up to a
	// multiple of it: whole cents, a cent at least (the default).
	RoundTo Money
	// Prices are the tier's own prices by PID.
	Prices    map[string]Money
	UpdatedAt time.Time
	// Accounts is how many accounts sit on the tier; only read.
	Accounts int
}

// LogFields are the tier's fields.
func (t *Tier) LogFields() map[string]any {
	var markup, off any
	if t.Markup != nil {
		markup = *t.Markup
	}
	if t.PercentOff != nil {
		off = *t.PercentOff
	}
	prices := make(map[string]Money, len(t.Prices))
	for k, v := range t.Prices {
		prices[k] = v
	}
	return map[string]any{"markupPercent": markup, "percentOffList": off, "roundToUsd": t.RoundTo, "prices": prices}
}

// tierNameRe is what a tier's name may look like.
var tierNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Validate checks a tier as the admin API receives it.
func (t *Tier) Validate() error {
	if !tierNameRe.MatchString(t.Name) {
		return Errorf(EInvalidBody, "tier name: 1 to 64 letters, digits and ._- only")
	}
	if t.Markup != nil && *t.Markup <= MinMarkup {
		return Errorf(EInvalidBody, "markupPercent must be above -100")
	}
	if t.Markup != nil && t.PercentOff != nil {
		return Errorf(EInvalidBody, "markupPercent and percentOffList: one or the other")
	}
	if t.PercentOff != nil && (*t.PercentOff <= 0 || *t.PercentOff >= 100*percentScale) {
		return Errorf(EInvalidBody, "percentOffList: above 0 and below 100")
	}
	if t.RoundTo < Cent {
		return Errorf(EInvalidBody, "roundToUsd: at least 0.01")
	}
	if err := WholeCents("roundToUsd", t.RoundTo); err != nil {
		return err
	}
	for pid, price := range t.Prices {
		if !ValidIdent(pid) {
			return Errorf(EInvalidBody, "prices: %q is not a pid", pid)
		}
		if price <= 0 {
			return Errorf(EInvalidBody, "prices: %s: the price must be above 0", pid)
		}
		if err := WholeCents("prices."+pid, price); err != nil {
			return err
		}
	}
	return nil
}

// MarkedUp is cost with the tier's markup, rounded up to RoundTo (a cent
// at least), computed exactly; ok is false without a markup, a cost, or
// on overflow.
func (t *Tier) MarkedUp(cost Money) (Money, bool) {
	if t.Markup == nil || cost <= 0 {
		return 0, false
	}
	scale := big.NewInt(100 * percentScale)
	n := new(big.Int).Mul(big.NewInt(int64(cost)), new(big.Int).Add(scale, big.NewInt(int64(*t.Markup))))
	return roundUp(n, scale, t.RoundTo)
}

// OffList is a list price less the tier's PercentOff, rounded up to
// RoundTo (a cent at least), computed exactly; ok is false without a
// PercentOff, or on overflow.
func (t *Tier) OffList(list Money) (Money, bool) {
	if t.PercentOff == nil || list <= 0 {
		return 0, false
	}
	scale := big.NewInt(100 * percentScale)
	n := new(big.Int).Mul(big.NewInt(int64(list)), new(big.Int).Sub(scale, big.NewInt(int64(*t.PercentOff))))
	return roundUp(n, scale, t.RoundTo)
}

// Quote is what the tier charges for one unit of p, and where that comes
// from (PriceTier, PriceMarkup or PriceDiscount); ok is false when the
// tier leaves p at its own price.
func (t *Tier) Quote(p *Pack) (Money, string, bool) {
	if price, ok := t.Prices[p.PID]; ok {
		return price, PriceTier, true
	}
	if price, ok := t.MarkedUp(p.Cost); ok {
		return price, PriceMarkup, true
	}
	if price, ok := t.OffList(p.Price); ok {
		return price, PriceDiscount, true
	}
	return 0, "", false
}

// PriceOf is Quote without where the price comes from.
func (t *Tier) PriceOf(p *Pack) (Money, bool) {
	price, _, ok := t.Quote(p)
	return price, ok
}

// ceilDiv is n / d rounded up, for d > 0.
func ceilDiv(n, d *big.Int) *big.Int {
	q, m := new(big.Int).DivMod(n, d, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// PriceBook is what decides one account's prices: its own prices, and its
// tier. The zero PriceBook charges every pack its own price.
type PriceBook struct {
	// Own are the account's own prices by PID; they win over the tier.
	Own  map[string]Money
	Tier *Tier
}

// Where a price comes from.
const (
	PriceOwn    = "account"
	PriceTier   = "tier"
	PriceMarkup = "markup"
	// PriceDiscount is a tier's percentage off the list price.
	PriceDiscount = "discount"
	PricePack     = "pack"
)

// PriceOf is what the account pays for one unit of p: its own price for p,
// else its tier's price for p, else p's cost marked up by the tier, else
// p's list price less the tier's percentage off, else p's price.
func (b *PriceBook) PriceOf(p *Pack) Money {
	price, _ := b.Quote(p)
	return price
}

// Quote is PriceOf, and where the price comes from (PriceOwn, PriceTier,
// PriceMarkup, PriceDiscount or PricePack).
func (b *PriceBook) Quote(p *Pack) (Money, string) {
	if price, ok := b.Own[p.PID]; ok {
		return price, PriceOwn
	}
	if b.Tier != nil {
		if price, source, ok := b.Tier.Quote(p); ok {
			return price, source
		}
	}
	return p.Price, PricePack
}

// CheckTierCosts refuses, as BELOW_COST unless allowed, a tier that would
// price a pack below its cost (HighestCost): a listed price, or, for a
// pack it lists no price for, its markup on the pack's Cost (a negative
// markup, or one that leaves the price under a dearer supplier's cost) or
// its percentage off the pack's list price. A listed PID that names no
// pack is INVALID_BODY.
func CheckTierCosts(t *Tier, packs []Pack, allowBelowCost bool) error {
	byPID := make(map[string]*Pack, len(packs))
	for i := range packs {
		byPID[packs[i].PID] = &packs[i]
	}
	for pid, price := range t.Prices {
		p, ok := byPID[pid]
		if !ok {
			return Errorf(EInvalidBody, "prices: no pack %s", pid)
		}
		if err := CheckCost(price, p.HighestCost(), allowBelowCost); err != nil {
			return Errorf(EBelowCost, "%s: %s", pid, err.(*Error).Detail)
		}
	}
	if allowBelowCost {
		return nil
	}
	for i := range packs {
		p := &packs[i]
		if _, listed := t.Prices[p.PID]; listed {
			continue
		}
		if price, source, ok := t.Quote(p); ok && price < p.HighestCost() {
			return Errorf(EBelowCost, "the %s prices %s at %s, below its cost %s (send allowBelowCost: true to allow it)",
				source, p.PID, price.Dollars(), p.HighestCost().Dollars())
		}
	}
	return nil
}

// Limits are an account's spending limits; nil is no limit.
type Limits struct {
	// MaxOrder is the most one order may charge.
	MaxOrder *Money
	// Daily is the most the account's orders of one UTC day may charge,
	// less what was refunded of them.
	Daily *Money
}

// Allow checks an order's amount against the limits, given what the
// account's orders of the same UTC day have charged so far (net of
// refunds): SPEND_LIMIT_EXCEEDED when it is above one, each limit as its
// LimitSetting's Per says, in the order of LimitSettings.
func (l *Limits) Allow(amount, spentToday Money) error {
	for _, s := range LimitSettings {
		limit := *s.Of(l)
		switch {
		case limit == nil:
		case s.Per == PerOrder && amount > *limit:
			return Errorf(ESpendLimit, "the order's %s is above the account's limit of %s an order", amount.Dollars(), limit.Dollars())
		case s.Per == PerDay && spentToday+amount > *limit:
			return Errorf(ESpendLimit, "the order's %s with %s spent today is above the account's daily limit of %s",
				amount.Dollars(), spentToday.Dollars(), limit.Dollars())
		}
	}
	return nil
}

// CountsTheDay reports whether Allow needs what the day's orders spent (a
// PerDay limit is set): the store reads it, under the account's lock,
// only then.
func (l *Limits) CountsTheDay() bool {
	for _, s := range LimitSettings {
		if s.Per == PerDay && *s.Of(l) != nil {
			return true
		}
	}
	return false
}

// LimitPer is what a spending limit bounds; Allow and the store's audit
// hold each limit to its kind.
type LimitPer int

const (
	// PerOrder bounds one order's charge.
	PerOrder LimitPer = iota + 1
	// PerDay bounds what the account's orders of one UTC day charge, less
	// what was refunded of them.
	PerDay
)

// LimitSetting is one spending limit as the operator sets it. Its entry in
// LimitSettings names it for every adapter: the admin API's field, the
// accounts table's column, the console's form field and label, and the
// action log's field; its Per says how Allow and the store's audit hold
// orders to it. A new limit of a kind already known is a new entry, a
// field of Limits and a column; the store, the admin API, the console,
// the log and the audit take it from here.
type LimitSetting struct {
	// Name is the admin API's field (and the action log's), in USD.
	Name string
	// Column is the accounts table's column, in minor units; NULL is no
	// limit.
	Column string
	// Form is the console form's field; Label its label, and Short the
	// label in a sentence.
	Form, Label, Short string
	// Per is what the limit bounds.
	Per LimitPer
	// Of points at the limit in Limits.
	Of func(*Limits) **Money
}

// LimitSettings are the spending limits, in the order they are shown and
// checked.
var LimitSettings = []LimitSetting{
	{Name: "maxOrderUsd", Column: "max_order", Form: "maxOrder", Label: "Most an order (USD)", Short: "Most an order",
		Per: PerOrder, Of: func(l *Limits) **Money { return &l.MaxOrder }},
	{Name: "dailyLimitUsd", Column: "daily_limit", Form: "dailyLimit", Label: "Most a UTC day, net of refunds (USD)", Short: "Most a day",
		Per: PerDay, Of: func(l *Limits) **Money { return &l.Daily }},
}

// LimitSettingNamed returns the limit the admin API names name.
func LimitSettingNamed(name string) (LimitSetting, bool) {
	for _, s := range LimitSettings {
		if s.Name == name {
			return s, true
		}
	}
	return LimitSetting{}, false
}

// LimitsPatch sets spending limits by their LimitSetting.Name: a nil
// amount lifts the limit; a limit not in it stays as it is.
type LimitsPatch map[string]*Money

// Apply returns l with the patch applied, after checking it: an unknown
// name or an amount below 0 is INVALID_BODY.
func (p LimitsPatch) Apply(l Limits) (Limits, error) {
	for name, m := range p {
		if _, ok := LimitSettingNamed(name); !ok {
			return l, Errorf(EInvalidBody, "%s is not a spending limit", name)
		}
		if m != nil && *m < 0 {
			return l, Errorf(EInvalidBody, "%s must not be below 0", name)
		}
	}
	for _, s := range LimitSettings {
		if m, ok := p[s.Name]; ok {
			*s.Of(&l) = m
		}
	}
	return l, nil
}

// PriceStore keeps price tiers and accounts' own prices.
type PriceStore interface {
	// PutTier creates or replaces a tier, its prices with it, and returns it
	// as stored.
	PutTier(ctx context.Context, ch *Change, t Tier) (Tier, error)
	// Tiers returns every tier by name.
	Tiers(ctx context.Context) ([]Tier, error)
	// SetAccountPrice sets one account's own price for one pack (ENotFound
	// for an unknown account or pack).
	SetAccountPrice(ctx context.Context, ch *Change, accountID, pid string, price Money) error
	// DeleteAccountPrice removes one account's own price for one pack
	// (ENotFound when it has none).
	DeleteAccountPrice(ctx context.Context, ch *Change, accountID, pid string) error
	// PriceBook reads what decides an account's prices.
	PriceBook(ctx context.Context, accountID string) (PriceBook, error)
}
