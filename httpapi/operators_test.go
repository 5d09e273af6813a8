package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestRoles: each role may make exactly its calls; a forbidden one is 403
// ROLE_FORBIDDEN and changes nothing (the books, the catalog, the settings
// and the action log are as they were).
func TestRoles(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	manual := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
	tokens := map[string]string{}
	for _, role := range []string{"owner", "finance", "support", "viewer"} {
		tokens[role] = h.NewOperator("op-"+role, role)
	}
	type call struct {
		name, method, path string
		body               func() any
		allowed            []string // roles besides owner
	}
	n := 0
	fresh := func() string { n++; return fmt.Sprint(n) }
	calls := []call{
		{"credit", "POST", "/admin/accounts/" + a.ID + "/credits", func() any { return map[string]any{"amountUsd": 1, "reference": "r-" + fresh()} }, []string{"finance"}},
		{"account flags", "PATCH", "/admin/accounts/" + a.ID, func() any { return map[string]any{"ipAllowlistRequired": false} }, []string{"support"}},
		{"new account", "POST", "/admin/accounts", func() any { return map[string]any{"name": "shop " + fresh()} }, []string{"support"}},
		{"new key", "POST", "/admin/accounts/" + a.ID + "/keys", func() any { return nil }, []string{"support"}},
		{"pack edit", "PATCH", "/admin/products/" + topupdtest.PIDPubg, func() any { return map[string]any{"name": "60 UC " + fresh()} }, nil},
		{"line edit", "PATCH", "/admin/services/pubg", func() any { return map[string]any{"productName": "PUBG " + fresh()} }, nil},
		{"stock", "POST", "/admin/products/" + topupdtest.PIDKey + "/stock", func() any { return map[string]any{"codes": []string{"R-" + fresh()}} }, nil},
		{"upstream", "PUT", "/admin/upstreams/u1", func() any {
			return map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-" + fresh(), "check": false}
		}, nil},
		{"settings", "PATCH", "/admin/settings", func() any { return map[string]any{"simDelayMs": n} }, nil},
		{"new operator", "POST", "/admin/operators", func() any { return map[string]any{"name": "x" + fresh(), "role": "viewer"} }, nil},
		{"operator token", "POST", "/admin/operators/op-viewer/tokens", func() any { return nil }, nil},
		{"setup link", "POST", "/admin/operators/op-viewer/setup-link", func() any { return nil }, nil},
		{"statement", "GET", "/admin/accounts/" + a.ID + "/statement?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z", func() any { return nil }, []string{"finance"}},
		{"sales report", "GET", "/admin/reports/sales?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z", func() any { return nil }, []string{"finance"}},
		{"durations report", "GET", "/admin/reports/durations?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z", func() any { return nil }, []string{"finance"}},
		// Last: once allowed, the engine works on the order at a moment of
		// its own, which a later snapshot of the books must not see.
		{"retry an order", "POST", "/admin/orders/" + manual + "/retry", func() any { return nil }, []string{"support"}},
	}
	state := func() string {
		var b strings.Builder
		for _, p := range []string{"/admin/accounts/" + a.ID, "/admin/accounts/" + a.ID + "/ledger", "/admin/products", "/admin/services",
			"/admin/settings", "/admin/operators", "/admin/actions?limit=500", "/admin/upstreams", "/admin/orders/" + manual} {
			fmt.Fprintln(&b, string(h.AdminOK(http.StatusOK, "GET", p, nil).Raw))
		}
		// When an operator was last seen changes with the first call of a
		// minute, and an order's duration with the clock.
		return moving.ReplaceAllString(b.String(), "")
	}
	for _, role := range []string{"viewer", "finance", "support", "owner"} {
		for _, c := range calls {
			ok := role == "owner" || contains(c.allowed, role)
			before := ""
			if !ok {
				before = state()
			}
			r := h.AdminAs(tokens[role], c.method, c.path, c.body())
			switch {
			case ok && r.Status/100 != 2:
				t.Errorf("%s: %s: %v, want it allowed", role, c.name, r)
			case !ok:
				wantFailure(t, r, 403, "ROLE_FORBIDDEN", "ROLE FORBIDDEN")
				if diff := cmp.Diff(before, state()); diff != "" {
					t.Errorf("%s: a forbidden %s changed something (-before +after):\n%s", role, c.name, diff)
				}
			}
		}
		for _, p := range []string{"/admin/orders", "/admin/accounts/" + a.ID, "/admin/actions", "/admin/operators", "/admin/audit"} {
			if r := h.AdminAs(tokens[role], "GET", p, nil); r.Status != http.StatusOK {
				t.Errorf("%s: GET %s: %v", role, p, r)
			}
		}
	}
	// Orders: support and owner may settle; the order, cancelled once, is final.
	h.AdminAs(tokens["viewer"], "POST", "/admin/orders/"+manual+"/cancel", map[string]any{"error": "NO", "refund": true})
	if r := h.AdminAs(tokens["support"], "POST", "/admin/orders/"+manual+"/cancel", map[string]any{"error": "NO", "refund": true}); r.Status != 200 {
		t.Errorf("support cancelling: %v", r)
	}
}

