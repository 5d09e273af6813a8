package httpapi_test

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestBadText: a NUL byte or invalid UTF-8 in a path segment, a query
// parameter (its name or its value) or a JSON string of a body is never a
// 500, on either database: on the reseller API GET /orders/{id} is 404
// ORDER NOT FOUND and anything else 400 INVALID REQUEST (a body: INVALID
// BODY); on the admin API 400 INVALID_REQUEST (a body: INVALID_BODY).
// Nothing is changed by any of them.
func TestBadText(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("10", nil)
		placed := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1}).Str("orderId")
		manual := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
		before := h.Snapshot(a)

		type call struct {
			method, path string
			body         any
			status       int
			code, error  string
		}
		notFound := func(path string) call { return call{"GET", path, nil, 404, "ORDER_NOT_FOUND", "ORDER NOT FOUND"} }
		badRequest := func(method, path string, body any) call {
			return call{method, path, body, 400, "INVALID_REQUEST", "INVALID REQUEST"}
		}
		badBody := func(body any) call { return call{"POST", "/orders", body, 400, "INVALID_BODY", "INVALID BODY"} }
		for _, bad := range []string{"%00", "%FF", "a%00b", "ord_%C3%28", "%ED%A0%80"} {
			for _, c := range []call{
				notFound("/orders/" + bad),
				notFound("/orders/" + placed + bad),
				badRequest("GET", "/history?limit="+bad, nil),
				badRequest("GET", "/history?page=1&pageSize=10&x="+bad, nil),
				badRequest("GET", "/balance?note="+bad, nil),
				badRequest("GET", "/products?"+bad+"=1", nil),
				badRequest("GET", "/orders/"+placed+"?x="+bad, nil),
				badRequest("POST", "/orders?x="+bad, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}),
			} {
				r := h.Do(c.method, c.path, a.Key, c.body)
				if r.Status != c.status || r.Str("code") != c.code || r.Str("error") != c.error || r.Body["success"] != false {
					t.Errorf("reseller %s %s: %v, want %d %s %q", c.method, c.path, r, c.status, c.code, c.error)
				}
			}
		}
		// encoding/json writes a NUL as \u0000, in names and values alike.
		for _, field := range []string{"pid", "trxid", "idempotencyKey", "userId", "zoneId", "x\x00"} {
			body := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}
			body[field] = "x\x00y"
			c := badBody(body)
			r := h.Do(c.method, c.path, a.Key, c.body)
			if r.Status != c.status || r.Str("code") != c.code || r.Str("error") != c.error {
				t.Errorf("reseller POST /orders with a NUL in %q: %v, want %d %s", field, r, c.status, c.code)
			}
		}
		if after := h.Snapshot(a); after.Balance != before.Balance || after.Orders != before.Orders {
			t.Errorf("bad text changed the account: %+v, then %+v", before, after)
		}

		acct := "/admin/accounts/" + a.ID
		for _, bad := range []string{"%00", "%FF", "x%00", "%C3%28"} {
			for _, c := range []call{
				{"GET", "/admin/orders/" + bad, nil, 0, "", ""},
				{"GET", "/admin/orders/" + placed + bad, nil, 0, "", ""},
				{"GET", "/admin/accounts/" + bad, nil, 0, "", ""},
				{"GET", "/admin/accounts/" + bad + "/keys", nil, 0, "", ""},
				{"GET", "/admin/accounts/" + bad + "/ledger", nil, 0, "", ""},
				{"GET", "/admin/orders?trxid=" + bad, nil, 0, "", ""},
				{"GET", "/admin/orders?pid=" + bad, nil, 0, "", ""},
				{"GET", "/admin/orders?accountId=" + bad, nil, 0, "", ""},
				{"GET", "/admin/accounts?q=" + bad, nil, 0, "", ""},
				{"GET", "/admin/actions?operator=" + bad, nil, 0, "", ""},
				{"GET", "/admin/actions?accountId=" + bad, nil, 0, "", ""},
				{"GET", "/admin/settings?" + bad + "=1", nil, 0, "", ""},
				{"GET", "/admin/products/" + bad + "/batches", nil, 0, "", ""},
				{"PATCH", "/admin/accounts/" + bad, map[string]any{"banned": false}, 0, "", ""},
				{"PUT", "/admin/services/" + bad, map[string]any{}, 0, "", ""},
				{"PATCH", "/admin/products/" + bad, map[string]any{"name": "x"}, 0, "", ""},
				{"DELETE", "/admin/keys/" + bad, nil, 0, "", ""},
				{"POST", "/admin/orders/" + bad + "/cancel", map[string]any{"error": "X", "refund": true}, 0, "", ""},
				{"PUT", acct + "/prices/" + bad, map[string]any{"priceUsd": 1}, 0, "", ""},
				{"PUT", "/admin/tiers/" + bad, map[string]any{}, 0, "", ""},
				{"PATCH", "/admin/operators/" + bad, map[string]any{"disabled": true}, 0, "", ""},
			} {
				r := h.AdminDo(c.method, c.path, c.body)
				if r.Status != 400 || r.Str("code") != "INVALID_REQUEST" || r.Body["success"] != false {
					t.Errorf("admin %s %s: %v, want 400 INVALID_REQUEST", c.method, c.path, r)
				}
			}
		}
		nul := "x\x00y"
		for _, c := range []struct {
			method, path string
			body         map[string]any
		}{
			{"POST", "/admin/accounts", map[string]any{"name": nul}},
			{"PATCH", acct, map[string]any{"name": nul}},
			{"POST", acct + "/keys", map[string]any{"label": nul}},
			{"POST", acct + "/credits", map[string]any{"amountUsd": 1, "reference": nul}},
			{"POST", "/admin/orders/" + manual + "/cancel", map[string]any{"error": nul, "refund": true}},
			{"POST", "/admin/orders/" + manual + "/complete", map[string]any{"codes": []string{nul}}},
			{"POST", "/admin/products/" + topupdtest.PIDKey + "/stock", map[string]any{"codes": []string{"OK-1"}, "note": nul}},
			{"PATCH", "/admin/products/" + topupdtest.PIDPubg, map[string]any{"name": nul}},
			{"PATCH", "/admin/services/pubg", map[string]any{"productName": nul}},
			{"POST", "/admin/operators", map[string]any{"name": nul, "role": "viewer"}},
			{"PUT", "/admin/upstreams/u1", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": nul}},
			{"PATCH", acct, map[string]any{"ipAllowlist": []string{nul}}},
			{"PATCH", acct, map[string]any{"name": "ok", "x": map[string]any{"deep": []string{nul}}}},
			{"PATCH", acct, map[string]any{"na\x00me": "ok"}},
		} {
			r := h.AdminDo(c.method, c.path, c.body)
			if r.Status != 400 || r.Str("code") != "INVALID_BODY" || r.Body["success"] != false {
				t.Errorf("admin %s %s %q: %v, want 400 INVALID_BODY", c.method, c.path, c.body, r)
			}
		}
		if after := h.Snapshot(a); after.Balance != before.Balance || after.Orders != before.Orders {
			t.Errorf("bad text changed the account: %+v, then %+v", before, after)
		}
		if o := h.AdminOrder(manual); o.Status != "processing" {
			t.Errorf("bad text settled the manual order: %+v", o)
		}
		h.AuditClean("orders-final") // the manual order is processing
	})
}
