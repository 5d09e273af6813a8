package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// tierView is a tier as the operator sees it.
type tierView struct {
	Name          string                  `json:"name"`
	MarkupPercent *topupd.Percent         `json:"markupPercent"`
	PercentOff    *topupd.Percent         `json:"percentOffList"`
	RoundToUsd    topupd.Money            `json:"roundToUsd"`
	Prices        map[string]topupd.Money `json:"prices"`
	Accounts      int                     `json:"accounts"`
	UpdatedAt     string                  `json:"updatedAt"`
}

func viewTier(t *topupd.Tier) tierView {
	v := tierView{Name: t.Name, MarkupPercent: t.Markup, PercentOff: t.PercentOff, RoundToUsd: t.RoundTo, Prices: t.Prices, Accounts: t.Accounts,
		UpdatedAt: t.UpdatedAt.Format(time.RFC3339Nano)}
	if v.Prices == nil {
		v.Prices = map[string]topupd.Money{}
	}
	return v
}

// putTier creates or replaces a tier: what the body leaves out, it clears.
func (a *admin) putTier(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	t := topupd.Tier{Name: r.PathValue("name")}
	var markup, off topupd.Percent
	if obj.take("markupPercent", &markup) {
		t.Markup = &markup
	}
	if obj.take("percentOffList", &off) {
		t.PercentOff = &off
	}
	if round, ok := obj.money("roundToUsd"); ok && round == 0 {
		return topupd.Errorf(topupd.EInvalidBody, "roundToUsd: at least 0.01")
	} else if ok {
		t.RoundTo = round // absent or null: the default, a cent
	}
	obj.take("prices", &t.Prices)
	var allow bool
	obj.take("allowBelowCost", &allow)
	if err := obj.done(); err != nil {
		return err
	}
	stored, err := a.Service.PutTier(r.Context(), a.actor(r), t, allow)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewTier(&stored))
	return nil
}

// tiersAnswer is every tier.
type tiersAnswer struct {
	Success bool       `json:"success"`
	Tiers   []tierView `json:"tiers"`
}

func (a *admin) listTiers(w http.ResponseWriter, r *http.Request) error {
	tiers, err := a.Service.Tiers(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, tiersAnswer{Success: true, Tiers: viewEach(tiers, viewTier)})
	return nil
}

// accountPricesAnswer is what one account pays for every pack.
type accountPricesAnswer struct {
	AccountID string                `json:"accountId"`
	Prices    []client.AccountPrice `json:"prices"`
	Success   bool                  `json:"success"`
	Tier      *string               `json:"tier"`
}

// accountPrices lists what the account pays for every pack, and where each
// price comes from: its own price, its tier's, the tier's markup on cost,
// or the pack's price.
func (a *admin) accountPrices(w http.ResponseWriter, r *http.Request) error {
	ap, err := a.Service.AccountPrices(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountPricesAnswer{Success: true, AccountID: ap.AccountID, Prices: viewEach(ap.Prices, viewAccountPrice),
		Tier: nullable(ap.Tier)})
	return nil
}

// viewAccountPrice is what an account pays for a pack, and why.
func viewAccountPrice(p *service.AccountPrice) client.AccountPrice {
	return client.AccountPrice{PID: p.PID, PriceUSD: p.Price, Source: p.Source, PackPriceUSD: p.PackPrice, CostUSD: p.Cost}
}

// accountPriceSet is the answer of an account's own price set.
type accountPriceSet struct {
	AccountID string       `json:"accountId"`
	PID       string       `json:"pid"`
	PriceUsd  topupd.Money `json:"priceUsd"`
	Success   bool         `json:"success"`
}

// setAccountPrice sets the account's own price for one pack.
func (a *admin) setAccountPrice(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	price, _ := obj.money("priceUsd") // absent: 0, which the service refuses
	var allow bool
	obj.take("allowBelowCost", &allow)
	if err := obj.done(); err != nil {
		return err
	}
	accountID, pid := r.PathValue("id"), r.PathValue("pid")
	if err := a.Service.SetAccountPrice(r.Context(), a.actor(r), accountID, pid, price, allow); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountPriceSet{Success: true, AccountID: accountID, PID: pid, PriceUsd: price})
	return nil
}

// plainSuccess is the answer of a change that says nothing more.
type plainSuccess struct {
	Success bool `json:"success"`
}

// deleteAccountPrice removes the account's own price for one pack: its tier
// or the pack's price applies again.
func (a *admin) deleteAccountPrice(w http.ResponseWriter, r *http.Request) error {
	if err := a.Service.DeleteAccountPrice(r.Context(), a.actor(r), r.PathValue("id"), r.PathValue("pid")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}