// moving finds the fields that change by themselves.
var moving = regexp.MustCompile(`"(lastSeenAt|durationSec)":[^,}]*`)

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestOperatorTokens: a token of no operator, and a disabled operator's,
// are 401; one more token works like the first; operators are listed with
// their role and when they were last seen.
func TestOperatorTokens(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	tok := h.NewOperator("kim", "support")
	for _, bad := range []string{"tpo_nobody", "", "tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		wantFailure(t, h.AdminAs(bad, "GET", "/admin/settings", nil), 401, "UNAUTHORIZED", "UNAUTHORIZED")
	}
	if r := h.AdminAs(tok, "GET", "/admin/settings", nil); r.Status != 200 {
		t.Fatalf("kim: %v", r)
	}
	second := h.AdminOK(http.StatusCreated, "POST", "/admin/operators/kim/tokens", nil).Str("token")
	h.Logs.Secret(second, "kim's second token")
	if r := h.AdminAs(second, "GET", "/admin/settings", nil); r.Status != 200 {
		t.Errorf("kim's second token: %v", r)
	}
	h.AdminOK(http.StatusOK, "PATCH", "/admin/operators/kim", map[string]any{"disabled": true})
	for _, tk := range []string{tok, second} {
		wantFailure(t, h.AdminAs(tk, "GET", "/admin/settings", nil), 401, "UNAUTHORIZED", "UNAUTHORIZED")
	}
	h.AdminOK(http.StatusOK, "PATCH", "/admin/operators/kim", map[string]any{"disabled": false, "role": "viewer"})
	wantFailure(t, h.AdminAs(tok, "PATCH", "/admin/settings", map[string]any{"maintenance": true}), 403, "ROLE_FORBIDDEN", "ROLE FORBIDDEN")
	list := h.AdminOK(http.StatusOK, "GET", "/admin/operators", nil).Body["operators"].([]any)
	if len(list) != 1 {
		t.Fatalf("operators: %v", list)
	}
	kim := list[0].(map[string]any)
	if kim["name"] != "kim" || kim["role"] != "viewer" || kim["disabled"] != false || kim["lastSeenAt"] == nil {
		t.Errorf("kim: %v", kim)
	}
	for _, bad := range []map[string]any{{"name": "root", "role": "owner"}, {"name": "Kim!", "role": "owner"},
		{"name": "lee", "role": "god"}, {"name": "kim", "role": "owner"}} {
		if r := h.AdminDo("POST", "/admin/operators", bad); r.Status/100 == 2 {
			t.Errorf("POST /admin/operators %v: %v", bad, r)
		}
	}
}
