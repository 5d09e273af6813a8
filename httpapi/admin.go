package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/internal/metrics"
	"github.com/topupd/topupd/service"
)

// AdminStore is what the admin API needs of the database itself: the
// operators' tokens, and its health and audit. Every operation goes
// through AdminDeps.Service.
type AdminStore interface {
	OperatorByToken(ctx context.Context, token topupd.KeyHash) (topupd.Operator, error)
	SeeOperator(ctx context.Context, name string, now time.Time) error
	Ping(ctx context.Context) error
	Audit(ctx context.Context, now time.Time) (topupd.Audit, error)
}

// AdminDeps are what the admin API needs.
type AdminDeps struct {
	// Store is the database.
	Store  AdminStore
	Logger *slog.Logger
	Now    func() time.Time
	// Token is the admin bearer token; empty refuses every call.
	Token string
	// Checks are the readiness checks of GET /admin/healthz besides the
	// database (for example "redis").
	Checks map[string]func(ctx context.Context) error
	// AuthCache, when set, is the reseller API's cache: every change made
	// here clears it.
	AuthCache *AuthCache
	// Metrics, when set, are served at GET /metrics and count this API's
	// requests and the orders operators settle.
	Metrics *metrics.Metrics
	// MetricsToken, when set, is a bearer token that may read /metrics
	// (besides an operator's).
	MetricsToken string
	// KeylessLimiter, when set, limits per client IP the calls that end
	// without a valid token (see keyless); the reseller API's may be shared.
	KeylessLimiter topupd.RateLimiter
	// Service runs the operations, with their clock, deadline, wake-up,
	// health, console address and bot username (service.Deps); give it
	// the AuthCache's Invalidate so that its changes clear the cache.
	Service *service.Service
	// TrustedProxies are the peers whose X-Forwarded-For is believed, as on
	// the reseller API: a reverse proxy in front of the console and the
	// admin API.
	TrustedProxies []netip.Prefix
}

// admin is the operator's API.
type admin struct {
	AdminDeps
	// keyless limits the calls without a valid token per client IP.
	keyless *keyless
}

