package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// InFlightTTL is how long an in-flight lock outlives its holder: the
// request holding it extends it while it runs, however long that is, so a
// duplicate is refused all along; after the node holding it dies, the
// trxid is free again within this time, and a retry anywhere gets the
// committed order as a replay.
const InFlightTTL = 3 * time.Second

// placeOrder places an order: settings, body, in-flight lock, then one store
// transaction, then the first supplier call.
func (a *reseller) placeOrder(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c := callerOf(ctx)
	switch st := c.settings; {
	case st.Maintenance:
		return topupd.Fail(topupd.EMaintenance)
	case st.OrdersDisabled:
		return topupd.Fail(topupd.EOrdersDisabled)
	}
	req, err := DecodeOrder(r)
	if err != nil {
		return err
	}
	release, err := a.lockInFlight(w, r, &req, c.account.Books())
	if err != nil {
		return err
	}
	defer release()

	now := a.Now()
	o, replay, err := a.Store.PlaceOrder(ctx, topupd.PlaceOrder{
		AccountID: c.account.ID, Sandbox: c.account.Sandbox, Request: req, Now: now, Deadline: a.Deadline, SimOff: a.SimOff,
		LeaseOwner: a.Fulfiller.Owner(), LeaseUntil: a.Fulfiller.LeaseUntil(now),
	})
	if err != nil {
		return err
	}
	if !replay && o.Status == topupd.StatusProcessing {
		o = a.Fulfiller.Attempt(ctx, o, a.InlineWait)
	}
	v := viewOrder(&o, a.Now())
	v.IdempotentReplay = &replay
	writeJSON(w, http.StatusOK, orderAnswer{Success: true, orderView: v})
	return nil
}

// lockInFlight takes the in-flight locks of the request's trxid (unique
// across accounts) and idempotency key (the account's). A duplicate of a
// request still running is DUPLICATE_IN_FLIGHT. The locks only spare the
// database work: the unique constraints decide.
func (a *reseller) lockInFlight(w http.ResponseWriter, r *http.Request, req *topupd.OrderRequest, account string) (func(), error) {
	keys := []string{"trx:" + req.TrxID}
	if _, sandbox := topupd.LiveID(account); sandbox { // a sandbox trxid is the sandbox's alone
		keys[0] = "trx" + topupd.SandboxSuffix + ":" + req.TrxID
	}
	if req.IdempotencyKey != "" {
		keys = append(keys, "idem:"+account+":"+req.IdempotencyKey)
	}
	var releases []func()
	releaseAll := func() {
		for _, f := range releases {
			f()
		}
	}
	for _, k := range keys {
		rel, ok, err := a.InFlight.Hold(r.Context(), k, InFlightTTL)
		if err != nil {
			releaseAll()
			a.Logger.ErrorContext(r.Context(), "in-flight locks unavailable", "err", err)
			return nil, topupd.Fail(topupd.ERateLimitDown)
		}
		if !ok {
			releaseAll()
			w.Header().Set("Retry-After", strconv.Itoa(1))
			return nil, topupd.Fail(topupd.EDuplicateInFlight)
		}
		releases = append(releases, rel)
	}
	return releaseAll, nil
}
