package httpapi_test

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// badKeyLimit is the spec's limit on calls without a valid key per client
// IP in a rolling 60 s.
const badKeyLimit = 120

// badCalls are reseller calls from one client IP without a valid key:
// none, malformed, unknown (well-formed) and revoked, with the 401 each
// gets while the IP is within its limit.
func badCalls(h *topupdtest.T, revoked string) []struct {
	hdr  topupdtest.Headers
	code string
} {
	unknown, _ := topupd.NewAPIKey()
	return []struct {
		hdr  topupdtest.Headers
		code string
	}{
		{topupdtest.Headers{}, "MISSING_API_KEY"},
		{topupdtest.Headers{"X-API-Key": "not-a-key"}, "INVALID_API_KEY_FORMAT"},
		{topupdtest.Headers{"Authorization": "Bearer " + unknown}, "INVALID_API_KEY"},
		{topupdtest.Headers{"X-API-Key": revoked}, "INVALID_API_KEY"},
	}
}

// from adds the X-Forwarded-For of a client IP (the harness's peer is a
// trusted proxy) to headers.
func from(ip string, hdr topupdtest.Headers) topupdtest.Headers {
	out := topupdtest.Headers{"X-Forwarded-For": ip}
	for k, v := range hdr {
		out[k] = v
	}
	return out
}

// checkBadKeyLimit sends 120 calls without a valid key from one IP (each
// 401), then shows that the next ones from it are 429 RATE_LIMIT with
// Retry-After, while a valid key from the same IP is served and another
// IP still gets its 401. It returns the IP it limited.
func checkBadKeyLimit(t *testing.T, h *topupdtest.T) (ip string, valid topupdtest.Account) {
	t.Helper()
	h.LoadCatalog()
	valid = h.NewAccount("10", nil)
	gone := h.NewAccount("", nil)
	h.AdminOK(http.StatusOK, "DELETE", "/admin/keys/"+gone.KeyID, nil)
	ip = "203.0.113.7"
	calls := badCalls(h, gone.Key)
	for i := range badKeyLimit {
		c := calls[i%len(calls)]
		if r := h.DoH("GET", "/balance", from(ip, c.hdr), nil); r.Status != http.StatusUnauthorized || r.Str("code") != c.code {
			t.Fatalf("bad call %d from %s: %v, want 401 %s", i+1, ip, r, c.code)
		}
	}
	for _, c := range calls {
		r := h.DoH("GET", "/orders/ord_x", from(ip, c.hdr), nil)
		wantFailure(t, r, http.StatusTooManyRequests, "RATE_LIMIT", "TOO MANY REQUESTS")
		if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
			t.Errorf("a limited call (%s) has Retry-After %q, want 1 to 60 seconds", c.code, r.Header.Get("Retry-After"))
		}
	}
	if r := h.DoH("GET", "/balance", from(ip, topupdtest.Headers{"X-API-Key": valid.Key}), nil); r.Status != http.StatusOK {
		t.Errorf("a valid key from the limited IP: %v, want 200", r)
	}
	for _, c := range calls {
		if r := h.DoH("GET", "/balance", from("198.51.100.9", c.hdr), nil); r.Status != http.StatusUnauthorized || r.Str("code") != c.code {
			t.Errorf("another IP: %v, want 401 %s", r, c.code)
		}
	}
	return ip, valid
}

// TestInvalidKeyLimit: calls without a valid key are limited per client IP
// to 120 in a rolling 60 s (in memory); past it they are 429 RATE_LIMIT
// with Retry-After instead of 401, until the count falls back. Calls with a
// valid key from that IP, and other IPs, are unaffected. The admin API
// limits wrong tokens per IP the same way.
func TestInvalidKeyLimit(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock() // each store's own: the two run at once
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithTrustedProxies("127.0.0.1/32"),
			topupdtest.WithInvalidKeyRate(badKeyLimit))...)
		ip, _ := checkBadKeyLimit(t, h)
		clock.Advance(61 * time.Second)
		if r := h.DoH("GET", "/balance", from(ip, topupdtest.Headers{"X-API-Key": "not-a-key"}), nil); r.Status != http.StatusUnauthorized {
			t.Errorf("a minute later: %v, want 401 again", r)
		}

		// The admin API: wrong tokens from one address (its peer: no proxy is trusted there).
		for i := range badKeyLimit {
			tok := []string{"", "wrong", "tpo_" + fmt.Sprint(i)}[i%3]
			if r := h.AdminAs(tok, "GET", "/admin/settings", nil); r.Status != http.StatusUnauthorized {
				t.Fatalf("wrong admin token %d: %v, want 401", i+1, r)
			}
		}
		r := h.AdminAs("wrong", "GET", "/admin/settings", nil)
		wantFailure(t, r, http.StatusTooManyRequests, "RATE_LIMIT", "TOO MANY REQUESTS")
		if r.Header.Get("Retry-After") == "" {
			t.Errorf("a limited admin call has no Retry-After")
		}
		h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil) // the right token still works
	})
}

// TestInvalidKeyLimitRedis: the same limit, shared through Redis.
func TestInvalidKeyLimitRedis(t *testing.T) {
	t.Parallel()
	url := os.Getenv("TOPUPD_TEST_REDIS")
	if url == "" {
		t.Skip("TOPUPD_TEST_REDIS is not set: no Redis to test against")
	}
	h := topupdtest.New(t, topupdtest.WithRedis(url), topupdtest.WithTrustedProxies("127.0.0.1/32"), topupdtest.WithInvalidKeyRate(badKeyLimit))
	checkBadKeyLimit(t, h)
}