// NewAdmin returns the admin API handler.
func NewAdmin(d AdminDeps) (http.Handler, error) {
	switch {
	case d.Store == nil:
		return nil, errors.New("httpapi.NewAdmin: a store is required")
	case d.Service == nil:
		return nil, errors.New("httpapi.NewAdmin: the service is required")
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = logctx.Logger(d.Logger)
	if d.Now == nil {
		d.Now = time.Now
	}
	a := &admin{AdminDeps: d, keyless: newKeyless(d.KeylessLimiter, d.Logger, d.Now)}
	mux := http.NewServeMux()
	a.routes(mux)
	return guard("admin", d.Logger, d.Metrics, 16<<20, mux, d.TrustedProxies), nil
}

// routes lists the whole admin API: each route with the permission its
// role must allow and, for a change, the name it has in the action log and
// the path value it is about.
func (a *admin) routes(mux router) {
	a.opsRoutes(mux)
	mux.Handle("GET /admin/healthz", a.read(a.healthz))
	mux.Handle("GET /admin/audit", a.read(a.audit))
	a.debugRoutes(mux)

	mux.Handle("POST /admin/accounts", a.call(service.OpCreateAccount, a.createAccount))
	mux.Handle("GET /admin/accounts", a.call(service.OpRead, a.listAccounts))
	mux.Handle("GET /admin/accounts/{id}/keys", a.call(service.OpRead, a.listKeys))
	mux.Handle("GET /admin/accounts/{id}", a.call(service.OpRead, a.getAccount))
	// PermRead: the body decides (PermAccounts for flags, PermPrices for the tier and limits).
	mux.Handle("PATCH /admin/accounts/{id}", a.call(service.OpUpdateAccount, a.patchAccount))
	mux.Handle("POST /admin/accounts/{id}/keys", a.call(service.OpCreateKey, a.createKey))
	mux.Handle("DELETE /admin/keys/{keyId}", a.call(service.OpRevokeKey, a.revokeKey))
	mux.Handle("POST /admin/accounts/{id}/keys/{keyId}/rotate", a.call(service.OpRotateKey, a.rotateKey))
	mux.Handle("POST /admin/accounts/{id}/chat-links", a.call(service.OpChatLink, a.createChatLink))
	mux.Handle("GET /admin/accounts/{id}/chats", a.call(service.OpRead, a.listChats))
	mux.Handle("DELETE /admin/accounts/{id}/chats/{chatId}", a.call(service.OpUnlinkChat, a.unlinkChat))
	a.webhookRoutes(mux)
	mux.Handle("POST /admin/accounts/{id}/credits", a.call(service.OpCredit, a.credit))
	mux.Handle("GET /admin/accounts/{id}/prices", a.call(service.OpRead, a.accountPrices))
	mux.Handle("PUT /admin/accounts/{id}/prices/{pid}", a.call(service.OpSetAccountPrice, a.setAccountPrice))
	mux.Handle("DELETE /admin/accounts/{id}/prices/{pid}", a.call(service.OpDeleteAccountPrice, a.deleteAccountPrice))
	mux.Handle("GET /admin/tiers", a.call(service.OpRead, a.listTiers))
	mux.Handle("PUT /admin/tiers/{name}", a.call(service.OpPutTier, a.putTier))
	a.pricingRoutes(mux)
	a.disputeRoutes(mux)
	a.priceChangeRoutes(mux)
	mux.Handle("GET /admin/accounts/{id}/ledger", a.call(service.OpRead, a.ledger))
	mux.Handle("GET /admin/accounts/{id}/statement", a.call(service.OpReadReports, a.statement))
	mux.Handle("GET /admin/reports/sales", a.call(service.OpReadReports, a.salesReport))
	mux.Handle("GET /admin/reports/durations", a.call(service.OpReadReports, a.durationsReport))

	mux.Handle("PUT /admin/services/{slug}", a.call(service.OpPutLine, a.putService))
	mux.Handle("PATCH /admin/services/{slug}", a.call(service.OpUpdateLine, a.patchService))
	mux.Handle("GET /admin/services", a.read(a.listServices))
	mux.Handle("PUT /admin/products/{pid}", a.call(service.OpPutPack, a.putProduct))
	mux.Handle("PATCH /admin/products/{pid}", a.call(service.OpUpdatePack, a.patchProduct))
	mux.Handle("GET /admin/products", a.read(a.listProducts))
	mux.Handle("POST /admin/products/{pid}/stock", a.call(service.OpAddStock, a.addStock))
	mux.Handle("GET /admin/products/{pid}/batches", a.read(a.listBatches))
	mux.Handle("POST /admin/batches/{id}/void", a.call(service.OpVoidBatch, a.voidBatch))
	mux.Handle("GET /admin/batches/{id}/codes", a.call(service.OpExportBatch, a.exportBatch))

	mux.Handle("PUT /admin/upstreams/{name}", a.call(service.OpPutUpstream, a.putUpstream))
	mux.Handle("DELETE /admin/upstreams/{name}", a.call(service.OpDeleteUpstream, a.deleteUpstream))
	mux.Handle("PATCH /admin/upstreams/{name}", a.call(service.OpUpdateUpstream, a.patchUpstream))
	mux.Handle("POST /admin/upstreams/{name}/check", a.call(service.OpCheckUpstream, a.checkUpstream))
	mux.Handle("POST /admin/upstreams/{name}/deposits", a.call(service.OpAddUpstreamDeposit, a.addUpstreamDeposit))
	mux.Handle("GET /admin/upstreams/{name}/deposits", a.read(a.listUpstreamDeposits))
	mux.Handle("GET /admin/upstreams", a.read(a.listUpstreams))
	mux.Handle("GET /admin/events", a.read(a.listOperatorEvents))
	mux.Handle("POST /admin/upstreams/{name}/reconciliations", a.call(service.OpRunReconciliation, a.runReconciliation))
	mux.Handle("GET /admin/reconciliations", a.read(a.listReconciliations))
	mux.Handle("GET /admin/reconciliations/{id}", a.read(a.getReconciliation))
	mux.Handle("POST /admin/reconciliations/{id}/close", a.call(service.OpCloseReconciliation, a.closeReconciliation))
	mux.Handle("POST /admin/reconciliations/{id}/mismatches/{mid}/resolve", a.call(service.OpResolveMismatch, a.resolveMismatch))
	mux.Handle("GET /admin/deposits", a.read(a.adminDeposits))
	mux.Handle("GET /admin/deposits/{id}", a.read(a.adminDeposit))
	mux.Handle("POST /admin/deposits/{id}/confirm", a.call(service.OpConfirmDeposit, a.confirmDeposit))
	mux.Handle("POST /admin/deposits/{id}/reject", a.call(service.OpRejectDeposit, a.rejectDeposit))
	mux.Handle("POST /admin/deposits/import", a.call(service.OpImportDeposits, a.importDeposits))
	mux.Handle("GET /admin/providers", a.read(a.listProviders))

	mux.Handle("GET /admin/orders", a.call(service.OpRead, a.listOrders))
	mux.Handle("GET /admin/orders/stuck", a.call(service.OpRead, a.stuckOrders))
	mux.Handle("GET /admin/orders/{orderId}", a.call(service.OpRead, a.getOrder))
	mux.Handle("GET /admin/orders/{orderId}/codes", a.call(service.OpOrderCodes, a.orderCodes))
	mux.Handle("POST /admin/orders/{orderId}/complete", a.call(service.OpCompleteOrder, a.completeOrder))
	mux.Handle("POST /admin/orders/{orderId}/cancel", a.call(service.OpCancelOrder, a.cancelOrder))
	mux.Handle("POST /admin/orders/{orderId}/retry", a.call(service.OpRetryOrder, a.retryOrder))

	mux.Handle("GET /admin/settings", a.call(service.OpRead, a.getSettings))
	mux.Handle("PATCH /admin/settings", a.call(service.OpUpdateSettings, a.patchSettings))

	mux.Handle("POST /admin/operators", a.call(service.OpCreateOperator, a.createOperator))
	mux.Handle("GET /admin/operators", a.call(service.OpRead, a.listOperators))
	mux.Handle("PATCH /admin/operators/{name}", a.call(service.OpUpdateOperator, a.patchOperator))
	mux.Handle("POST /admin/operators/{name}/tokens", a.call(service.OpCreateOperatorToken, a.createOperatorToken))
	mux.Handle("POST /admin/operators/{name}/setup-link", a.call(service.OpCreateSetupLink, a.createSetupLink))
	mux.Handle("POST /admin/operators/{name}/chat-links", a.call(service.OpCreateOperatorChatLink, a.createOperatorChatLink))
	mux.Handle("GET /admin/actions", a.call(service.OpRead, a.listActions))
}

// read lets any operator run h.
// operatorKey holds the calling operator in a request's context.
type operatorKey struct{}

// operatorOf is the operator an admin request is made by.
func operatorOf(ctx context.Context) topupd.Operator {
	op, _ := ctx.Value(operatorKey{}).(topupd.Operator)
	return op
}

func (a *admin) read(h handlerFunc) http.Handler { return a.auth(topupd.PermRead, h) }

// call runs h, which calls op of the service layer, for an operator whose
// role allows op (as the service says, before the body is read); the
// service records the change itself.
func (a *admin) call(op service.Op, h handlerFunc) http.Handler {
	return a.auth("", func(w http.ResponseWriter, r *http.Request) error {
		if err := service.Allowed(a.actor(r), op); err != nil {
			return err
		}
		return h(w, r)
	})
}

// actor is who makes a request, as the service layer takes it.
func (a *admin) actor(r *http.Request) service.Actor {
	op := operatorOf(r.Context())
	return service.Actor{Operator: op.Name, Role: op.Role, IP: clientIPText(r, a.TrustedProxies), RequestID: logctx.RequestID(r.Context())}
}

// auth finds the operator behind the bearer token (401 when none, counted
// against the client IP's limit on calls without a valid token: 429 past
// it, see keyless), checks that their role allows perm (403
// ROLE_FORBIDDEN; "" leaves it to the service layer's operation) and that
// the path and query are clean text (adminText, 400), then runs h. Every
// change is the service layer's, which writes its action log entry and
// makes every node forget what it cached of accounts, keys and settings
// before the answer goes out.
func (a *admin) auth(perm topupd.Permission, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := func() error {
			op, err := a.operator(r)
			if err != nil && topupd.CodeOf(err) == topupd.EUnauthorized {
				return a.keyless.refuse(r.Context(), w, "admin:"+clientIPText(r, a.TrustedProxies), err)
			}
			if err != nil {
				return err
			}
			if perm != "" && !op.Role.May(perm) {
				return topupd.Errorf(topupd.ERoleForbidden, "the %s role may not do this", op.Role)
			}
			if err := adminText(r); err != nil {
				return err
			}
			return h(w, r.WithContext(context.WithValue(r.Context(), operatorKey{}, op)))
		}()
		if err != nil {
			writeError(w, a.Logger, r, err)
		}
	})
}

