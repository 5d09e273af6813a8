package topupd

import (
	"context"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Pricing rules (back-office.md, section 4 (c)): a rule prices the packs
// it governs from their cost, so that a cost change keeps the margin; a
// rise above holdAbovePercent of the old price waits for an operator.

// MaxRuleMarkup is the highest markupPercent a rule may have, in Percent's
// units.
const MaxRuleMarkup = 1000 * percentScale

// DefaultHoldAbove is holdAbovePercent's default: a rule's rise above 10%
// of the old price is held.
const DefaultHoldAbove = 10 * percentScale

// RuleScope is what a rule governs: one pack (PID), one line (Line), or,
// with neither, every pack.
type RuleScope struct {
	Line string `json:"line,omitempty"`
	PID  string `json:"pid,omitempty"`
}

// PricingRule prices the packs it governs: cost × (1 + Markup/100) +
// Fixed, raised to cost + MinMargin when lower, rounded up to a multiple
// of RoundTo.
type PricingRule struct {
	Name      string
	Scope     RuleScope
	Markup    Percent
	Fixed     Money
	MinMargin Money
	RoundTo   Money
	UpdatedAt time.Time
}

// ruleNameRe is what a rule's name may look like.
var ruleNameRe = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Validate checks a rule as the admin API receives it (its scope's line or
// pack existing is the store's to check): INVALID_BODY naming the field.
func (r *PricingRule) Validate() error {
	switch {
	case !ruleNameRe.MatchString(r.Name):
		return Errorf(EInvalidBody, "name: 1 to 64 letters, digits and ._-")
	case r.Scope.Line != "" && r.Scope.PID != "":
		return Errorf(EInvalidBody, "scope: at most one of line and pid")
	case r.Markup < 0 || r.Markup > MaxRuleMarkup:
		return Errorf(EInvalidBody, "markupPercent: 0 to 1000")
	case r.Fixed < 0:
		return Errorf(EInvalidBody, "fixedUsd: at least 0")
	case r.MinMargin < 0:
		return Errorf(EInvalidBody, "minMarginUsd: at least 0")
	case r.RoundTo < Cent:
		return Errorf(EInvalidBody, "roundToUsd: at least 0.01")
	}
	for _, f := range []struct {
		name string
		v    Money
	}{{"fixedUsd", r.Fixed}, {"minMarginUsd", r.MinMargin}, {"roundToUsd", r.RoundTo}} {
		if err := WholeCents(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// PriceFor is the rule's price for a cost, computed exactly: ok is false
// without a cost, or on overflow.
func (r *PricingRule) PriceFor(cost Money) (Money, bool) {
	if cost <= 0 {
		return 0, false
	}
	scale := big.NewInt(100 * percentScale)
	n := new(big.Int).Mul(big.NewInt(int64(cost)), new(big.Int).Add(scale, big.NewInt(int64(r.Markup))))
	n.Add(n, new(big.Int).Mul(big.NewInt(int64(r.Fixed)), scale))
	floor := new(big.Int).Mul(big.NewInt(int64(cost+r.MinMargin)), scale)
	if n.Cmp(floor) < 0 {
		n = floor
	}
	return roundUp(n, scale, r.RoundTo)
}

// Governs reports whether the rule's scope takes in p.
func (r *PricingRule) Governs(p *Pack) bool {
	switch {
	case r.Scope.PID != "":
		return r.Scope.PID == p.PID
	case r.Scope.Line != "":
		return r.Scope.Line == p.Slug
	}
	return true
}

// RuleFor is the rule that prices p: its pid's, else its line's, else the
// unscoped one; nil for a pinned pack, a pack without a cost, or none.
func RuleFor(p *Pack, rules []PricingRule) *PricingRule {
	if p.PricePinned || p.HighestCost() <= 0 {
		return nil
	}
	var line, all *PricingRule
	for i := range rules {
		r := &rules[i]
		switch {
		case r.Scope.PID == p.PID:
			return r
		case r.Scope.PID == "" && r.Scope.Line != "" && r.Scope.Line == p.Slug:
			line = r
		case r.Scope.PID == "" && r.Scope.Line == "":
			all = r
		}
	}
	if line != nil {
		return line
	}
	return all
}

// Holds reports whether a rule's new price for a pack waits for an
// operator: a rise of more than holdAbove (a percentage) of the old price.
// A drop, or a smaller rise, applies at once.
func Holds(oldPrice, newPrice Money, holdAbove Percent) bool {
	if newPrice <= oldPrice {
		return false
	}
	rise := new(big.Int).Mul(big.NewInt(int64(newPrice-oldPrice)), big.NewInt(100*percentScale))
	limit := new(big.Int).Mul(big.NewInt(int64(oldPrice)), big.NewInt(int64(holdAbove)))
	return rise.Cmp(limit) > 0
}

// HeldPrice is a rule's rise that waits for an operator: one a pack, the
// newest replacing an older.
type HeldPrice struct {
	PID, Rule          string
	Cost               Money
	OldPrice, NewPrice Money
	HeldAt             time.Time
}

// PriceHeldData is a price.held event's payload: a rule's rise held.
type PriceHeldData struct {
	PID      string `json:"pid"`
	Rule     string `json:"rule"`
	Cost     Money  `json:"costUsd"`
	OldPrice Money  `json:"oldPriceUsd"`
	NewPrice Money  `json:"newPriceUsd"`
}

// EventType is price.held.
func (*PriceHeldData) EventType() EventType { return EventPriceHeld }

// RulePreview is one pack whose price the rules would change.
type RulePreview struct {
	PID, Rule          string
	Cost               Money
	OldPrice, NewPrice Money
	// Held says the rise is more than holdAbovePercent of the old price:
	// on a cost change it would wait for an operator.
	Held bool
}

// PreviewRules lists, by pid, the packs whose price the rules would set
// to another: each pack's rule (RuleFor) at its cost.
func PreviewRules(packs []Pack, rules []PricingRule, holdAbove Percent) []RulePreview {
	var out []RulePreview
	for i := range packs {
		p := &packs[i]
		r := RuleFor(p, rules)
		if r == nil {
			continue
		}
		price, ok := r.PriceFor(p.HighestCost())
		if !ok || price == p.Price {
			continue
		}
		out = append(out, RulePreview{PID: p.PID, Rule: r.Name, Cost: p.HighestCost(), OldPrice: p.Price, NewPrice: price,
			Held: Holds(p.Price, price, holdAbove)})
	}
	slices.SortFunc(out, func(a, b RulePreview) int { return strings.Compare(a.PID, b.PID) })
	return out
}

// WithRules replaces, by name, the rules of base with those of changes,
// adding those it lacks: the rules as if changes were saved.
func WithRules(base, changes []PricingRule) []PricingRule {
	out := slices.Clone(base)
	for _, c := range changes {
		if i := slices.IndexFunc(out, func(r PricingRule) bool { return r.Name == c.Name }); i >= 0 {
			out[i] = c
		} else {
			out = append(out, c)
		}
	}
	return out
}

// PricingStore keeps pricing rules and held prices.
type PricingStore interface {
	// PutPricingRule creates or replaces a rule (its scope's line or pack
	// must exist: INVALID_BODY; another rule's scope: CONFLICT), and
	// prices the packs it governs at once, in one transaction.
	PutPricingRule(ctx context.Context, ch *Change, r PricingRule) (PricingRule, error)
	// DeletePricingRule removes a rule (NOT_FOUND); prices stay.
	DeletePricingRule(ctx context.Context, ch *Change, name string) error
	// PricingRules returns every rule, by name.
	PricingRules(ctx context.Context) ([]PricingRule, error)
	// HeldPrices returns every held price, by pid.
	HeldPrices(ctx context.Context) ([]HeldPrice, error)
	// ApplyHeldPrice sets a pack at its held price (NOT_FOUND without
	// one) and forgets the hold.
	ApplyHeldPrice(ctx context.Context, ch *Change, pid string) (Pack, error)
	// DiscardHeldPrice forgets a pack's held price (NOT_FOUND without
	// one); its price stays.
	DiscardHeldPrice(ctx context.Context, ch *Change, pid string) error
}
