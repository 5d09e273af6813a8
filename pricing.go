package topupd

import (
	"context"
	"math/big"
	"strconv"
)

// Pricing that keeps the margin (back-office.md, section 4): every price
// charged is a whole count of cents, and a cost raised above a price the
// pack is sold at is refused unless the operator allows it.

// Cent is one US cent in Money's units: every price an account is
// charged is a whole count of them; costs keep Money's four decimals.
const Cent = cent

// WholeCents refuses, as INVALID_BODY naming field, an amount with more
// than two decimals.
func WholeCents(field string, m Money) error {
	if m%Cent != 0 {
		return Errorf(EInvalidBody, "%s: at most 2 decimals (whole cents)", field)
	}
	return nil
}

// roundUp is n (a count of units, scaled by scale) rounded up to a
// multiple of step (a cent at least), as Money; ok is false on overflow
// or when it is not above 0.
func roundUp(n, scale *big.Int, step Money) (Money, bool) {
	step = max(step, Cent)
	s := big.NewInt(int64(step))
	price := new(big.Int).Mul(ceilDiv(ceilDiv(n, scale), s), s)
	if !price.IsInt64() || price.Int64() > int64(MaxMoney) || price.Sign() <= 0 {
		return 0, false
	}
	return Money(price.Int64()), true
}

// The kinds of price a cost raise may leave below the cost.
const (
	UndercutPack      = "pack"
	UndercutTier      = "tier"
	UndercutAccount   = "account"
	UndercutScheduled = "scheduled"
)

// Undercut is a price a pack is sold at that its cost is above: the
// pack's own, a tier's (listed, marked up or off the list price), an
// account's own, or a scheduled one.
type Undercut struct {
	Kind string `json:"kind"`
	// Name names the tier; AccountID the account.
	Name      string `json:"name,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	Price     Money  `json:"priceUsd"`
}

// AccountPrice is one account's own price of a pack.
type AccountPrice struct {
	AccountID string
	Price     Money
}

// PackPrices are the prices a pack is sold at besides its own: every
// tier (with its listed prices of the pack, if any), every account's own
// price of it, and its scheduled price, if any.
type PackPrices struct {
	Tiers     []Tier
	Own       []AccountPrice
	Scheduled *Money
}

// Undercuts lists the prices of p that its cost (HighestCost) is above,
// in the order PackPrices holds them, the pack's own first; none for a
// pack without a cost.
func Undercuts(p *Pack, prices *PackPrices) []Undercut {
	cost := p.HighestCost()
	if cost <= 0 {
		return nil
	}
	var out []Undercut
	if p.Price < cost {
		out = append(out, Undercut{Kind: UndercutPack, Price: p.Price})
	}
	for i := range prices.Tiers {
		t := &prices.Tiers[i]
		if price, ok := t.PriceOf(p); ok && price < cost {
			out = append(out, Undercut{Kind: UndercutTier, Name: t.Name, Price: price})
		}
	}
	for _, o := range prices.Own {
		if o.Price < cost {
			out = append(out, Undercut{Kind: UndercutAccount, AccountID: o.AccountID, Price: o.Price})
		}
	}
	if s := prices.Scheduled; s != nil && *s < cost {
		out = append(out, Undercut{Kind: UndercutScheduled, Price: *s})
	}
	return out
}

// CostRaised is the refusal of a cost raise that undercuts prices: 409
// BELOW_COST with the prices.
func CostRaised(p *Pack, under []Undercut) *Error {
	return &Error{Code: EBelowCost, Detail: "the cost " + p.HighestCost().Dollars() + " is above " + plural(len(under), "price") +
		" the pack is sold at (send allowBelowCost: true to keep them)", Undercut: under}
}

// plural is n and the noun, plural unless n is 1: "1 price", "3 prices".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// CostGuard asks a pack's write (PUT or PATCH) to refuse a raise of the
// pack's cost above a price it is sold at (Undercuts), unless
// AllowBelowCost: the store checks it in the write's transaction, against
// the prices as they stand. Writes without one (catalog syncs, the
// server's own) are not guarded.
type CostGuard struct {
	AllowBelowCost bool
	// Reprice has the pack's pricing rule set its price at once, never
	// held, before the check.
	Reprice bool
	// PriceSet says the write sets the price by hand (a PATCH naming
	// priceUsd): checked against the cost even when it equals the stored
	// price, and no rule reprices it. A write that leaves the price as
	// stored without naming it (a PUT repeating it) sets none.
	PriceSet bool
}

// WithCostGuard returns ctx asking the pack writes made with it to guard
// their cost raises.
func WithCostGuard(ctx context.Context, g CostGuard) context.Context { return withValue(ctx, &g) }

// CostGuardOf returns the guard ctx carries, or nil.
func CostGuardOf(ctx context.Context) *CostGuard { return valueOf[*CostGuard](ctx) }
