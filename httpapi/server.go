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
)

// Fulfiller makes the first supplier call of an order just placed.
type Fulfiller interface {
	// Owner is the name it leases orders under.
	Owner() string
	// LeaseUntil is when a lease taken now would run out.
	LeaseUntil(now time.Time) time.Time
	// Attempt works on a leased order for up to wait (or until ctx ends) and
	// returns it as it then stands.
	Attempt(ctx context.Context, o topupd.Order, wait time.Duration) topupd.Order
	// Answered records the first supplier call of an order its placement
	// answered (topupd.PlaceOrder.Sim: completed, or pending), as
	// Attempt records a call: its log line, its metric and the supplier's
	// health.
	Answered(ctx context.Context, o topupd.Order)
}

// ResellerStore is what the reseller API needs of the database: keys'
// accounts and the settings to let a call in, then the catalog, the
// balance and the orders of the caller's account.
type ResellerStore interface {
	// Letting a call in.
	AccountByKey(ctx context.Context, h topupd.KeyHash, now time.Time) (topupd.Account, error)
	UseKey(ctx context.Context, h topupd.KeyHash, minute time.Time) error
	Settings(ctx context.Context) (topupd.Settings, error)
	CreditedTotal(ctx context.Context, accountID string) (topupd.Money, error)
	// The catalog.
	Lines(ctx context.Context) ([]topupd.Line, error)
	Packs(ctx context.Context) ([]topupd.Pack, error)
	StockLevels(ctx context.Context) (map[string]int, error)
	PriceBook(ctx context.Context, accountID string) (topupd.PriceBook, error)
	topupd.CatalogSyncStore
	// The caller's balance and orders.
	Balance(ctx context.Context, accountID string) (topupd.Money, error)
	PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (o topupd.Order, replay bool, err error)
	PrepareOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Pack, topupd.Draft, error)
	ResellerOrder(ctx context.Context, accountID, id string) (topupd.Order, error)
	History(ctx context.Context, accountID string, q topupd.HistoryQuery) (orders []topupd.Order, total int, err error)
	Statement(ctx context.Context, accountID string, from, to time.Time) (topupd.Statement, error)
	// The caller's events (integration.md "Pulling events").
	WebhookEvents(ctx context.Context, accountID, after string, limit int) ([]topupd.WebhookEvent, bool, error)
}

// Deps are what the reseller API needs.
type Deps struct {
	// Store is the database.
	Store ResellerStore
	// Limiter counts every call against its account's rate limit, but
	// POST /orders, which Orders counts.
	Limiter topupd.RateLimiter
	// Orders counts POST /orders against the same rate limit and takes its
	// in-flight hints, in one call (share its limiter with Limiter).
	Orders    topupd.OrderLimiter
	Fulfiller Fulfiller
	// Players asks the suppliers about players (POST /players/check).
	Players Players
	Logger  *slog.Logger
	Now     func() time.Time
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// Deadline is how long an order may take before it is cancelled and refunded.
	Deadline time.Duration
	// InlineWait is how long POST /orders waits for the supplier's first answer.
	InlineWait time.Duration
	// MaxBody bounds request bodies.
	MaxBody int64
	// AuthCache, when set, remembers keys' accounts and the settings for a
	// moment; share it with the admin API so that its changes clear it.
	AuthCache *AuthCache
	// SimOff refuses orders for packs fulfilled by sim (--sim off) as
	// PRODUCT_DISABLED, and leaves them out of the catalog.
	SimOff bool
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
	case d.Fulfiller == nil:
		return nil, errors.New("httpapi.NewReseller: a fulfiller is required")
	case d.Players == nil:
		return nil, errors.New("httpapi.NewReseller: a player checker is required")
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = logctx.Logger(d.Logger)
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Deadline <= 0 {
		d.Deadline = topupd.DefaultOrderDeadline
	}
	if d.InlineWait <= 0 {
		d.InlineWait = 10 * time.Second
	}
	if d.MaxBody <= 0 {
		d.MaxBody = 64 << 10
	}
	a := &reseller{Deps: d, keyless: newKeyless(d.KeylessLimiter, d.Logger, d.Now)}
	mux := http.NewServeMux()
	a.routes(mux)
	return guard("reseller", d.Logger, d.Metrics, d.MaxBody, mux, d.TrustedProxies), nil
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
	mux.Handle("GET /openapi.json", a.auth(a.openapi))
}
