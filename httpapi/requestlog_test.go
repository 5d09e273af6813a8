package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// logLine is one line of the server's JSON log.
type logLine map[string]any

// requestLines are the "request" lines of a request id.
func requestLines(t *testing.T, h *topupdtest.T, id string) []logLine {
	t.Helper()
	var out []logLine
	for _, raw := range h.Logs.Lines(`"requestId":"` + id + `"`) {
		var l logLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatalf("a log line that is not JSON: %q", raw)
		}
		out = append(out, l)
	}
	return out
}

// TestRequestIDs: every answer of both APIs carries X-Request-Id, the
// request's own when it is 1 to 64 of A-Z a-z 0-9 . _ -, a new one
// otherwise; failures included.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t, topupdtest.WithMaxBody(1<<10))
	h.LoadCatalog()
	a := h.NewAccount("5", nil)
	ok64 := strings.Repeat("a", 64)
	for _, tc := range []struct {
		name, base, method, path string
		hdr                      topupdtest.Headers
		body                     any
		keep                     bool
	}{
		{"kept", h.API.URL, "GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "shop-1.retry_2"}, nil, true},
		{"64 characters kept", h.API.URL, "GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": ok64}, nil, true},
		{"65 characters replaced", h.API.URL, "GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": ok64 + "a"}, nil, false},
		{"a space replaced", h.API.URL, "GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "a b"}, nil, false},
		{"none", h.API.URL, "GET", "/balance", topupdtest.Headers{"X-API-Key": a.Key}, nil, false},
		{"401", h.API.URL, "GET", "/balance", topupdtest.Headers{"X-Request-Id": "r-401"}, nil, true},
		{"404", h.API.URL, "GET", "/nowhere", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "r-404"}, nil, true},
		{"405", h.API.URL, "DELETE", "/balance", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "r-405"}, nil, true},
		{"413", h.API.URL, "POST", "/orders", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "r-413"},
			topupdtest.RawBody(`{"pid":"` + strings.Repeat("x", 2000) + `"}`), true},
		{"admin", h.Admin.URL, "GET", "/admin/settings", topupdtest.Headers{"Authorization": "Bearer " + h.Token, "X-Request-Id": "r-adm"}, nil, true},
		{"admin 401", h.Admin.URL, "GET", "/admin/settings", topupdtest.Headers{"X-Request-Id": "r-adm-401"}, nil, true},
	} {
		r, err := h.Call(tc.base, tc.method, tc.path, tc.hdr, tc.body)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := r.Header.Get("X-Request-Id")
		switch {
		case got == "":
			t.Errorf("%s: %d without X-Request-Id", tc.name, r.Status)
		case tc.keep && got != tc.hdr["X-Request-Id"]:
			t.Errorf("%s: X-Request-Id %q, want the request's own %q", tc.name, got, tc.hdr["X-Request-Id"])
		case !tc.keep && got == tc.hdr["X-Request-Id"]:
			t.Errorf("%s: the id %q was kept", tc.name, got)
		}
		if n := len(requestLines(t, h, got)); n == 0 {
			t.Errorf("%s: no log line with request id %q", tc.name, got)
		}
	}
}

// TestRequestLogLines: one JSON line per request with its id, method,
// route (the pattern, not the path), status, duration, caller and client
// IP; the engine's lines about an order carry the id of the request that
// placed it.
func TestRequestLogLines(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("5", nil)
	placed, err := h.Call(h.API.URL, "POST", "/orders", topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "place-1"},
		map[string]any{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
	if err != nil || placed.Status != http.StatusOK {
		t.Fatalf("placing: %v %v", placed, err)
	}
	h.Call(h.API.URL, "GET", "/orders/"+placed.Str("orderId"), topupdtest.Headers{"X-API-Key": a.Key, "X-Request-Id": "look-1"}, nil)
	h.Call(h.Admin.URL, "GET", "/admin/orders/"+placed.Str("orderId"), topupdtest.Headers{"Authorization": "Bearer " + h.Token, "X-Request-Id": "adm-1"}, nil)

	want := []struct {
		id, route, method, who, whoKey string
		status                         float64
	}{
		{"place-1", "/orders", "POST", a.ID, "accountId", 200},
		{"look-1", "/orders/{orderId}", "GET", a.ID, "accountId", 200},
		{"adm-1", "/admin/orders/{orderId}", "GET", "root", "operator", 200},
	}
	for _, w := range want {
		var reqs []logLine
		for _, l := range requestLines(t, h, w.id) {
			if l["msg"] == "request" {
				reqs = append(reqs, l)
			}
		}
		if len(reqs) != 1 {
			t.Fatalf("%s: %d request lines, want 1", w.id, len(reqs))
		}
		l := reqs[0]
		if l["route"] != w.route || l["method"] != w.method || l["status"] != w.status || l[w.whoKey] != w.who || l["clientIp"] != "127.0.0.1" {
			t.Errorf("%s: request line %v", w.id, l)
		}
		if d, ok := l["durationMs"].(float64); !ok || d < 0 {
			t.Errorf("%s: durationMs %v", w.id, l["durationMs"])
		}
	}
	var engine []string
	for _, l := range requestLines(t, h, "place-1") {
		engine = append(engine, l["msg"].(string))
	}
	for _, msg := range []string{"fulfil: supplier call", "fulfil: order final"} {
		if !strings.Contains(strings.Join(engine, "|"), msg) {
			t.Errorf("no %q line carries the placing request's id: %v", msg, engine)
		}
	}
	if lines := h.Logs.Lines(`"route":"/orders/` + placed.Str("orderId")); len(lines) != 0 {
		t.Errorf("a route holds the raw path: %v", lines)
	}
}
