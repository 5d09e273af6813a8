package httpapi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// adminView is an account's state read through the admin API only, so that
// reading it does not count against the account's rate limit.
type adminView struct {
	Balance string
	Ledger  int
	Orders  int
}

func adminViewOf(h *topupdtest.T, a topupdtest.Account) adminView {
	h.TB.Helper()
	acct := h.AdminOK(200, "GET", "/admin/accounts/"+a.ID, nil)
	orders := 0
	for _, o := range h.AdminOK(200, "GET", "/admin/orders?limit=500", nil).Body["orders"].([]any) {
		if o.(map[string]any)["accountId"] == a.ID {
			orders++
		}
	}
	return adminView{acct.Num("balanceUsd"), len(h.Ledger(a)), orders}
}

// limited is the answer to a call over the limit.
type limited struct {
	Status     int
	Code       string
	Error      string
	Success    any
	RetryAfter string
}

func limitedOf(r topupdtest.Reply) limited {
	return limited{r.Status, r.Str("code"), r.Str("error"), r.Body["success"], r.Header.Get("Retry-After")}
}

func wantLimited(retryAfter string) limited {
	return limited{429, "RATE_LIMIT", "TOO MANY REQUESTS", false, retryAfter}
}

// mixedCall makes the i-th call of a mix of every route, POST /orders included.
func mixedCall(h *topupdtest.T, a topupdtest.Account, i int) topupdtest.Reply {
	h.TB.Helper()
	switch i % 8 {
	case 0:
		return h.Do("GET", "/services", a.Key, nil)
	case 1:
		return h.Do("GET", "/products", a.Key, nil)
	case 2:
		return h.Do("GET", "/catalog", a.Key, nil)
	case 3:
		return h.Do("GET", "/my-ip", a.Key, nil)
	case 4:
		return h.Do("GET", "/balance", a.Key, nil)
	case 5:
		return h.Do("GET", "/history?limit=2", a.Key, nil)
	case 6:
		return h.Do("GET", "/orders/ord_unknown", a.Key, nil) // 404 still counts
	default:
		return h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
	}
}

// mustPass fails unless the call was let through (any answer but 429).
func mustPass(t *testing.T, r topupdtest.Reply, what string) {
	t.Helper()
	if r.Status == 429 {
		t.Fatalf("%s: refused: %v", what, r)
	}
	if r.Status != 200 && r.Status != 404 {
		t.Fatalf("%s: %v", what, r)
	}
}

// TestRateLimitPerSecond: 40 calls at one instant pass, the 41st is 429
// RATE_LIMIT with Retry-After; exactly 1 s later calls pass again; another
// account is unaffected; a refused call does nothing.
func TestRateLimitPerSecond(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock), topupdtest.WithRates(40, 200))
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	b := h.NewAccount("100", nil)

	for i := 0; i < 40; i++ {
		mustPass(t, mixedCall(h, a, i), fmt.Sprintf("call %d at t0", i+1))
	}
	before := adminViewOf(h, a)
	trx := h.Trx()
	refused := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"})
	if diff := cmp.Diff(wantLimited("1"), limitedOf(refused)); diff != "" {
		t.Errorf("41st call, a POST /orders (-want +got):\n%s", diff)
	}
	if refused.Has("orderId") || refused.Has("orderCreated") {
		t.Errorf("refused call carries an order: %s", refused.Raw)
	}
	for i, path := range []string{"/balance", "/products", "/my-ip", "/history", "/orders/ord_x", "/services"} {
		if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", path, a.Key, nil))); diff != "" {
			t.Errorf("call %d, GET %s (-want +got):\n%s", 42+i, path, diff)
		}
	}
	if diff := cmp.Diff(before, adminViewOf(h, a)); diff != "" {
		t.Errorf("refused calls moved something (-before +after):\n%s", diff)
	}

	// Another account has its own windows.
	for i := 0; i < 40; i++ {
		mustPass(t, mixedCall(h, b, i), fmt.Sprintf("account b call %d", i+1))
	}
	if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/balance", b.Key, nil))); diff != "" {
		t.Errorf("account b 41st call (-want +got):\n%s", diff)
	}

	// 1 ms short of a second: still refused.
	clock.Advance(999 * time.Millisecond)
	if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/balance", a.Key, nil))); diff != "" {
		t.Errorf("at t0+999ms (-want +got):\n%s", diff)
	}
	// Exactly a second later the window is empty again: 40 more pass.
	clock.Advance(time.Millisecond)
	r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"})
	if r.Status != 200 || r.Body["idempotentReplay"] != false {
		t.Errorf("the refused trxid placed no order, so it is fresh now: %v", r)
	}
	for i := 1; i < 40; i++ {
		mustPass(t, mixedCall(h, a, i), fmt.Sprintf("call %d at t0+1s", i+1))
	}
	if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/my-ip", a.Key, nil))); diff != "" {
		t.Errorf("41st call at t0+1s (-want +got):\n%s", diff)
	}
	// Half a second later the same 40 still fill the window.
	clock.Advance(500 * time.Millisecond)
	if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/my-ip", a.Key, nil))); diff != "" {
		t.Errorf("at t0+1.5s (-want +got):\n%s", diff)
	}
}

