package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/internal/metrics"
)

// AdminDeps are what the admin API needs.
type AdminDeps struct {
	Store  topupd.Store
	Logger *slog.Logger
	Now    func() time.Time
	// Token is the admin bearer token; empty refuses every call.
	Token string
	// Wake, if set, tells the fulfilment engine that orders changed.
	Wake func()
	// Health, if set, reports how each supplier's recent calls went.
	Health func() []topupd.Health
	// Deadline is how long an operator's retry gives a stuck order.
	Deadline time.Duration
	// Checks are the readiness checks of GET /admin/healthz besides the
	// database (for example "redis").
	Checks map[string]func(ctx context.Context) error
	// AuthCache, when set, is the reseller API's cache: every change made
	// here clears it.
	AuthCache *AuthCache
	// SimOff refuses packs fulfilled by sim (--sim off) with SIM_DISABLED.
	SimOff bool
	// Metrics, when set, are served at GET /metrics and count this API's
	// requests and the orders operators settle.
	Metrics *metrics.Metrics
	// MetricsToken, when set, is a bearer token that may read /metrics
	// (besides an operator's).
	MetricsToken string
}

// admin is the operator's API.
type admin struct {
	AdminDeps
}

// NewAdmin returns the admin API handler.
func NewAdmin(d AdminDeps) (http.Handler, error) {
	if d.Store == nil {
		return nil, errors.New("httpapi.NewAdmin: a store is required")
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = logctx.Logger(d.Logger)
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Health == nil {
		d.Health = func() []topupd.Health { return nil }
	}
	if d.Deadline <= 0 {
		d.Deadline = topupd.DefaultOrderDeadline
	}
	a := &admin{AdminDeps: d}
	mux := http.NewServeMux()
	a.routes(mux)
	return guard("admin", d.Logger, d.Metrics, 16<<20, mux, nil), nil
}

// routes lists the whole admin API.
func (a *admin) routes(mux *http.ServeMux) {
	a.opsRoutes(mux)
	mux.Handle("GET /admin/healthz", a.auth(a.healthz))
	mux.Handle("GET /admin/audit", a.auth(a.audit))
	a.debugRoutes(mux)

	mux.Handle("POST /admin/accounts", a.auth(a.createAccount))
	mux.Handle("GET /admin/accounts/{id}", a.auth(a.getAccount))
	mux.Handle("PATCH /admin/accounts/{id}", a.auth(a.patchAccount))
	mux.Handle("POST /admin/accounts/{id}/keys", a.auth(a.createKey))
	mux.Handle("DELETE /admin/keys/{keyId}", a.auth(a.revokeKey))
	mux.Handle("POST /admin/accounts/{id}/credits", a.auth(a.credit))
	mux.Handle("GET /admin/accounts/{id}/ledger", a.auth(a.ledger))

	mux.Handle("PUT /admin/services/{slug}", a.auth(a.putService))
	mux.Handle("PATCH /admin/services/{slug}", a.auth(a.patchService))
	mux.Handle("GET /admin/services", a.auth(a.listServices))
	mux.Handle("PUT /admin/products/{pid}", a.auth(a.putProduct))
	mux.Handle("PATCH /admin/products/{pid}", a.auth(a.patchProduct))
	mux.Handle("GET /admin/products", a.auth(a.listProducts))
	mux.Handle("POST /admin/products/{pid}/stock", a.auth(a.addStock))

	mux.Handle("PUT /admin/upstreams/{name}", a.auth(a.putUpstream))
	mux.Handle("GET /admin/upstreams", a.auth(a.listUpstreams))
	mux.Handle("GET /admin/providers", a.auth(a.listProviders))

	mux.Handle("GET /admin/orders", a.auth(a.listOrders))
	mux.Handle("GET /admin/orders/stuck", a.auth(a.stuckOrders))
	mux.Handle("GET /admin/orders/{orderId}", a.auth(a.getOrder))
	mux.Handle("POST /admin/orders/{orderId}/complete", a.auth(a.completeOrder))
	mux.Handle("POST /admin/orders/{orderId}/cancel", a.auth(a.cancelOrder))
	mux.Handle("POST /admin/orders/{orderId}/retry", a.auth(a.retryOrder))

	mux.Handle("GET /admin/settings", a.auth(a.getSettings))
	mux.Handle("PATCH /admin/settings", a.auth(a.patchSettings))
}

// auth checks the admin bearer token, then runs h.
func (a *admin) auth(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		if !bearerOK(r, a.Token) {
			err = topupd.Errorf(topupd.EUnauthorized, "a valid admin bearer token is required")
		} else {
			// Named operators come with issue 3 of 6; the token is root's.
			whoOf(r.Context()).operator = "root"
			err = h(w, r)
			if r.Method != http.MethodGet {
				// Accounts, keys, credits and settings decide who is admitted.
				a.AuthCache.Invalidate()
			}
		}
		if err != nil {
			writeError(w, a.Logger, r, err)
		}
	})
}

// healthz reports readiness: the database and every other dependency
// answer; 503 when one does not.
func (a *admin) healthz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	checks := map[string]func(context.Context) error{"database": a.Store.Ping}
	for name, c := range a.Checks {
		checks[name] = c
	}
	out := map[string]any{"success": true}
	status := http.StatusOK
	for name, check := range checks {
		if err := check(ctx); err != nil {
			out[name], out["success"], status = err.Error(), false, http.StatusServiceUnavailable
		} else {
			out[name] = "ok"
		}
	}
	writeJSON(w, status, out)
	return nil
}

// audit checks every invariant of the books over the whole database; success
// is false, and the failing checks name examples, when one breaks.
func (a *admin) audit(w http.ResponseWriter, r *http.Request) error {
	au, err := a.Store.Audit(r.Context())
	if err != nil {
		return err
	}
	checks := make([]map[string]any, len(au.Checks))
	for i, c := range au.Checks {
		checks[i] = map[string]any{"name": c.Name, "ok": c.Violations == 0, "violations": c.Violations, "examples": c.Examples}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": au.OK(), "accounts": au.Accounts, "orders": au.Orders,
		"ledgerEntries": au.LedgerEntries, "checks": checks})
	return nil
}
