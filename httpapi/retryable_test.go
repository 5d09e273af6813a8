package httpapi_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestRetryable: every failure of the reseller API, in either form, says
// whether to retry: true for 429, 500, 502, 503 and 504, false otherwise.
// One row per path to a failure.
func TestRetryable(t *testing.T) {
	t.Parallel()
	var limiter atomic.Int32 // 0 allow, 1 fail, 2 refuse
	fs := &faultyStore{}
	h := topupdtest.New(t, topupdtest.WithMaxBody(1024),
		topupdtest.WithStore(func(s topupd.Store) topupd.Store { fs.Store = s; return fs }),
		topupdtest.WithLimiter(topupd.RateLimiterFunc(func(ctx context.Context, key string) (topupd.RateDecision, error) {
			switch limiter.Load() {
			case 1:
				return topupd.RateDecision{}, errors.New("redis down")
			case 2:
				return topupd.RateDecision{Allowed: false, RetryAfter: time.Second}, nil
			}
			return topupd.RateDecision{Allowed: true}, nil
		})))
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	poor := h.NewAccount("0.1", nil)
	other := h.NewAccount("100", nil)
	banned := h.NewAccount("", map[string]any{"banned": true})
	taken := h.Trx()
	h.Place(other, order{"pid": topupdtest.PIDPubg, "trxid": taken, "userId": "5123"})
	reused := h.Trx()
	h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": reused, "userId": "5123"})

	pubg := func() order { return order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"} }
	type call struct {
		method, path string
		hdr          topupdtest.Headers
		body         any
	}
	key := func(k string) topupdtest.Headers { return topupdtest.Headers{"X-API-Key": k} }
	rows := []struct {
		name     string
		setup    func()
		call     call
		status   int
		code     string
		rejected bool
	}{
		{"missing key", nil, call{"GET", "/balance", nil, nil}, 401, "MISSING_API_KEY", false},
		{"malformed key", nil, call{"GET", "/balance", key("nope"), nil}, 401, "INVALID_API_KEY_FORMAT", false},
		{"unknown key", nil, call{"GET", "/balance", key("tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), nil}, 401, "INVALID_API_KEY", false},
		{"banned account", nil, call{"GET", "/balance", key(banned.Key), nil}, 403, "ACCOUNT_BANNED", false},
		{"no such route", nil, call{"GET", "/nowhere", key(a.Key), nil}, 404, "NOT_FOUND", false},
		{"method not allowed", nil, call{"DELETE", "/balance", key(a.Key), nil}, 405, "METHOD_NOT_ALLOWED", false},
		{"body too large", nil, call{"POST", "/orders", key(a.Key), order{"pid": strings.Repeat("p", 2048)}}, 413, "BODY_TOO_LARGE", false},
		{"header too large", nil, call{"GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key, "X-Big": strings.Repeat("h", 70<<10)}, nil},
			431, "HEADER_TOO_LARGE", false},
		{"invalid JSON", nil, call{"POST", "/orders", key(a.Key), topupdtest.RawBody(`{`)}, 401, "", false},
		{"invalid body", nil, call{"POST", "/orders", key(a.Key), topupdtest.RawBody(`[]`)}, 400, "INVALID_BODY", false},
		{"invalid request", nil, call{"POST", "/orders", key(a.Key), order{"pid": topupdtest.PIDPubg}}, 400, "INVALID_REQUEST", false},
		{"unknown pid", nil, call{"POST", "/orders", key(a.Key), order{"pid": "nope", "trxid": "x"}}, 400, "UNKNOWN_PID", false},
		{"bad history parameter", nil, call{"GET", "/history?limit=x", key(a.Key), nil}, 400, "INVALID_REQUEST", false},
		{"rejected: insufficient balance", nil, call{"POST", "/orders", key(poor.Key), pubg()}, 400, "INSUFFICIENT_BALANCE", true},
		{"another account's trxid", nil, call{"POST", "/orders", key(a.Key), order{"pid": topupdtest.PIDPubg, "trxid": taken, "userId": "5123"}},
			403, "FORBIDDEN", false},
		{"order not found", nil, call{"GET", "/orders/ord_none", key(a.Key), nil}, 404, "ORDER_NOT_FOUND", false},
		{"idempotency key reused", nil, call{"POST", "/orders", key(a.Key), order{"pid": topupdtest.PIDPubg, "trxid": reused, "userId": "9"}},
			422, "IDEMPOTENCY_KEY_REUSED", false},
		{"rate limit", func() { limiter.Store(2) }, call{"GET", "/balance", key(a.Key), nil}, 429, "RATE_LIMIT", false},
		{"rate limiter down", func() { limiter.Store(1) }, call{"GET", "/balance", key(a.Key), nil}, 503, "RATE_LIMIT_UNAVAILABLE", false},
		{"maintenance", func() { h.Settings(map[string]any{"maintenance": true}) }, call{"POST", "/orders", key(a.Key), pubg()},
			503, "MAINTENANCE", false},
		{"orders disabled", func() { h.Settings(map[string]any{"ordersDisabled": true}) }, call{"POST", "/orders", key(a.Key), pubg()},
			503, "API_ORDER_DISABLED", false},
		{"internal error", func() { fs.fault.Store(func() error { return errors.New("disk on fire") }) }, call{"GET", "/balance", key(a.Key), nil},
			500, "INTERNAL", false},
		{"panic", func() { fs.fault.Store(func() error { panic("boom") }) }, call{"GET", "/balance", key(a.Key), nil}, 500, "INTERNAL", false},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			limiter.Store(0)
			fs.fault.Store(func() error { return nil })
			h.Settings(map[string]any{"maintenance": false, "ordersDisabled": false})
			if tc.setup != nil {
				tc.setup()
			}
			r := h.DoH(tc.call.method, tc.call.path, tc.call.hdr, tc.call.body)
			if r.Status != tc.status || r.Str("code") != tc.code || r.Body["success"] != false {
				t.Fatalf("got %s, want a %d %s failure", r, tc.status, tc.code)
			}
			if got := r.Body["orderCreated"] == false; got != tc.rejected {
				t.Errorf("in the rejected form: %v, want %v: %s", got, tc.rejected, r)
			}
			wantRetryable(t, r)
		})
	}
}