// TestRateLimitPerMinute: 200 calls spread over 60 s pass; the 201st is
// refused though the 1 s window is free, until the oldest call is 60 s old.
func TestRateLimitPerMinute(t *testing.T) {
	t.Parallel()
	t.Run("spread", func(t *testing.T) {
		t.Parallel()
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, topupdtest.WithClock(clock), topupdtest.WithRates(40, 200))
		h.LoadCatalog()
		a := h.NewAccount("100", nil)
		other := h.NewAccount("100", nil)
		// 200 calls 300 ms apart: t0 … t0+59.7s, at most 4 in any second.
		for i := 0; i < 200; i++ {
			if i > 0 {
				clock.Advance(300 * time.Millisecond)
			}
			mustPass(t, mixedCall(h, a, i), fmt.Sprintf("call %d", i+1))
		}
		clock.Advance(200 * time.Millisecond) // t0+59.9s: 3 calls in the last second
		before := adminViewOf(h, a)
		if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}))); diff != "" {
			t.Errorf("201st call at t0+59.9s (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, adminViewOf(h, a)); diff != "" {
			t.Errorf("the refused order moved something (-before +after):\n%s", diff)
		}
		mustPass(t, h.Do("GET", "/balance", other.Key, nil), "another account")
		clock.Advance(100 * time.Millisecond) // t0+60s: the call at t0 has left the window
		mustPass(t, h.Do("GET", "/balance", a.Key, nil), "call at t0+60s")
		// …and only that one: the call at t0+0.3s is still inside.
		if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/balance", a.Key, nil))); diff != "" {
			t.Errorf("second call at t0+60s (-want +got):\n%s", diff)
		}
		clock.Advance(300 * time.Millisecond)
		mustPass(t, h.Do("GET", "/balance", a.Key, nil), "call at t0+60.3s")
	})

	t.Run("bursts", func(t *testing.T) {
		t.Parallel()
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, topupdtest.WithClock(clock), topupdtest.WithRates(40, 200))
		h.LoadCatalog()
		a := h.NewAccount("100", nil)
		// 40 calls at t0, t0+1s, …, t0+4s.
		for s := 0; s < 5; s++ {
			if s > 0 {
				clock.Advance(time.Second)
			}
			for i := 0; i < 40; i++ {
				mustPass(t, mixedCall(h, a, s*40+i), fmt.Sprintf("second %d call %d", s, i+1))
			}
		}
		clock.Advance(time.Second) // t0+5s: the 1 s window is empty
		if diff := cmp.Diff(wantLimited("55"), limitedOf(h.Do("GET", "/balance", a.Key, nil))); diff != "" {
			t.Errorf("201st call at t0+5s (-want +got):\n%s", diff)
		}
		clock.Advance(54*time.Second + 500*time.Millisecond) // t0+59.5s
		if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/balance", a.Key, nil))); diff != "" {
			t.Errorf("at t0+59.5s (-want +got):\n%s", diff)
		}
		clock.Advance(500 * time.Millisecond) // t0+60s: the 40 calls of t0 are out
		for i := 0; i < 40; i++ {
			mustPass(t, mixedCall(h, a, i), fmt.Sprintf("call %d at t0+60s", i+1))
		}
		if diff := cmp.Diff(wantLimited("1"), limitedOf(h.Do("GET", "/balance", a.Key, nil))); diff != "" {
			t.Errorf("41st call at t0+60s (-want +got):\n%s", diff)
		}
	})
}
