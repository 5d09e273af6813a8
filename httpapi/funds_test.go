package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestWaitingForFunds, on SQLite and PostgreSQL, every answer checked
// against the OpenAPI documents: an order whose one upstream is known to
// be dry waits for funds (admin alert, stuck list, a waiting step), the
// reseller sees a processing order and nothing of the supplier, the
// upstream's row and GET /admin/events show it critical, and a read that
// covers the order sends it on.
func TestWaitingForFunds(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/dry-one", map[string]any{"baseUrl": downURL(), "apiKey": "tpd_x", "check": false})
		h.PutPack("uc-dry", map[string]any{"slug": "pubg", "name": "60 UC (dry upstream)", "priceUsd": 1.5, "costUsd": 1.25,
			"status": "active", "provider": "upstream", "upstream": "dry-one", "upstreamPid": "uc60"})
		ctx := context.Background()
		if err := h.Store.RecordSupplierDry(ctx, "dry-one", h.Now()); err != nil {
			t.Fatal(err)
		}
		a := h.NewAccount("10", nil)
		r := h.Place(a, map[string]any{"pid": "uc-dry", "trxid": h.Trx(), "userId": "5123456"})
		id := r.Str("orderId")
		if r.Str("status") != "processing" || strings.Contains(string(r.Raw), "dry-one") || strings.Contains(string(r.Raw), "funds") {
			t.Fatalf("the order: %s", r)
		}
		o := h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+id, nil)
		if o.Str("alert") != topupd.AlertWaitingFunds || !strings.Contains(string(o.Raw), `"kind":"waiting"`) {
			t.Errorf("the admin's view: %s", o)
		}
		if stuck := h.AdminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil); !strings.Contains(string(stuck.Raw), id) {
			t.Errorf("not among the stuck orders: %s", stuck)
		}
		if got := h.Do("GET", "/orders/"+id, a.Key, nil); strings.Contains(string(got.Raw), "dry-one") || strings.Contains(string(got.Raw), "WAITING") {
			t.Errorf("the reseller's view names the supplier or the wait: %s", got)
		}
		row := h.AdminOK(http.StatusOK, "GET", "/admin/upstreams", nil)
		if !strings.Contains(string(row.Raw), `"balanceAlert":"critical"`) || !strings.Contains(string(row.Raw), `"alert":true`) {
			t.Errorf("the upstream's row: %s", row)
		}
		// On PostgreSQL an event shows once every older transaction has
		// ended (the stream's order), which other tests may hold back a while.
		ev := operatorEvents(t, h, "?limit=1", func(r topupdtest.Reply) bool { return len(r.Body["events"].([]any)) > 0 })
		if !strings.Contains(string(ev.Raw), `"type":"supplier.balance.critical"`) || !strings.Contains(string(ev.Raw), `"supplier":"dry-one"`) {
			t.Errorf("GET /admin/events: %s", ev)
		}
		for _, q := range []string{"?after=evt_unknown", "?limit=0", "?limit=101", "?limit=", "?what=1"} {
			if r := h.AdminDo("GET", "/admin/events"+q, nil); r.Status != 400 || r.Str("code") != "INVALID_REQUEST" {
				t.Errorf("GET /admin/events%s: %s", q, r)
			}
		}
		// A read that covers it: it leaves the wait at the engine's next look
		// (the spec's bound is 10 s; the wait below leaves room for a busy
		// machine, as no test may depend on an idle one).
		if _, err := h.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: "dry-one", Balance: topupd.USD(5), At: h.Now()}); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if o := h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+id, nil); o.Str("alert") != topupd.AlertWaitingFunds {
				break
			}
			if time.Now().After(end) {
				t.Fatal("the order still waits 30 s after a read that covers it")
			}
		}
	})
}

// operatorEvents reads GET /admin/events with query until done says so,
// up to 30 s (PostgreSQL shows an event once every older transaction of
// the server has ended), and answers the last read.
func operatorEvents(t *testing.T, h *topupdtest.T, query string, done func(topupdtest.Reply) bool) topupdtest.Reply {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r := h.AdminOK(http.StatusOK, "GET", "/admin/events"+query, nil)
		if done(r) || time.Now().After(end) {
			return r
		}
	}
}
