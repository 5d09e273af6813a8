package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Scheduled prices on the admin API (back-office.md, section 4 (e)).

// priceChangeRoutes are the scheduled prices' routes: changes are the
// owner's and finance's, and every role reads them.
func (a *admin) priceChangeRoutes(mux router) {
	mux.Handle("POST /admin/price-changes", a.call(service.OpSchedulePriceChange, a.schedulePriceChange))
	mux.Handle("GET /admin/price-changes", a.read(a.listPriceChanges))
	mux.Handle("DELETE /admin/price-changes/{id}", a.call(service.OpDeletePriceChange, a.deletePriceChange))
}

// priceChangesCursor is the kind of the price changes list's cursors.
const priceChangesCursor = "p"

// priceChangeView is a price change as the admin API shows it, its state
// as at the answer's time: applied from effectiveAt on, whether or not the
// server has written it into its pack yet (appliedAt, and the price it
// replaced there, oldPriceUsd, are null until it has).
type priceChangeView struct {
	Success     bool          `json:"success,omitempty"`
	ID          string        `json:"id"`
	PID         string        `json:"pid"`
	PriceUSD    topupd.Money  `json:"priceUsd"`
	EffectiveAt string        `json:"effectiveAt"`
	State       string        `json:"state"`
	CreatedAt   string        `json:"createdAt"`
	Operator    string        `json:"operator"`
	OldPriceUSD *topupd.Money `json:"oldPriceUsd"`
	AppliedAt   *string       `json:"appliedAt"`
}

// viewPriceChange shows a price change at now.
func viewPriceChange(c *topupd.PriceChange, now time.Time, whole bool) priceChangeView {
	v := priceChangeView{Success: whole, ID: c.ID, PID: c.PID, PriceUSD: c.Price, EffectiveAt: c.EffectiveAt.UTC().Format(time.RFC3339Nano),
		State: c.StateAt(now), CreatedAt: c.CreatedAt.UTC().Format(time.RFC3339Nano), Operator: c.Operator, OldPriceUSD: c.OldPrice}
	if c.AppliedAt != nil {
		at := c.AppliedAt.UTC().Format(time.RFC3339Nano)
		v.AppliedAt = &at
	}
	return v
}

// schedulePriceChange schedules a pack's price: { "pid", "priceUsd",
// "effectiveAt", "allowBelowCost"? }.
func (a *admin) schedulePriceChange(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var pid, at string
	var allow bool
	obj.take("pid", &pid)
	price, _ := obj.money("priceUsd")
	obj.take("effectiveAt", &at)
	obj.take("allowBelowCost", &allow)
	if err := obj.done(); err != nil {
		return err
	}
	var effectiveAt time.Time
	if at != "" {
		if effectiveAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return topupd.Errorf(topupd.EInvalidBody, "effectiveAt: an RFC 3339 time")
		}
	}
	c, err := a.Service.SchedulePriceChange(r.Context(), a.actor(r), pid, price, effectiveAt, allow)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, viewPriceChange(&c, c.CreatedAt, true))
	return nil
}

// listPriceChanges answers a page of price changes, soonest first: pid
// and state (scheduled or applied) filter.
func (a *admin) listPriceChanges(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	p, err := parsePage(v, map[string]bool{"pid": true, "state": true}, priceChangesCursor)
	if err != nil {
		return err
	}
	page, err := a.Service.PriceChanges(r.Context(), a.actor(r), topupd.PriceChangesQuery{PID: v.Get("pid"), State: v.Get("state"),
		After: p.Before, Limit: p.Limit})
	if err != nil {
		return err
	}
	out := struct {
		Success      bool              `json:"success"`
		PriceChanges []priceChangeView `json:"priceChanges"`
		NextCursor   *string           `json:"nextCursor"`
	}{Success: true, PriceChanges: []priceChangeView{}, NextCursor: nextCursor(priceChangesCursor, page.Next)}
	for i := range page.Changes {
		out.PriceChanges = append(out.PriceChanges, viewPriceChange(&page.Changes[i], page.Now, false))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// deletePriceChange deletes a change that has not taken effect.
func (a *admin) deletePriceChange(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.Service.DeletePriceChange(r.Context(), a.actor(r), r.PathValue("id")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}
