package simulation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/service"
)

// newAPI builds a node's reseller API: the real handler of httpapi, over
// the node's store and a service of the node's own (service.PlaceOrder
// places its orders), with in-memory rate limits and in-flight hints on
// the node's clock (a deployment without Redis), called in process.
func (w *World) newAPI(n *node) http.Handler {
	windows := []ratelimit.Window{{Limit: topupd.DefaultRatePerSecond, Period: time.Second}, {Limit: topupd.DefaultRatePerMinute, Period: time.Minute}}
	limiter := ratelimit.NewMemory(windows, n.now)
	svc, err := service.New(service.Deps{Store: n.st, Now: n.now, Deadline: deadline, Fulfiller: fulfiller{n}, Players: n.eng, Logger: quiet})
	if err != nil {
		panic(err) // a configuration error of the simulator itself
	}
	h, err := httpapi.NewReseller(httpapi.Deps{Store: n.st, Service: svc, Limiter: limiter, Orders: ratelimit.NewMemoryOrders(limiter, n.now),
		Logger: quiet, Now: n.now})
	if err != nil {
		panic(err) // a configuration error of the simulator itself
	}
	return h
}

// fulfiller makes the first supplier call of an order the handler placed
// in the caller's goroutine, as the engine's Attempt does when the call
// answers within its wait (and waits out a pending answer as it does).
type fulfiller struct{ n *node }

// Owner is the node's owner name.
func (f fulfiller) Owner() string { return f.n.owner }

// LeaseUntil is when a lease the node takes now runs out.
func (f fulfiller) LeaseUntil(now time.Time) time.Time { return f.n.eng.LeaseUntil(now) }

// Attempt works on the order at once, on a context the request's end does
// not end, as the engine's Attempt detaches its work from the request.
func (f fulfiller) Attempt(ctx context.Context, o topupd.Order, wait time.Duration) topupd.Order {
	if f.n.dead {
		return o
	}
	return f.n.eng.ProcessPlaced(logctx.Detach(ctx), o, f.n.now().Add(wait))
}

// Answered records nothing: the simulation reads no supplier log or metric.
func (f fulfiller) Answered(context.Context, topupd.Order) {}

// apiAnswer is what a client reads of POST /orders' answer.
type apiAnswer struct {
	status int
	topupd.OrderView
	Error string `json:"error"`
	Code  string `json:"code"`
}

// post sends POST /orders for a request to node n, as the account's shop does.
func (w *World) post(ctx context.Context, n *node, rq *request) (apiAnswer, error) {
	return w.postTo(ctx, n.api, rq)
}

// postTo sends POST /orders for a request to a node's reseller API. It
// reads the model only, so a burst's goroutines may call it at once.
func (w *World) postTo(ctx context.Context, api http.Handler, rq *request) (apiAnswer, error) {
	body := map[string]any{"pid": rq.req.PID, "trxid": rq.req.TrxID}
	if rq.req.Fields.UserID != "" {
		body["userId"] = rq.req.Fields.UserID
	}
	if rq.req.Quantity != 0 {
		body["quantity"] = rq.req.Quantity
	}
	if rq.req.IdempotencyKey != "" {
		body["idempotencyKey"] = rq.req.IdempotencyKey
	}
	b, err := json.Marshal(body)
	if err != nil {
		return apiAnswer{}, err
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/orders", bytes.NewReader(b))
	if err != nil {
		return apiAnswer{}, err
	}
	r.Header.Set("Authorization", "Bearer "+w.model.keys[rq.account])
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = "192.0.2.1:40000"
	rec := &recorder{header: http.Header{}}
	api.ServeHTTP(rec, r)
	a := apiAnswer{status: rec.status}
	if err := json.Unmarshal(rec.body.Bytes(), &a); err != nil {
		return a, fmt.Errorf("POST /orders answered %d %q: %w", rec.status, rec.body.String(), err)
	}
	return a, nil
}

// recorder is the response writer of an in-process call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header is the answer's header.
func (r *recorder) Header() http.Header { return r.header }

// WriteHeader records the status.
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// Write records the body.
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
