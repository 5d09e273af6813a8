package client

import (
	"context"
	"net/http"
	"time"
)

// Tier is a price tier.
type Tier struct {
	Name          string `json:"name"`
	MarkupPercent *Money `json:"markupPercent"` // a percentage, exact like an amount
	// PercentOffList, instead of MarkupPercent, prices a pack at its list
	// price less this percentage.
	PercentOffList *Money           `json:"percentOffList"`
	RoundToUSD     *Money           `json:"roundToUsd"`
	Prices         map[string]Money `json:"prices"`
	Accounts       int              `json:"accounts"`
	UpdatedAt      time.Time        `json:"updatedAt"`
}

// AccountPrice is what one account pays for one pack, and where the price
// comes from: account, tier, markup, discount or pack.
type AccountPrice struct {
	PID          string `json:"pid"`
	PriceUSD     Money  `json:"priceUsd"`
	Source       string `json:"source"`
	PackPriceUSD Money  `json:"packPriceUsd"`
	CostUSD      *Money `json:"costUsd,omitempty"`
}

// AccountPrices is every pack's price for one account.
type AccountPrices struct {
	AccountID string         `json:"accountId"`
	Tier      *string        `json:"tier"`
	Prices    []AccountPrice `json:"prices"`
}

// Tiers lists every price tier, by name.
func (a *Admin) Tiers(ctx context.Context) ([]Tier, error) {
	var out struct {
		Tiers []Tier `json:"tiers"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/tiers", nil, &out)
	return out.Tiers, err
}

// AccountPrices reads what an account pays for every pack.
func (a *Admin) AccountPrices(ctx context.Context, accountID string) (AccountPrices, error) {
	var out AccountPrices
	err := a.Do(ctx, http.MethodGet, "/admin/accounts/"+esc(accountID)+"/prices", nil, &out)
	return out, err
}

// RuleScope is what a pricing rule governs: a line, a pack, or (empty)
// every pack.
type RuleScope struct {
	Line string `json:"line,omitempty"`
	PID  string `json:"pid,omitempty"`
}

// PricingRule prices the packs it governs from their cost.
type PricingRule struct {
	Name          string    `json:"name"`
	Scope         RuleScope `json:"scope"`
	MarkupPercent Money     `json:"markupPercent"` // a percentage, exact like an amount
	FixedUSD      Money     `json:"fixedUsd"`
	MinMarginUSD  Money     `json:"minMarginUsd"`
	RoundToUSD    Money     `json:"roundToUsd"`
	UpdatedAt     time.Time `json:"updatedAt,omitzero"`
}

// HeldPrice is a pricing rule's rise of a pack's price waiting for an
// operator.
type HeldPrice struct {
	PID         string    `json:"pid"`
	Rule        string    `json:"rule"`
	CostUSD     Money     `json:"costUsd"`
	OldPriceUSD Money     `json:"oldPriceUsd"`
	NewPriceUSD Money     `json:"newPriceUsd"`
	HeldAt      time.Time `json:"heldAt"`
}

// PutPricingRule creates or replaces a pricing rule (its Name names it;
// a RoundToUSD of 0 is left to the server's default, a cent); the packs
// it governs take its price at once.
func (a *Admin) PutPricingRule(ctx context.Context, r PricingRule) (PricingRule, error) {
	body := map[string]any{"scope": r.Scope, "markupPercent": r.MarkupPercent, "fixedUsd": r.FixedUSD, "minMarginUsd": r.MinMarginUSD}
	if r.RoundToUSD != 0 {
		body["roundToUsd"] = r.RoundToUSD
	}
	var out PricingRule
	err := a.Do(ctx, http.MethodPut, "/admin/pricing-rules/"+esc(r.Name), body, &out)
	return out, err
}

// PricingRules lists every pricing rule, by name.
func (a *Admin) PricingRules(ctx context.Context) ([]PricingRule, error) {
	var out struct {
		Rules []PricingRule `json:"rules"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/pricing-rules", nil, &out)
	return out.Rules, err
}

// DeletePricingRule removes a pricing rule; prices stay.
func (a *Admin) DeletePricingRule(ctx context.Context, name string) error {
	return a.Do(ctx, http.MethodDelete, "/admin/pricing-rules/"+esc(name), nil, nil)
}

// HeldPrices lists the rises waiting for an operator, by pid.
func (a *Admin) HeldPrices(ctx context.Context) ([]HeldPrice, error) {
	var out struct {
		Held []HeldPrice `json:"held"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/pricing/held", nil, &out)
	return out.Held, err
}

// ApplyHeldPrice sets a pack at its held price.
func (a *Admin) ApplyHeldPrice(ctx context.Context, pid string) error {
	return a.Do(ctx, http.MethodPost, "/admin/pricing/held/"+esc(pid)+"/apply", nil, nil)
}

// DiscardHeldPrice forgets a pack's held price; its price stays.
func (a *Admin) DiscardHeldPrice(ctx context.Context, pid string) error {
	return a.Do(ctx, http.MethodPost, "/admin/pricing/held/"+esc(pid)+"/discard", nil, nil)
}
