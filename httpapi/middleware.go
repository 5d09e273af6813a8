package httpapi

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/metrics"
	"github.com/topupd/topupd/internal/statuswriter"
	"github.com/topupd/topupd/service"
)

// MaxHeaderBytes is the documented limit on a request's line and header
// fields together: a request over it is answered 431 HEADER_TOO_LARGE.
const MaxHeaderBytes = 64 << 10

// ServerMaxHeaderBytes is the http.Server's own MaxHeaderBytes, well above
// MaxHeaderBytes so that guard, not net/http, answers the request over the
// documented limit; only past this one does net/http answer 431 in plain text.
const ServerMaxHeaderBytes = 1 << 20

// headerBytes counts a request's line and header fields as HTTP/1.1 carries
// them: "name: value\r\n" for each field, Host included, and the blank line.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + len(r.Host) + len("  \r\nHost: \r\n\r\n")
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + len(": \r\n")
		}
	}
	return n
}

// guard wraps a mux: every request gets an id (X-Request-Id), one log
// line and its count in the metrics; headers and bodies are limited; panics become a 500 JSON answer and
// a log line; the mux's own 404 and 405 answers become JSON. The client IP
// of the log line is the peer's, or, behind a trusted proxy, the one it
// forwards.
func guard(api string, log *slog.Logger, m *metrics.Metrics, maxBody int64, mux *http.ServeMux, trusted []netip.Prefix) http.Handler {
	return observe(api, log, m, mux, trusted, func(w *statuswriter.Writer) {
		writeJSON(w, http.StatusInternalServerError, internalFailure)
	}, func(w http.ResponseWriter, r *http.Request, pattern string) {
		answer(log, maxBody, mux, w, r, pattern)
	})
}

