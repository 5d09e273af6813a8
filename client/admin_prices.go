package client

import (
	"context"
	"net/http"
	"time"
)

// Tier is a price tier.
type Tier struct {
	Name          string           `json:"name"`
	MarkupPercent *Money           `json:"markupPercent"` // a percentage, exact like an amount
	RoundToUSD    *Money           `json:"roundToUsd"`
	Prices        map[string]Money `json:"prices"`
	Accounts      int              `json:"accounts"`
	UpdatedAt     time.Time        `json:"updatedAt"`
}

// AccountPrice is what one account pays for one pack, and where the price
// comes from: account, tier, markup or pack.
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
