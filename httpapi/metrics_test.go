package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// scrape reads GET /metrics with a bearer token.
func scrape(t *testing.T, h *topupdtest.T, token string) (int, string) {
	t.Helper()
	return h.AdminText("/metrics", token)
}

// TestMetrics: GET /metrics answers an operator's token or the metrics
// token with the contract's series, their labels bounded (no order id or
// trxid); /livez and /readyz need no token.
func TestMetrics(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("20", nil)
	trx := h.Trx()
	placed := h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"})
	h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "99990001"}) // sim refuses: refunded
	h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 2})
	manual := h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"})
	h.Do("GET", "/balance", a.Key, nil)
	h.Do("GET", "/orders/"+placed.Str("orderId"), a.Key, nil)

	for _, tok := range []string{"", "wrong", a.Key} {
		if status, _ := scrape(t, h, tok); status != http.StatusUnauthorized {
			t.Errorf("GET /metrics with %q: %d, want 401", tok, status)
		}
	}
	// Orders are counted from the event stream, a moment after they happen.
	status, body := scrapeUntil(t, h, `topupd_orders_finished_total{line="gamekey",outcome="completed",provider="stock"} 1`,
		`topupd_orders_finished_total{line="pubg",outcome="refunded",provider="sim"} 1`, `topupd_orders_placed_total{line="pubg",provider="manual"} 1`)
	if status != http.StatusOK {
		t.Fatalf("GET /metrics with the metrics token: %d", status)
	}
	if s, _ := scrape(t, h, h.Token); s != http.StatusOK {
		t.Errorf("GET /metrics with the operator token: %d", s)
	}
	for _, want := range []string{
		`topupd_http_requests_total{api="reseller",route="/balance",status="200"} 1`,
		`topupd_http_requests_total{api="reseller",route="/orders/{orderId}",status="200"} 1`,
		`topupd_http_request_duration_seconds_count{api="reseller",route="/orders",status="200"} 4`,
		`topupd_http_requests_total{api="admin",route="/metrics",status="401"} 3`,
		`topupd_orders_placed_total{line="pubg",provider="sim"} 2`,
		`topupd_orders_placed_total{line="gamekey",provider="stock"} 1`,
		`topupd_orders_placed_total{line="pubg",provider="manual"} 1`,
		`topupd_orders_finished_total{line="pubg",outcome="completed",provider="sim"} 1`,
		`topupd_orders_finished_total{line="pubg",outcome="refunded",provider="sim"} 1`,
		`topupd_orders_finished_total{line="gamekey",outcome="completed",provider="stock"} 1`,
		`topupd_order_time_to_final_seconds_count{line="pubg",outcome="completed",provider="sim"} 1`,
		`topupd_supplier_calls_total{outcome="completed",provider="sim",upstream=""} 1`,
		`topupd_supplier_calls_total{outcome="failed",provider="sim",upstream=""} 1`,
		`topupd_orders_processing 1`,
		`topupd_stock_available{pid="gamekey-steam"} 8`,
		"topupd_reseller_balances_usd 14.71", // 20 − 0.89 − 2×1.2 − 2 (the refused top-up refunded)
		`topupd_metrics_database_errors 0`,
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /metrics lacks %s", want)
		}
	}
	for _, id := range []string{placed.Str("orderId"), trx, manual.Str("orderId"), a.ID, a.Key} {
		if strings.Contains(body, id) {
			t.Errorf("GET /metrics holds %q: labels must stay bounded", id)
		}
	}
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+manual.Str("orderId")+"/cancel", map[string]any{"error": "NO", "refund": true})
	// The whole series, not a suffix: the time-to-final roll-up's series
	// ends the same way and can be counted before the stream's is.
	refunded := `topupd_orders_finished_total{line="pubg",outcome="refunded",provider="manual"} 1`
	if _, body := scrapeUntil(t, h, refunded, "topupd_orders_processing 0"); !strings.Contains(body, refunded) ||
		!strings.Contains(body, "topupd_orders_processing 0") {
		t.Errorf("after the operator's cancel:\n%s", grepLines(body, "topupd_orders"))
	}
	for _, path := range []string{"/livez", "/readyz"} {
		r, err := h.Call(h.Admin.URL, "GET", path, nil, nil)
		if err != nil || r.Status != http.StatusOK || r.Body["success"] != true {
			t.Errorf("GET %s without a token: %v %v", path, r, err)
		}
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMetricsStuck: topupd_orders_stuck counts, per supplier, the orders
// GET /admin/orders/stuck lists: none before an order's deadline, one
// past it, none again once the operator settles it.
func TestMetricsStuck(t *testing.T) {
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	o := orphanedOrder(t, h, clock, "stuck-metric-1")
	const series = `topupd_orders_stuck{provider="manual",upstream=""}`
	stuck := func() string {
		t.Helper()
		status, body := scrape(t, h, h.MetricsToken)
		if status != http.StatusOK {
			t.Fatalf("GET /metrics: %d", status)
		}
		return grepLines(body, "topupd_orders_stuck{")
	}
	if got := stuck(); got != "" {
		t.Errorf("before the deadline: %q, want no stuck series", got)
	}
	clock.Advance(2 * time.Minute)
	if got := stuck(); got != series+" 1" {
		t.Errorf("past the deadline: %q, want %q", got, series+" 1")
	}
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o.ID+"/cancel", map[string]any{"error": "GAVE UP", "refund": true})
	if got := stuck(); got != "" {
		t.Errorf("after the operator's cancel: %q, want no stuck series", got)
	}
}

// scrapeUntil scrapes GET /metrics with the metrics token until the answer
// holds every one of want, for at most 20 s, and returns the last answer.
func scrapeUntil(t *testing.T, h *topupdtest.T, want ...string) (int, string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		status, body := scrape(t, h, h.MetricsToken)
		all := status == http.StatusOK
		for _, w := range want {
			all = all && strings.Contains(body, w)
		}
		if all || time.Now().After(deadline) {
			return status, body
		}
	}
}

// TestMetricsSuppliers: each upstream's state is a series of 1 among its
// three states, and our balance there a series once it is known (a
// checked save, a check), read from the database at each scrape.
func TestMetricsSuppliers(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	ours := b.NewAccount("42.5", nil)
	h := topupdtest.New(t)
	h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
	h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/gone", map[string]any{"baseUrl": downURL(), "apiKey": "k", "check": false})
	series := func() string {
		t.Helper()
		status, body := scrape(t, h, h.MetricsToken)
		if status != http.StatusOK {
			t.Fatalf("GET /metrics: %d", status)
		}
		return grepLines(body, "topupd_supplier_")
	}
	got := series()
	for _, want := range []string{`topupd_supplier_balance_usd{supplier="b"} 42.5`, `topupd_supplier_health{state="ok",supplier="b"} 1`,
		`topupd_supplier_health{state="failing",supplier="b"} 0`, `topupd_supplier_health{state="unchecked",supplier="gone"} 1`} {
		if !strings.Contains(got, want) {
			t.Errorf("the supplier series lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `topupd_supplier_balance_usd{supplier="gone"}`) {
		t.Errorf("an unknown balance has a series:\n%s", got)
	}
	h.AdminDo("POST", "/admin/upstreams/gone/check", nil)
	if got := series(); !strings.Contains(got, `topupd_supplier_health{state="failing",supplier="gone"} 1`) {
		t.Errorf("after a failed check:\n%s", got)
	}
}
