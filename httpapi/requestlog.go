package httpapi

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/internal/metrics"
	"github.com/topupd/topupd/internal/statuswriter"
)

// RequestIDHeader carries a request's id, on every answer of both APIs.
const RequestIDHeader = "X-Request-Id"

// maxRequestIDLen bounds a request id a client may choose.
const maxRequestIDLen = 64

// requestID keeps the request's own X-Request-Id when it is 1 to 64
// characters of A-Z a-z 0-9 . _ -, and makes one otherwise.
func requestID(r *http.Request) string {
	if id := r.Header.Get(RequestIDHeader); validRequestID(id) {
		return id
	}
	return topupd.NewID("req_")
}

// validRequestID reports whether a client's request id may be kept.
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// who is the caller of a request as its log line names it; the APIs' auth
// fills it in once it knows.
type who struct {
	accountID string
	operator  string
}

type whoKey struct{}

// whoOf returns the request's caller record (nil outside a request).
func whoOf(ctx context.Context) *who {
	w, _ := ctx.Value(whoKey{}).(*who)
	return w
}

// logRequest writes a request's one line: its id (from ctx), method, route
// (the pattern, never the raw path, which may hold ids), status, duration,
// caller and client IP. It holds no header, body or query: no key, token
// or code can reach the log through it.
func logRequest(log *slog.Logger, r *http.Request, route string, status int, start time.Time, caller *who, clientIP string) {
	attrs := []slog.Attr{
		slog.String("method", r.Method), slog.String("route", route), slog.Int("status", status),
		slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000), slog.String("clientIp", clientIP),
	}
	switch {
	case caller.accountID != "":
		attrs = append(attrs, slog.String("accountId", caller.accountID))
	case caller.operator != "":
		attrs = append(attrs, slog.String("operator", caller.operator))
	}
	log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
}

// routeOf is a mux pattern without its method: "/orders/{orderId}".
func routeOf(pattern string) string {
	if pattern == "" {
		return "(none)"
	}
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	return pattern
}

// observe serves each request with serve, giving it what every answer of
// topupd gets: an X-Request-Id, one log line under the route mux matches,
// its count in the metrics under api, and the log lines and metrics of the
// low-stock alerts its changes raise or clear; a panic is logged and
// answered by panicked.
func observe(api string, log *slog.Logger, m *metrics.Metrics, mux *http.ServeMux, trusted []netip.Prefix,
	panicked func(w *statuswriter.Writer), serve func(w http.ResponseWriter, r *http.Request, pattern string)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r)
		rw.Header().Set(RequestIDHeader, id)
		caller := &who{}
		// The request id, the caller and the low-stock notes (admin_batches.go)
		// in one copy of the request.
		ctx := context.WithValue(logctx.WithRequestID(r.Context(), id), whoKey{}, caller)
		ctx, logLowStock := withLowStockLog(ctx, log, m)
		r = r.WithContext(ctx)
		w := &statuswriter.Writer{ResponseWriter: rw}
		_, pattern := mux.Handler(r)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.ErrorContext(r.Context(), "panic", "method", r.Method, "route", routeOf(pattern), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				panicked(w)
			}
			status := cmp.Or(w.Status, http.StatusOK)
			logRequest(log, r, routeOf(pattern), status, start, caller, clientIPText(r, trusted))
			m.Request(api, routeOf(pattern), status, time.Since(start))
			logLowStock()
		}()
		serve(w, r, pattern)
	})
}

// Observe gives a handler that is neither API (the console) what every
// answer of topupd gets: an X-Request-Id, one log line a request under the
// route mux matches (with the operator NoteOperator names, and the client
// IP as ClientIP finds it behind trusted proxies), the request metrics
// under api, and the low-stock alerts its changes raise or clear, as the
// admin API logs them. A panic is logged and answered 500.
func Observe(api string, log *slog.Logger, m *metrics.Metrics, mux *http.ServeMux, h http.Handler, trusted []netip.Prefix) http.Handler {
	return observe(api, logctx.Logger(log), m, mux, trusted, func(w *statuswriter.Writer) {
		if w.Status == 0 {
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}, func(w http.ResponseWriter, r *http.Request, _ string) { h.ServeHTTP(w, r) })
}

// NoteOperator names, for the log line of the request ctx belongs to, the
// operator who made it.
func NoteOperator(ctx context.Context, name string) {
	if w := whoOf(ctx); w != nil {
		w.operator = name
	}
}
