// Package httpapi serves the reseller API and the admin API over HTTP: the
// routes, authentication and rate-limit middleware, strict decoding, and the
// one table from error code to HTTP status.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/internal/metrics"
	"github.com/topupd/topupd/service"
)

// ResellerStore is what the reseller API reads of the database to let a
// call in: keys' accounts and the settings; everything else it asks of
// the service.
type ResellerStore interface {
	AccountByKey(ctx context.Context, h topupd.KeyHash, now time.Time) (topupd.Account, error)
	UseKey(ctx context.Context, h topupd.KeyHash, minute time.Time) error
	Settings(ctx context.Context) (topupd.Settings, error)
	CreditedTotal(ctx context.Context, accountID string) (topupd.Money, error)
}

// Deps are what the reseller API needs.
type Deps struct {
	// Store is the database, as the API reads it to let a call in.
	Store ResellerStore
	// Instance is this deployment's instance id, sent with every answer
	// (topupd.HeaderInstance).
	Instance string
	// Service runs every operation a caller asks for: reads, orders,
	// player checks.
	Service *service.Service
	// Limiter counts every call against its account's rate limit, but
	// POST /orders, which Orders counts.
	Limiter topupd.RateLimiter
	// Orders counts POST /orders against the same rate limit and takes its
	// in-flight hints, in one call (share its limiter with Limiter).
	Orders topupd.OrderLimiter
	Logger *slog.Logger
	Now    func() time.Time
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// MaxBody bounds request bodies.
	MaxBody int64
	// AuthCache, when set, remembers keys' accounts and the settings for a
	// moment; share it with the admin API so that its changes clear it.
	AuthCache *AuthCache
	// Metrics, when set, count this API's requests and the orders placed.
	Metrics *metrics.Metrics
	// KeylessLimiter, when set, limits per client IP the calls that end
	// without a valid key (see keyless); share it with the admin API.
	KeylessLimiter topupd.RateLimiter
}

// reseller is the reseller API.
type reseller struct {
	Deps
	// used remembers, per key hash, the minute this node last recorded the
	// key's use (GET /admin/accounts/{id}/keys shows lastUsedAt).
	used sync.Map
	// keyless limits the calls without a valid key per client IP.
	keyless *keyless
	// final keeps the answers of final orders (finalorders.go).
	final finalOrders
}

// NewReseller returns the reseller API handler.
func NewReseller(d Deps) (http.Handler, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("httpapi.NewReseller: a store is required")
	case d.Limiter == nil:
		return nil, errors.New("httpapi.NewReseller: a limiter is required")
	case d.Orders == nil:
		return nil, errors.New("httpapi.NewReseller: an order limiter is required")
	case d.Service == nil:
		return nil, errors.New("httpapi.NewReseller: a service is required")
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = logctx.Logger(d.Logger)
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.MaxBody <= 0 {
		d.MaxBody = 64 << 10
	}
	a := &reseller{Deps: d, keyless: newKeyless(d.KeylessLimiter, d.Logger, d.Now)}
	mux := http.NewServeMux()
	a.routes(mux)
	return instanced(d.Instance, guard("reseller", d.Logger, d.Metrics, d.MaxBody, mux, d.TrustedProxies)), nil
}

// instanced sends every answer of h with Topupd-Instance: id (none when
// empty), so that a topupd calling this one as its upstream can tell a
// loop (topupd.Route).
func instanced(id string, h http.Handler) http.Handler {
	if id == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(topupd.HeaderInstance, id)
		h.ServeHTTP(w, r)
	})
}

// router is what an API's routes are registered on: its ServeMux, or the
// recorder of the test that holds the routes to the OpenAPI documents.
type router interface {
	Handle(pattern string, handler http.Handler)
	HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request))
}

// routes lists the whole reseller API.
func (a *reseller) routes(mux router) {
	mux.Handle("GET /services", a.auth(a.services))
	mux.Handle("GET /products", a.auth(a.products))
	mux.Handle("GET /catalog", a.auth(a.products))
	mux.Handle("GET /my-ip", a.auth(a.myIP))
	mux.Handle("GET /balance", a.auth(a.balance))
	mux.Handle("POST /orders", a.authWith(a.limitOrder, a.placeOrder))
	mux.Handle("POST /players/check", a.auth(a.checkPlayer))
	mux.Handle("GET /history", a.auth(a.history))
	mux.Handle("GET /statement", a.auth(a.statement))
	mux.Handle("GET /orders/{orderId}", a.auth(a.order))
	mux.Handle("GET /orders/{$}", a.auth(a.noOrder))
	// Not an operation: without it, ServeMux would redirect GET /orders to
	// GET /orders/ (the route above). Every method but POST answers 405.
	mux.HandleFunc("/orders", a.onlyPost)
	mux.Handle("GET /events", a.auth(a.events))
	mux.Handle("POST /deposits", a.auth(a.openDeposit))
	mux.Handle("GET /deposits", a.auth(a.deposits))
	mux.Handle("GET /deposits/{depositId}", a.auth(a.deposit))
	mux.Handle("POST /orders/{orderId}/disputes", a.auth(a.openDispute))
	mux.Handle("GET /disputes", a.auth(a.disputes))
	mux.Handle("GET /disputes/{disputeId}", a.auth(a.dispute))
	mux.Handle("GET /openapi.json", a.auth(a.openapi))
}