// operator is who the request's bearer token belongs to: root for
// TOPUPD_ADMIN_TOKEN, else the named operator whose token it is, unless
// disabled. Anything else is 401.
func (a *admin) operator(r *http.Request) (topupd.Operator, error) {
	unauthorized := topupd.Errorf(topupd.EUnauthorized, "a valid admin bearer token is required")
	if bearerOK(r, a.Token) {
		whoOf(r.Context()).operator = topupd.RootOperator
		return topupd.Operator{Name: topupd.RootOperator, Role: topupd.RoleOwner}, nil
	}
	hash, ok := topupd.HashOperatorToken(bearerOf(r))
	if !ok {
		return topupd.Operator{}, unauthorized
	}
	op, err := a.Store.OperatorByToken(r.Context(), hash)
	if topupd.CodeOf(err) == topupd.ENotFound {
		return op, unauthorized
	} else if err != nil {
		return op, err
	}
	if op.Disabled {
		return op, topupd.Errorf(topupd.EUnauthorized, "operator %s is disabled", op.Name)
	}
	whoOf(r.Context()).operator = op.Name
	if err := a.Store.SeeOperator(r.Context(), op.Name, a.Now()); err != nil {
		a.Logger.WarnContext(r.Context(), "recording an operator's call", "operator", op.Name, "err", err)
	}
	return op, nil
}

