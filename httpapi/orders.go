package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// InFlightTTL is how long an order's in-flight hints live. A hint is never
// released nor extended: it lapses, so it costs no round trip after the
// answer. While it is held, the database decides what a repeat of its
// trxid or idempotency key is (PlaceOrder.HintHeld): 429
// DUPLICATE_IN_FLIGHT while the earlier order's first supplier call runs,
// its replay once the call has ended, and a new order when there is none
// (the first was rejected). After it lapses, a repeat of a running order
// is its replay too, so a dead node's order is answered within this time.
const InFlightTTL = 3 * time.Second

// orderCall is what POST /orders' limit step read and decided.
type orderCall struct {
	req topupd.OrderRequest
	// bad is why the body could not be read, answered after the limit.
	bad error
	// held says one of the request's hints was held (PlaceOrder.HintHeld).
	held bool
}

// limitOrder is POST /orders' limit step: it reads the body, then counts
// the call against the account's rate limit and takes the request's
// in-flight hints, both in one call (Orders). A call that cannot place an
// order (a bad body, orders closed) takes no hint. placeOrder answers the
// body and the settings, after the limit as on every route.
func (a *reseller) limitOrder(w http.ResponseWriter, r *http.Request, c *caller) error {
	req, bad := DecodeOrder(r)
	books := c.account.Books() // a sandbox key's calls are counted apart
	var hints []string
	if bad == nil && service.OrdersOpen(c.settings) == nil {
		hints = orderHints(&req, books)
	}
	d, err := a.Orders.AllowOrder(r.Context(), books, hints, InFlightTTL)
	if err := a.limited(w, r, d.RateDecision, err); err != nil {
		return err
	}
	c.order = &orderCall{req: req, bad: bad, held: d.Held}
	return nil
}

// orderHints are the in-flight hints of a request: its trxid (unique across
// accounts) and its idempotency key (the account's).
func orderHints(req *topupd.OrderRequest, account string) []string {
	hints := []string{"trx:" + req.TrxID}
	if _, sandbox := topupd.LiveID(account); sandbox { // a sandbox trxid is the sandbox's alone
		hints[0] = "trx" + topupd.SandboxSuffix + ":" + req.TrxID
	}
	if req.IdempotencyKey != "" {
		hints = append(hints, "idem:"+account+":"+req.IdempotencyKey)
	}
	return hints
}

// placeOrder places an order (service.PlaceOrder), once orders are open
// and the body could be read.
func (a *reseller) placeOrder(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c := callerOf(ctx)
	if err := service.OrdersOpen(c.settings); err != nil {
		return err
	}
	if c.order.bad != nil {
		return c.order.bad
	}
	o, replay, err := a.Service.PlaceOrder(ctx, service.OrderCall{Caller: c.callerVia(r), Settings: c.settings, Request: c.order.req,
		HintHeld: c.order.held})
	if topupd.CodeOf(err) == topupd.EDuplicateInFlight {
		w.Header().Set("Retry-After", strconv.Itoa(1))
	}
	if err != nil {
		return err
	}
	v := viewOrder(&o, a.Now())
	v.IdempotentReplay = &replay
	writeJSON(w, http.StatusOK, orderAnswer{Success: true, orderView: v})
	return nil
}