// answer answers one request for guard.
func answer(log *slog.Logger, maxBody int64, mux *http.ServeMux, w http.ResponseWriter, r *http.Request, pattern string) {
	if headerBytes(r) > MaxHeaderBytes {
		writeError(w, log, r, topupd.Fail(topupd.EHeaderTooLarge))
		return
	}
	if r.ContentLength > maxBody {
		writeError(w, log, r, topupd.Fail(topupd.EBodyTooLarge))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if pattern == "" {
		// No route: the mux answers 404, or 405 with an Allow header.
		h, _ := mux.Handler(r)
		rec := &statusOnly{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if allow := rec.header.Get("Allow"); allow != "" {
			w.Header().Set("Allow", allow)
		}
		if rec.status == http.StatusMethodNotAllowed {
			writeError(w, log, r, topupd.Fail(topupd.EMethodNotAllowed))
			return
		}
		writeError(w, log, r, topupd.Fail(topupd.ENotFound))
		return
	}
	mux.ServeHTTP(w, r)
}

// statusOnly records what the mux's fallback handler would answer.
type statusOnly struct {
	header http.Header
	status int
}

func (s *statusOnly) Header() http.Header         { return s.header }
func (s *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
func (s *statusOnly) WriteHeader(code int)        { s.status = code }

// caller is what the auth middleware learned about a request.
type caller struct {
	account  topupd.Account
	ip       netip.Addr
	settings topupd.Settings
	// order, on POST /orders, is what its limit step read and decided.
	order *orderCall
}

type callerKey struct{}

// caller is the request's caller as the service holds it to its books.
func (c *caller) caller() service.Caller { return service.Caller{Account: c.account} }

// callerVia is caller with the loop guard's headers of r (an order, a
// player check).
func (c *caller) callerVia(r *http.Request) service.Caller {
	out := c.caller()
	out.Via = service.Via{Instances: r.Header.Get(topupd.HeaderInstance), Hops: r.Header.Get(topupd.HeaderHops)}
	return out
}

// callerOf returns the authenticated caller of a request.
func callerOf(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	return c
}

// apiKeyOf finds the API key in X-API-Key or Authorization: Bearer.
func apiKeyOf(r *http.Request) (string, bool) {
	if k := r.Header.Get("X-API-Key"); k != "" {
		return strings.TrimSpace(k), true
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, rest, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", true // a key in the wrong form
	}
	return strings.TrimSpace(rest), true
}

// handlerFunc is a handler that may fail; the failure is written for it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// auth authenticates the key (a call without a valid key is counted
// against its client IP's limit, see keyless), checks the account flags in
// the contract's order, counts the call against the account's rate limit,
// refuses a path
// or query that is not clean text (resellerText), then runs h.
func (a *reseller) auth(h handlerFunc) http.Handler { return a.authWith(a.limit, h) }

// authWith is auth with limit as the step that counts the call: a.limit,
// or for POST /orders a.limitOrder, which also takes its in-flight hints.
func (a *reseller) authWith(limit func(http.ResponseWriter, *http.Request, *caller) error, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := a.authenticate(r)
		if keylessRefusal(err) {
			err = a.keyless.refuse(r.Context(), w, "reseller:"+clientIPText(r, a.TrustedProxies), err)
		}
		if err == nil {
			err = limit(w, r, c)
		}
		if err == nil {
			err = resellerText(r)
		}
		if c != nil {
			whoOf(r.Context()).accountID = c.account.ID
		}
		if err == nil {
			r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
			err = h(w, r)
		}
		if err != nil {
			writeError(w, a.Logger, r, err)
		}
	})
}

func (a *reseller) authenticate(r *http.Request) (*caller, error) {
	key, ok := apiKeyOf(r)
	if !ok {
		return nil, topupd.Fail(topupd.EMissingKey)
	}
	hash, err := topupd.ParseAPIKey(key)
	if err != nil {
		return nil, err
	}
	acct, err := a.AuthCache.account(r.Context(), hash, func(ctx context.Context, h topupd.KeyHash) (topupd.Account, error) {
		return a.Store.AccountByKey(ctx, h, a.Now())
	})
	if err != nil {
		return nil, err
	}
	a.keyUsed(r, hash)
	st, err := a.AuthCache.currentSettings(r.Context(), a.Store.Settings)
	if err != nil {
		return nil, err
	}
	c := &caller{account: acct, ip: ClientIP(r, a.TrustedProxies), settings: st}
	eligible, err := a.eligible(r.Context(), &acct, st)
	if err != nil {
		return nil, err
	}
	if err := acct.Admit(topupd.Admission{Now: a.Now(), ClientIP: c.ip, Eligible: eligible}); err != nil {
		return nil, err
	}
	return c, nil
}

// keyUsed records, once a minute per node, that a live key was used.
func (a *reseller) keyUsed(r *http.Request, hash topupd.KeyHash) {
	minute := a.Now().Truncate(time.Minute)
	if last, ok := a.used.Load(hash); ok && !last.(time.Time).Before(minute) {
		return
	}
	if err := a.Store.UseKey(r.Context(), hash, minute); err != nil {
		a.Logger.WarnContext(r.Context(), "recording a key's use", "err", err)
		return
	}
	a.used.Store(hash, minute)
}

// eligible applies the settings' eligibility rule to the account.
func (a *reseller) eligible(ctx context.Context, acct *topupd.Account, st topupd.Settings) (bool, error) {
	if st.EligibilityMinTopup <= 0 {
		return true, nil
	}
	credited, err := a.Store.CreditedTotal(ctx, acct.ID)
	if err != nil {
		return false, err
	}
	return credited >= st.EligibilityMinTopup, nil
}

// limit counts the call against the rolling windows of the account, or of
// its sandbox for a sandbox key.
func (a *reseller) limit(w http.ResponseWriter, r *http.Request, c *caller) error {
	d, err := a.Limiter.Allow(r.Context(), c.account.Books()) // a sandbox key's calls are counted apart
	return a.limited(w, r, d, err)
}

// limited turns a rate limit's answer into the call's refusal, if any.
func (a *reseller) limited(w http.ResponseWriter, r *http.Request, d topupd.RateDecision, err error) error {
	if err != nil {
		a.Logger.ErrorContext(r.Context(), "rate limiter unavailable", "err", err)
		return topupd.Fail(topupd.ERateLimitDown)
	}
	if !d.Allowed {
		w.Header().Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
		return topupd.Fail(topupd.ERateLimit)
	}
	return nil
}

// bearerOf returns the token of an "Authorization: Bearer" header, or "".
func bearerOf(r *http.Request) string {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(got)
}

// clientIPText is the request's client IP as text ("" when unknown).
func clientIPText(r *http.Request, trusted []netip.Prefix) string {
	if a := ClientIP(r, trusted); a.IsValid() {
		return a.String()
	}
	return ""
}

// bearerOK compares an Authorization header with the admin token in constant time.
func bearerOK(r *http.Request, token string) bool {
	if token == "" {
		return false
	}
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
