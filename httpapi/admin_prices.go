package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
)

// tierView is a tier as the operator sees it.
type tierView struct {
	Name          string                  `json:"name"`
	MarkupPercent *topupd.Percent         `json:"markupPercent"`
	RoundToUsd    *topupd.Money           `json:"roundToUsd"`
	Prices        map[string]topupd.Money `json:"prices"`
	Accounts      int                     `json:"accounts"`
	UpdatedAt     string                  `json:"updatedAt"`
}

func viewTier(t *topupd.Tier) tierView {
	v := tierView{Name: t.Name, MarkupPercent: t.Markup, Prices: t.Prices, Accounts: t.Accounts, UpdatedAt: t.UpdatedAt.Format(time.RFC3339Nano)}
	if t.RoundTo > 0 {
		v.RoundToUsd = &t.RoundTo
	}
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
	t := topupd.Tier{Name: r.PathValue("name"), UpdatedAt: a.Now()}
	var markup topupd.Percent
	if obj.take("markupPercent", &markup) {
		t.Markup = &markup
	}
	t.RoundTo, _ = obj.money("roundToUsd")
	obj.take("prices", &t.Prices)
	var allow bool
	obj.take("allowBelowCost", &allow)
	if err := obj.done(); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return err
	}
	packs, err := a.Store.Packs(r.Context())
	if err != nil {
		return err
	}
	if err := topupd.CheckTierCosts(&t, packs, allow); err != nil {
		return err
	}
	stored, err := a.Store.PutTier(r.Context(), t)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewTier(&stored))
	return nil
}

func (a *admin) listTiers(w http.ResponseWriter, r *http.Request) error {
	tiers, err := a.Store.Tiers(r.Context())
	if err != nil {
		return err
	}
	out := make([]tierView, len(tiers))
	for i := range tiers {
		out[i] = viewTier(&tiers[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "tiers": out})
	return nil
}

// accountPriceView is what one account pays for one pack, and why.
type accountPriceView struct {
	PID      string        `json:"pid"`
	PriceUsd topupd.Money  `json:"priceUsd"`
	Source   string        `json:"source"`
	PackUsd  topupd.Money  `json:"packPriceUsd"`
	CostUsd  *topupd.Money `json:"costUsd,omitempty"`
}

// accountPrices lists what the account pays for every pack, and where each
// price comes from: its own price, its tier's, the tier's markup on cost,
// or the pack's price.
func (a *admin) accountPrices(w http.ResponseWriter, r *http.Request) error {
	acct, err := a.Store.Account(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	book, err := a.Store.PriceBook(r.Context(), acct.ID)
	if err != nil {
		return err
	}
	packs, err := a.Store.Packs(r.Context())
	if err != nil {
		return err
	}
	out := make([]accountPriceView, len(packs))
	for i := range packs {
		p := &packs[i]
		price, source := book.Quote(p)
		out[i] = accountPriceView{PID: p.PID, PriceUsd: price, Source: source, PackUsd: p.Price}
		if p.Cost > 0 {
			out[i].CostUsd = &p.Cost
		}
	}
	var tier *string
	if acct.Tier != "" {
		tier = &acct.Tier
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "accountId": acct.ID, "tier": tier, "prices": out})
	return nil
}

// setAccountPrice sets the account's own price for one pack.
func (a *admin) setAccountPrice(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	price, ok := obj.money("priceUsd")
	var allow bool
	obj.take("allowBelowCost", &allow)
	if err := obj.done(); err != nil {
		return err
	}
	if !ok || price <= 0 {
		return topupd.Errorf(topupd.EInvalidBody, "priceUsd is required and must be above 0")
	}
	accountID, pid := r.PathValue("id"), r.PathValue("pid")
	pack, err := a.pack(r, pid)
	if err != nil {
		return err
	}
	if err := topupd.CheckCost(price, pack.HighestCost(), allow); err != nil {
		return err
	}
	if err := a.Store.SetAccountPrice(r.Context(), accountID, pid, price); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "accountId": accountID, "pid": pid, "priceUsd": price})
	return nil
}

// deleteAccountPrice removes the account's own price for one pack: its tier
// or the pack's price applies again.
func (a *admin) deleteAccountPrice(w http.ResponseWriter, r *http.Request) error {
	if err := a.Store.DeleteAccountPrice(r.Context(), r.PathValue("id"), r.PathValue("pid")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true})
	return nil
}

// pack finds one pack by PID, or ENotFound.
func (a *admin) pack(r *http.Request, pid string) (topupd.Pack, error) {
	packs, err := a.Store.Packs(r.Context())
	if err != nil {
		return topupd.Pack{}, err
	}
	for _, p := range packs {
		if p.PID == pid {
			return p, nil
		}
	}
	return topupd.Pack{}, topupd.Errorf(topupd.ENotFound, "pack %s", pid)
}