// healthAnswer is the readiness of the database and every other
// dependency: "ok", or why it failed, under its name.
type healthAnswer struct {
	Success bool
	Checks  map[string]string
}

// MarshalJSON spells the answer as one object: success beside each check,
// by name.
func (h healthAnswer) MarshalJSON() ([]byte, error) {
	b := []byte(`{"success":` + strconv.FormatBool(h.Success))
	for _, name := range slices.Sorted(maps.Keys(h.Checks)) {
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(h.Checks[name])
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, ','), k...), ':'), v...)
	}
	return append(b, '}'), nil
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
	out := healthAnswer{Success: true, Checks: map[string]string{}}
	status := http.StatusOK
	for name, check := range checks {
		if err := check(ctx); err != nil {
			out.Checks[name], out.Success, status = err.Error(), false, http.StatusServiceUnavailable
		} else {
			out.Checks[name] = "ok"
		}
	}
	writeJSON(w, status, out)
	return nil
}

// audit checks every invariant of the books over the whole database; success
// is false, and the failing checks name examples, when one breaks.
func (a *admin) audit(w http.ResponseWriter, r *http.Request) error {
	au, err := a.Store.Audit(r.Context(), a.Now())
	if err != nil {
		return err
	}
	checks := make([]client.AuditCheck, len(au.Checks))
	for i, c := range au.Checks {
		checks[i] = client.AuditCheck{Name: c.Name, OK: c.Violations == 0, Violations: c.Violations, Examples: c.Examples}
	}
	writeJSON(w, http.StatusOK, client.Audit{Success: au.OK(), Accounts: au.Accounts, Orders: au.Orders,
		LedgerEntries: au.LedgerEntries, Checks: checks})
	return nil
}
