package httpapi

import (
	"net/http"
	"net/url"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// upstreamDepositView is a deposit we sent a supplier, as the admin API
// shows it.
type upstreamDepositView struct {
	ID        string       `json:"id"`
	Upstream  string       `json:"upstream"`
	AmountUSD topupd.Money `json:"amountUsd"`
	Reference string       `json:"reference"`
	At        time.Time    `json:"at"`
	Operator  string       `json:"operator"`
}

func viewUpstreamDeposit(d topupd.UpstreamDeposit) upstreamDepositView {
	return upstreamDepositView{ID: d.ID, Upstream: d.Upstream, AmountUSD: d.Amount, Reference: d.Reference, At: d.At.UTC(), Operator: d.Operator}
}

// addUpstreamDeposit records money we sent a supplier: 201, or 200 with the
// first deposit for a reference already recorded.
func (a *admin) addUpstreamDeposit(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var reference string
	amount, _ := obj.money("amountUsd")
	obj.take("reference", &reference)
	var at *time.Time
	if obj.has("at") {
		var t time.Time
		if obj.take("at", &t) {
			at = &t
		}
	}
	if err := obj.done(); err != nil {
		return err
	}
	d, repeated, err := a.Service.AddUpstreamDeposit(r.Context(), a.actor(r), r.PathValue("name"), amount, reference, at)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if repeated {
		status = http.StatusOK
	}
	writeJSON(w, status, struct {
		Success bool `json:"success"`
		upstreamDepositView
	}{true, viewUpstreamDeposit(d)})
	return nil
}

// depositFilters are the parameters of an upstream's deposits besides paging.
var depositFilters = map[string]bool{"from": true, "to": true}

// listUpstreamDeposits pages an upstream's deposits, newest first, sent
// from the day (or time) from to the day (or time) to, both included.
func (a *admin) listUpstreamDeposits(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	p, err := parsePage(v, depositFilters, service.UpstreamDepositsCursor)
	if err != nil {
		return err
	}
	q := topupd.UpstreamDepositsQuery{Upstream: r.PathValue("name"), Before: p.Before, Limit: p.Limit}
	if q.From, q.To, err = daySpan(v); err != nil {
		return err
	}
	list, next, err := a.Service.UpstreamDeposits(r.Context(), a.actor(r), q)
	if err != nil {
		return err
	}
	out := make([]upstreamDepositView, len(list))
	for i, d := range list {
		out[i] = viewUpstreamDeposit(d)
	}
	writeJSON(w, http.StatusOK, struct {
		Success    bool                  `json:"success"`
		Deposits   []upstreamDepositView `json:"deposits"`
		NextCursor *string               `json:"nextCursor"`
	}{true, out, nextCursor(service.UpstreamDepositsCursor, next)})
	return nil
}

// daySpan reads from and to, each a date (2006-01-02, UTC: to takes in its
// whole day) or an RFC 3339 time, as the span [from, to) of the store's
// queries; either may be absent.
func daySpan(v url.Values) (from, to time.Time, err error) {
	for _, t := range []struct {
		name string
		dst  *time.Time
		day  time.Duration // what a date adds: to takes in the whole day
	}{{"from", &from, 0}, {"to", &to, 24 * time.Hour}} {
		s := v.Get(t.name)
		if s == "" {
			continue
		}
		if d, derr := time.Parse(time.DateOnly, s); derr == nil {
			*t.dst = d.Add(t.day)
		} else if *t.dst, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return from, to, topupd.Errorf(topupd.EInvalidRequest, "%s: a date (2006-01-02) or an RFC 3339 time", t.name)
		} else if t.name == "to" {
			*t.dst = t.dst.Add(time.Millisecond) // the time itself is in
		}
	}
	return from, to, nil
}
