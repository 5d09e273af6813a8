package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// actionsOf reads GET /admin/actions with a query.
func actionsOf(t *testing.T, h *topupdtest.T, query string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, a := range h.AdminOK(http.StatusOK, "GET", "/admin/actions"+query, nil).Body["actions"].([]any) {
		out = append(out, a.(map[string]any))
	}
	return out
}

// TestActionLog: every admin change is in the log with who made it, from
// where, under which request id, what it was done to, and the fields it
// changed; a refused change leaves nothing; no secret is ever in it; the log
// filters and pages.
func TestActionLog(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	finance := h.NewOperator("fin", "finance")
	a := h.NewAccount("", nil)
	before := len(actionsOf(t, h, "?limit=500"))

	call := func(token, method, path, reqID string, body any) topupdtest.Reply {
		t.Helper()
		r, err := h.Call(h.Admin.URL, method, path, topupdtest.Headers{"Authorization": "Bearer " + token, "X-Request-Id": reqID}, body)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call(finance, "POST", "/admin/accounts/"+a.ID+"/credits", "credit-1", map[string]any{"amountUsd": 25, "reference": "wire 7"}); r.Status != 200 {
		t.Fatalf("credit: %v", r)
	}
	call(finance, "POST", "/admin/accounts/"+a.ID+"/credits", "credit-2", map[string]any{"amountUsd": -1000, "reference": "too much"}) // refused
	call(h.Token, "PATCH", "/admin/accounts/"+a.ID, "flags-1", map[string]any{"adminDisabled": true, "name": "renamed"})
	key := call(h.Token, "POST", "/admin/accounts/"+a.ID+"/keys", "key-1", nil)
	call(h.Token, "DELETE", "/admin/keys/"+key.Str("keyId"), "revoke-1", nil)
	call(h.Token, "PATCH", "/admin/products/"+topupdtest.PIDPubg, "price-1", map[string]any{"priceUsd": 0.95})
	call(h.Token, "PUT", "/admin/upstreams/whole", "up-1", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "UPSTREAM-SECRET-KEY", "check": false})
	call(h.Token, "PATCH", "/admin/settings", "set-1", map[string]any{"maintenance": true})
	h.Logs.Secret("UPSTREAM-SECRET-KEY", "the upstream key")

	acts := actionsOf(t, h, "?limit=500")
	if got := len(acts) - before; got != 7 {
		t.Fatalf("%d new entries, want 7 (the refused credit leaves none): %v", got, acts[:got])
	}
	byReq := map[string]map[string]any{}
	for _, x := range acts {
		byReq[x["requestId"].(string)] = x
	}
	type want struct {
		action, operator, target, account string
		before, after                     string // every key=value must be in the JSON text
	}
	for id, w := range map[string]want{
		"credit-1": {"account.credit", "fin", a.ID, a.ID, `"balanceUsd":0`, `"amountUsd":25 "balanceUsd":25 "reference":"wire 7"`},
		"flags-1":  {"account.update", "root", a.ID, a.ID, `"adminDisabled":false "name":"reseller`, `"adminDisabled":true "name":"renamed"`},
		"key-1":    {"key.create", "root", a.ID, a.ID, `{}`, `"keyId":"` + key.Str("keyId") + `"`},
		"revoke-1": {"key.revoke", "root", key.Str("keyId"), a.ID, `"revoked":false`, `"revoked":true`},
		"price-1":  {"pack.update", "root", topupdtest.PIDPubg, "", `"priceUsd":0.89`, `"priceUsd":0.95`},
		"up-1":     {"upstream.put", "root", "whole", "", `{}`, `"apiKeySet":true "baseUrl":"http://127.0.0.1:1"`},
		"set-1":    {"settings.update", "root", "", "", `"maintenance":false`, `"maintenance":true`},
		"credit-2": {},
	} {
		x, ok := byReq[id]
		if w.action == "" {
			if ok {
				t.Errorf("%s: a refused change is in the log: %v", id, x)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not in the log", id)
			continue
		}
		acc, _ := x["accountId"].(string)
		if x["action"] != w.action || x["operator"] != w.operator || x["target"] != w.target || acc != w.account || x["ip"] != "127.0.0.1" {
			t.Errorf("%s: %v", id, x)
		}
		for field, want := range map[string]string{"before": w.before, "after": w.after} {
			got := jsonText(t, x[field])
			for _, part := range strings.Fields(want) {
				if !strings.Contains(got, part) {
					t.Errorf("%s: %s = %s, want %s in it", id, field, got, part)
				}
			}
		}
	}
	for _, x := range acts {
		if text := jsonText(t, x); strings.Contains(text, a.Key) || strings.Contains(text, "UPSTREAM-SECRET-KEY") || strings.Contains(text, finance) {
			t.Errorf("a secret in the log: %s", text)
		}
	}
	if got := actionsOf(t, h, "?operator=fin"); len(got) != 1 || got[0]["requestId"] != "credit-1" {
		t.Errorf("?operator=fin: %v", got)
	}
	if got := actionsOf(t, h, "?accountId="+a.ID+"&action=key.revoke"); len(got) != 1 || got[0]["requestId"] != "revoke-1" {
		t.Errorf("?accountId&action: %v", got)
	}
	var all []string
	for cursor := ""; ; {
		page := h.AdminOK(http.StatusOK, "GET", "/admin/actions?limit=3"+cursor, nil)
		for _, x := range page.Body["actions"].([]any) {
			all = append(all, x.(map[string]any)["id"].(string))
		}
		next, _ := page.Body["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
	}
	if len(all) != len(acts) {
		t.Errorf("paged by 3: %d entries, want %d", len(all), len(acts))
	}
	for _, q := range []string{"?limit=0", "?limit=501", "?limit=10000", "?color=red", "?from=yesterday", "?cursor=abc", "?cursor=o:1.1", "?cursor=x:7"} {
		if r := h.AdminDo("GET", "/admin/actions"+q, nil); r.Status != 400 || r.Str("code") != "INVALID_REQUEST" {
			t.Errorf("GET /admin/actions%s: %v", q, r)
		}
	}
}

// jsonText is v as JSON text.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
