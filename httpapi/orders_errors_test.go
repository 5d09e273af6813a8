package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrderErrors sends one bad POST /orders per row and checks the status,
// code and error exactly, and that the account's balance, order count,
// ledger and the catalog's stock did not move.
func TestOrderErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	poor := h.newAccount("0.5", nil)

	type row struct {
		name string
		acct *account
		body any
		want errorBody
	}
	invalidBody := errorBody{400, "INVALID_BODY", "INVALID BODY"}
	invalidRequest := errorBody{400, "INVALID_REQUEST", "INVALID REQUEST"}
	pubg := func(extra order) order {
		o := order{"pid": pidPubg, "trxid": h.trx(), "userId": "51234"}
		for k, v := range extra {
			if v == nil {
				delete(o, k)
			} else {
				o[k] = v
			}
		}
		return o
	}
	with := func(pid string, fields order) order {
		o := order{"pid": pid, "trxid": h.trx()}
		for k, v := range fields {
			o[k] = v
		}
		return o
	}
	rows := []row{
		// INVALID BODY: wrong types and shapes.
		{"pid as an object", nil, pubg(order{"pid": map[string]any{"id": pidPubg}}), invalidBody},
		{"pid as an array", nil, pubg(order{"pid": []string{pidPubg}}), invalidBody},
		{"trxid as a bool", nil, pubg(order{"trxid": true}), invalidBody},
		{"userId as an object", nil, pubg(order{"userId": map[string]any{}}), invalidBody},
		{"quantity as a word", nil, with(pidKey, order{"quantity": "x"}), invalidBody},
		{"quantity as a numeric string", nil, with(pidKey, order{"quantity": "2"}), invalidBody},
		{"quantity fractional", nil, with(pidKey, order{"quantity": rawJSON("1.5")}), invalidBody},
		{"quantity zero", nil, with(pidKey, order{"quantity": 0}), invalidBody},
		{"quantity negative", nil, with(pidKey, order{"quantity": -3}), invalidBody},
		{"body is an array", nil, rawBody(`[{"pid":"pubg-60"}]`), invalidBody},
		{"body is a string", nil, rawBody(`"pubg-60"`), invalidBody},
		{"body is a number", nil, rawBody(`42`), invalidBody},
		{"body is null", nil, rawBody(`null`), invalidBody},
		{"pid and PID disagree", nil, pubg(order{"PID": pidPubgBig}), invalidBody},
		{"trxid and idTrx disagree", nil, pubg(order{"idTrx": "other"}), invalidBody},
		{"trxid too long", nil, pubg(order{"trxid": strings.Repeat("t", 129)}), invalidBody},
		{"trxid with a control character", nil, pubg(order{"trxid": "a\nb"}), invalidBody},

		// INVALID REQUEST: fields missing or not of the line's form.
		{"empty object", nil, order{}, invalidRequest},
		{"missing pid", nil, pubg(order{"pid": nil}), invalidRequest},
		{"empty pid", nil, pubg(order{"pid": ""}), invalidRequest},
		{"missing trxid", nil, pubg(order{"trxid": nil}), invalidRequest},
		{"null trxid", nil, pubg(order{"trxid": rawJSON("null")}), invalidRequest},
		{"missing userId", nil, pubg(order{"userId": nil}), invalidRequest},
		{"blank userId", nil, pubg(order{"userId": "   "}), invalidRequest},
		{"Free Fire userId with letters", nil, with(pidFF, order{"userId": "12ab567"}), invalidRequest},
		{"Free Fire userId too short", nil, with(pidFF, order{"userId": "1234"}), invalidRequest},
		{"Free Fire userId too long", nil, with(pidFF, order{"userId": strings.Repeat("1", 21)}), invalidRequest},
		{"Riot ID without tag", nil, with(pidValorant, order{"userId": "player"}), invalidRequest},
		{"zone line without zoneId", nil, with(pidMLBB, order{"userId": "1234"}), invalidRequest},
		{"zone line with a non-numeric zoneId", nil, with(pidMLBB, order{"userId": "1234", "zoneId": "eu"}), invalidRequest},
		{"server line without serverId", nil, with(pidWW, order{"userId": "1234"}), invalidRequest},
		{"server line with an unknown server", nil, with(pidWW, order{"userId": "1234", "serverId": "mars"}), invalidRequest},
		{"Once Human without moreId", nil, with(pidOH, order{"userId": "1234", "region": "eu"}), invalidRequest},
		{"Once Human without region", nil, with(pidOH, order{"userId": "1234", "moreId": "s1"}), invalidRequest},
		{"Once Human with an unknown region", nil, with(pidOH, order{"userId": "1234", "region": "mars", "moreId": "s1"}), invalidRequest},

		// Catalog.
		{"unknown pid", nil, pubg(order{"pid": "no-such-pack"}), errorBody{400, "UNKNOWN_PID", "UNKNOWN PID"}},
		{"pack whose price × quantity overflows", nil, with(pidHuge, order{"quantity": 200}), errorBody{400, "INVALID_PACK", "INVALID PACK"}},
		{"line disabled", nil, with(pidRetired, order{"userId": "1234"}), errorBody{400, "GAME_DISABLED", "GAME DISABLED"}},
		{"pack disabled", nil, pubg(order{"pid": pidPubgOld}), errorBody{400, "PRODUCT_DISABLED", "PRODUCT DISABLED"}},
		{"key pack disabled", nil, with(pidKeyOld, nil), errorBody{400, "PRODUCT_DISABLED", "PRODUCT DISABLED"}},

		// Quantity.
		{"quantity on a top-up", nil, pubg(order{"quantity": 2}), errorBody{400, "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD", "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"}},
		{"quantity 1 on a top-up", nil, pubg(order{"quantity": 1}), errorBody{400, "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD", "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"}},
		{"quantity 501", nil, with(pidKey, order{"quantity": 501}), errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
		{"quantity 501 gift cards", nil, with(pidGift, order{"quantity": 501}), errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
		{"quantity beyond int64", nil, with(pidKey, order{"quantity": rawJSON("99999999999999999999999")}), errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			acct := a
			if tc.acct != nil {
				acct = *tc.acct
			}
			before := h.snapshot(acct)
			r := h.do("POST", "/orders", acct.key, tc.body)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if r.has("orderId") {
				t.Errorf("a failure carries an orderId: %s", r.raw)
			}
			if diff := cmp.Diff(before, h.snapshot(acct)); diff != "" {
				t.Errorf("the refused order moved something (-before +after):\n%s", diff)
			}
		})
	}

	// Rejected at submit: the order form with orderCreated false.
	type rejected struct {
		Status       int
		OrderCreated any
		OrderStatus  string
		Game         string
		Error        string
	}
	rejectedRows := []struct {
		name string
		acct account
		body order
		want rejected
	}{
		{"insufficient balance", poor, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"},
			rejected{400, false, "cancelled", "pubg", "INSUFFICIENT BALANCE"}},
		{"insufficient balance for keys", poor, order{"pid": pidKey, "trxid": h.trx()},
			rejected{400, false, "cancelled", "gamekey", "INSUFFICIENT BALANCE"}},
		{"insufficient stock of keys", a, order{"pid": pidKey, "trxid": h.trx(), "quantity": 11},
			rejected{400, false, "cancelled", "gamekey", "INSUFFICIENT STOCK"}},
		{"insufficient stock of gift cards", a, order{"pid": pidGift, "trxid": h.trx(), "quantity": 6},
			rejected{400, false, "cancelled", "giftcard", "INSUFFICIENT STOCK"}},
		{"no stock of a stock-based top-up", a, order{"pid": pidPubgCodes, "trxid": h.trx(), "userId": "5123", "quantity": 4},
			rejected{400, false, "cancelled", "pubg", "INSUFFICIENT STOCK"}},
	}
	for _, tc := range rejectedRows {
		t.Run(tc.name, func(t *testing.T) {
			before := h.snapshot(tc.acct)
			r := h.do("POST", "/orders", tc.acct.key, tc.body)
			got := rejected{r.status, r.body["orderCreated"], r.str("status"), r.str("game"), r.str("error")}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.raw)
			}
			if r.has("orderId") {
				t.Errorf("a rejected submit carries an orderId: %s", r.raw)
			}
			if diff := cmp.Diff(before, h.snapshot(tc.acct)); diff != "" {
				t.Errorf("the rejected order moved something (-before +after):\n%s", diff)
			}
			// The trxid of a rejected submit is free: no order holds it.
			if r := h.do("GET", "/history", tc.acct.key, nil); strings.Contains(string(r.raw), tc.body["trxid"].(string)) {
				t.Errorf("history mentions the rejected trxid: %s", r.raw)
			}
		})
	}
}

// rawJSON is a JSON value sent exactly as written inside a body.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestOrderIdempotency covers replays, reuse of a trxid or idempotency key
// for a different request, and another account's trxid.
func TestOrderIdempotency(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	b := h.newAccount("100", nil)

	trx := h.trx()
	first := h.place(a, order{"pid": pidPubg, "trxid": trx, "userId": "5123"})
	if first.body["idempotentReplay"] != false {
		t.Errorf("first answer idempotentReplay = %v, want false", first.body["idempotentReplay"])
	}
	keyTrx := h.trx()
	firstKeys := h.place(a, order{"pid": pidKey, "trxid": keyTrx, "quantity": 2})
	// Replays answer the order as it stands: final by now.
	first, firstKeys = h.waitOrder(a, first.str("orderId")), h.waitOrder(a, firstKeys.str("orderId"))
	idemTrx := h.trx()
	idemFirst := h.place(a, order{"pid": pidPubg, "trxid": idemTrx, "idempotencyKey": "idem-1", "userId": "5123"})
	idemFirst = h.waitOrder(a, idemFirst.str("orderId"))

	// Replays: 200, idempotentReplay true, the same order, nothing charged.
	replays := []struct {
		name string
		body order
		want reply
	}{
		{"same body", order{"pid": pidPubg, "trxid": trx, "userId": "5123"}, first},
		{"same body, aliases", order{"PID": pidPubg, "idTrx": trx, "userID": "5123"}, first},
		{"same body, extra ignored fields", order{"pid": pidPubg, "trxid": trx, "userId": "5123", "price": 0.01, "status": "cancelled"}, first},
		{"keys, same quantity", order{"pid": pidKey, "trxid": keyTrx, "quantity": 2}, firstKeys},
		{"same trxid, an idempotencyKey added", order{"pid": pidPubg, "trxid": trx, "userId": "5123", "idempotencyKey": "new-key"}, first},
		{"same idempotencyKey, other trxid", order{"pid": pidPubg, "trxid": h.trx(), "idempotencyKey": "idem-1", "userId": "5123"}, idemFirst},
		{"same idempotency (alias), other trxid", order{"pid": pidPubg, "trxid": h.trx(), "idempotency": "idem-1", "userId": "5123"}, idemFirst},
	}
	for _, tc := range replays {
		t.Run("replay/"+tc.name, func(t *testing.T) {
			before := h.snapshot(a)
			r := h.do("POST", "/orders", a.key, tc.body)
			type view struct {
				Status                int
				OrderID, TrxID, State string
				Amount                string
				Replay, Created       any
				Codes                 []string
			}
			want := view{200, tc.want.str("orderId"), tc.want.str("trxid"), tc.want.str("status"), tc.want.num("amountUsd"), true, true, stringsOf(tc.want.body["codes"])}
			got := view{r.status, r.str("orderId"), r.str("trxid"), r.str("status"), r.num("amountUsd"), r.body["idempotentReplay"], r.body["orderCreated"], stringsOf(r.body["codes"])}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replay (-want +got):\n%s\nbody: %s", diff, r.raw)
			}
			if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
				t.Errorf("the replay moved something (-before +after):\n%s", diff)
			}
		})
	}

	reused := errorBody{422, "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_REUSED"}
	forbidden := errorBody{403, "FORBIDDEN", "FORBIDDEN"}
	refusals := []struct {
		name string
		acct account
		body order
		want errorBody
	}{
		{"same trxid, other pid", a, order{"pid": pidPubgBig, "trxid": trx, "userId": "5123"}, reused},
		{"same trxid, other userId", a, order{"pid": pidPubg, "trxid": trx, "userId": "5124"}, reused},
		{"same trxid, other quantity", a, order{"pid": pidKey, "trxid": keyTrx, "quantity": 3}, reused},
		{"same trxid, quantity dropped", a, order{"pid": pidKey, "trxid": keyTrx}, reused},
		{"same trxid, an idempotencyKey added, other userId", a, order{"pid": pidPubg, "trxid": trx, "userId": "5124", "idempotencyKey": "new-key-2"}, reused},
		{"same idempotencyKey, other trxid, other userId", a, order{"pid": pidPubg, "trxid": h.trx(), "idempotencyKey": "idem-1", "userId": "5124"}, reused},
		{"same idempotency (alias), other trxid, other pid", a, order{"pid": pidPubgBig, "trxid": h.trx(), "idempotency": "idem-1", "userId": "5123"}, reused},
		{"another account's trxid", b, order{"pid": pidPubg, "trxid": trx, "userId": "5123"}, forbidden},
		{"another account's trxid, other pid", b, order{"pid": pidPubgBig, "trxid": trx, "userId": "1"}, forbidden},
	}
	for _, tc := range refusals {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			beforeA, beforeB := h.snapshot(a), h.snapshot(b)
			r := h.do("POST", "/orders", tc.acct.key, tc.body)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if diff := cmp.Diff(beforeA, h.snapshot(a)); diff != "" {
				t.Errorf("account a moved (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(beforeB, h.snapshot(b)); diff != "" {
				t.Errorf("account b moved (-before +after):\n%s", diff)
			}
		})
	}

	// The same idempotencyKey is the account's own: another account may use it.
	h.place(b, order{"pid": pidPubg, "trxid": h.trx(), "idempotencyKey": "idem-1", "userId": "5123"})

	// Exactly one charge per order in the ledger.
	charges := map[string]int{}
	for _, e := range h.ledger(a) {
		if e.Kind == "charge" {
			charges[e.OrderID]++
		}
	}
	if diff := cmp.Diff(map[string]int{first.str("orderId"): 1, firstKeys.str("orderId"): 1, orderIDOf(h, a, idemTrx): 1}, charges); diff != "" {
		t.Errorf("charges per order (-want +got):\n%s", diff)
	}
}

// orderIDOf finds the order id of a trxid in the account's history.
func orderIDOf(h *harness, a account, trx string) string {
	h.t.Helper()
	r := h.do("GET", "/history?limit=200", a.key, nil)
	for _, o := range r.body["orders"].([]any) {
		m := o.(map[string]any)
		if m["trxid"] == trx {
			return m["orderId"].(string)
		}
	}
	h.t.Fatalf("no order with trxid %s in %s", trx, r.raw)
	return ""
}

// TestOrderNotFound: an unknown id and another account's order (by public or
// internal id) are 404 ORDER NOT FOUND.
func TestOrderNotFound(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)
	b := h.newAccount("10", nil)
	theirs := h.place(b, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"}).str("orderId")
	internal := h.adminOK(200, "GET", "/admin/orders/"+theirs, nil).str("id")
	for _, id := range []string{"ord_doesnotexist", theirs, internal, "0", "999999", "-1"} {
		r := h.do("GET", "/orders/"+id, a.key, nil)
		wantFailure(t, r, 404, "ORDER_NOT_FOUND", "ORDER NOT FOUND")
	}
	// The owner sees it by both ids.
	for _, id := range []string{theirs, internal} {
		if r := h.do("GET", "/orders/"+id, b.key, nil); r.status != 200 || r.str("orderId") != theirs {
			t.Errorf("owner GET /orders/%s: %v", id, r)
		}
	}
}

// TestOrdersPaused: maintenance and ordersDisabled refuse POST /orders with
// 503 while reads go on; nothing moves.
func TestOrdersPaused(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)
	placed := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"}).str("orderId")
	tests := []struct {
		name     string
		settings map[string]any
		want     errorBody
	}{
		{"maintenance", map[string]any{"maintenance": true, "ordersDisabled": false}, errorBody{503, "MAINTENANCE", "MAINTENANCE"}},
		{"orders disabled", map[string]any{"maintenance": false, "ordersDisabled": true}, errorBody{503, "API_ORDER_DISABLED", "API_ORDER_DISABLED"}},
		{"both: maintenance first", map[string]any{"maintenance": true, "ordersDisabled": true}, errorBody{503, "MAINTENANCE", "MAINTENANCE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h.settings(tc.settings)
			before := h.snapshot(a)
			for _, body := range []any{
				order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"},
				order{"pid": pidKey, "trxid": h.trx(), "quantity": 1},
			} {
				wantFailure(t, h.do("POST", "/orders", a.key, body), tc.want.Status, tc.want.Code, tc.want.Error)
			}
			for _, path := range []string{"/services", "/products", "/catalog", "/my-ip", "/balance", "/history", "/orders/" + placed} {
				if r := h.do("GET", path, a.key, nil); r.status != 200 {
					t.Errorf("GET %s while paused: %v", path, r)
				}
			}
			if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
				t.Errorf("a paused order moved something (-before +after):\n%s", diff)
			}
		})
	}
	h.settings(map[string]any{"maintenance": false, "ordersDisabled": false})
	h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"})
}

// TestRoutingErrors: unknown paths are 404 JSON, wrong methods 405 JSON
// with Allow, oversized bodies 413 JSON; none moves anything.
func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)
	tests := []struct {
		method, path string
		key          string
		want         errorBody
		allow        string
	}{
		{"GET", "/nope", a.key, errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"GET", "/nope", "", errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"GET", "/orders/x/y", a.key, errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"POST", "/order", a.key, errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"DELETE", "/orders", a.key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "POST"},
		{"GET", "/orders", a.key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "POST"},
		{"PUT", "/balance", a.key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "GET"},
		{"POST", "/products", a.key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "GET"},
		{"DELETE", "/orders/ord_x", a.key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "GET"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			before := h.snapshot(a)
			defer func() {
				if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
					t.Errorf("moved (-before +after):\n%s", diff)
				}
			}()
			r := h.do(tc.method, tc.path, tc.key, nil)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if tc.allow != "" && !strings.Contains(r.header.Get("Allow"), tc.allow) {
				t.Errorf("Allow = %q, want it to list %s", r.header.Get("Allow"), tc.allow)
			}
		})
	}

	big := order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123", "pad": strings.Repeat("x", 70<<10)}
	t.Run("oversized body with Content-Length", func(t *testing.T) {
		before := h.snapshot(a)
		r := h.do("POST", "/orders", a.key, big)
		wantFailure(t, r, 413, "BODY_TOO_LARGE", "BODY TOO LARGE")
		if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
			t.Errorf("moved (-before +after):\n%s", diff)
		}
	})
	t.Run("oversized chunked body", func(t *testing.T) {
		before := h.snapshot(a)
		payload := fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"5123","pad":%q}`, pidPubg, h.trx(), strings.Repeat("y", 70<<10))
		// io.MultiReader hides the length, so the client sends it chunked.
		req, err := http.NewRequest("POST", h.api.URL+"/orders", io.MultiReader(strings.NewReader(payload)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key", a.key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || !strings.Contains(string(raw), `"code":"BODY_TOO_LARGE"`) {
			t.Errorf("got %d %s, want 413 BODY_TOO_LARGE", resp.StatusCode, raw)
		}
		if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
			t.Errorf("moved (-before +after):\n%s", diff)
		}
	})
	t.Run("a body just under the limit is read", func(t *testing.T) {
		body := order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123", "pad": strings.Repeat("z", 60<<10)}
		h.place(a, body)
	})
}

// TestOrderAliasesAndIgnoredFields: every alias of the spec works, and a
// price or status in the body changes nothing.
func TestOrderAliasesAndIgnoredFields(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	type echo struct {
		PID, TrxID, UserID, ZoneID, ServerID, MoreID, Amount, Status string
	}
	tests := []struct {
		name string
		body func(trx string) order
		want func(trx string) echo
	}{
		{"PID", func(trx string) order { return order{"PID": pidPubg, "trxid": trx, "userId": "5123"} },
			func(trx string) echo { return echo{pidPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"trxId", func(trx string) order { return order{"pid": pidPubg, "trxId": trx, "userId": "5123"} },
			func(trx string) echo { return echo{pidPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"idtrx", func(trx string) order { return order{"pid": pidPubg, "idtrx": trx, "userId": "5123"} },
			func(trx string) echo { return echo{pidPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"idTrx", func(trx string) order { return order{"pid": pidPubg, "idTrx": trx, "userId": "5123"} },
			func(trx string) echo { return echo{pidPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"userID", func(trx string) order { return order{"pid": pidPubg, "trxid": trx, "userID": "777"} },
			func(trx string) echo { return echo{pidPubg, trx, "777", "", "", "", "0.89", "completed"} }},
		{"aliases agreeing", func(trx string) order {
			return order{"pid": pidPubg, "PID": pidPubg, "trxid": trx, "idTrx": trx, "userId": "9", "userID": "9"}
		}, func(trx string) echo { return echo{pidPubg, trx, "9", "", "", "", "0.89", "completed"} }},
		{"numeric userId and zoneId", func(trx string) order {
			return order{"pid": pidMLBB, "trxid": trx, "userId": 123456, "zoneId": 2001}
		}, func(trx string) echo { return echo{pidMLBB, trx, "123456", "2001", "", "", "1.45", "completed"} }},
		{"Free Fire digits", func(trx string) order { return order{"pid": pidFF, "trxid": trx, "userId": "12345678"} },
			func(trx string) echo { return echo{pidFF, trx, "12345678", "", "", "", "0.95", "completed"} }},
		{"Riot ID", func(trx string) order { return order{"pid": pidValorant, "trxid": trx, "userId": "name#EUW"} },
			func(trx string) echo { return echo{pidValorant, trx, "name#EUW", "", "", "", "4.6", "completed"} }},
		{"server option, any case", func(trx string) order {
			return order{"pid": pidWW, "trxid": trx, "userId": "1", "serverId": "EUROPE"}
		}, func(trx string) echo { return echo{pidWW, trx, "1", "", "europe", "", "0.95", "completed"} }},
		{"Once Human region shortcut in serverId", func(trx string) order {
			return order{"pid": pidOH, "trxid": trx, "userId": "1", "serverId": "na", "moreId": "s-12"}
		}, func(trx string) echo { return echo{pidOH, trx, "1", "", "na", "s-12", "0.95", "completed"} }},
		{"price, status and amount in the body are ignored", func(trx string) order {
			return order{"pid": pidPubgBig, "trxid": trx, "userId": "5123", "price": 0.01, "priceUsd": 0.01, "amountUsd": 0.01,
				"status": "cancelled", "orderCreated": false}
		}, func(trx string) echo { return echo{pidPubgBig, trx, "5123", "", "", "", "4.45", "completed"} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trx := h.trx()
			before := money(t, h.balance(a))
			r := h.place(a, tc.body(trx))
			// The state is read back once final; whether POST itself already
			// answered it final is TestSimCompletesWithinPOST's business.
			final := h.waitOrder(a, r.str("orderId"))
			got := echo{r.str("pid"), r.str("trxid"), r.str("userId"), r.str("zoneId"), r.str("serverId"), r.str("moreId"), r.num("amountUsd"), final.str("status")}
			want := tc.want(trx)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s\nbody: %s", diff, r.raw)
			}
			if charged := before - money(t, h.balance(a)); charged != money(t, want.Amount) {
				t.Errorf("charged %v, want the catalog price %s", charged, want.Amount)
			}
		})
	}

	t.Run("idempotency alias is the idempotency key", func(t *testing.T) {
		first := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "idempotency": "alias-key", "userId": "5123"})
		r := h.do("POST", "/orders", a.key, order{"pid": pidPubg, "trxid": h.trx(), "idempotencyKey": "alias-key", "userId": "5123"})
		if r.status != 200 || r.body["idempotentReplay"] != true || r.str("orderId") != first.str("orderId") {
			t.Errorf("the key under its other name: %v, want a replay of %s", r, first.str("orderId"))
		}
		r = h.do("POST", "/orders", a.key, order{"pid": pidPubg, "trxid": h.trx(), "idempotencyKey": "alias-key", "userId": "5124"})
		wantFailure(t, r, 422, "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_REUSED")
	})
}

// TestIdempotencyKeyDefaultsToTrxid: the spec makes the trxid the
// idempotency key when none is sent, so a later request whose
// idempotencyKey equals an earlier order's trxid (or whose trxid equals an
// earlier order's idempotencyKey) repeats that key: it must not place and
// charge a second order.
func TestIdempotencyKeyDefaultsToTrxid(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)
	tests := []struct {
		name          string
		first, second order
	}{
		{"idempotencyKey equal to an earlier trxid",
			order{"pid": pidPubg, "trxid": "key-A", "userId": "5123"},
			order{"pid": pidPubg, "trxid": "key-B", "idempotencyKey": "key-A", "userId": "5123"}},
		{"trxid equal to an earlier idempotencyKey",
			order{"pid": pidPubg, "trxid": "key-C", "idempotencyKey": "key-D", "userId": "5123"},
			order{"pid": pidPubg, "trxid": "key-D", "userId": "5123"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h.place(a, tc.first)
			before := h.snapshot(a)
			r := h.do("POST", "/orders", a.key, tc.second)
			if r.status == 200 && r.body["idempotentReplay"] != true {
				t.Errorf("a repeated key placed a new order: %s", r.raw)
			}
			if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
				t.Errorf("a repeated key moved something (-before +after):\n%s", diff)
			}
		})
	}
}

// TestBlankTrxid: a trxid of only spaces is as missing as no trxid.
func TestBlankTrxid(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)
	before := h.snapshot(a)
	for _, trx := range []string{" ", "   ", "\u00a0"} {
		r := h.do("POST", "/orders", a.key, order{"pid": pidPubg, "trxid": trx, "userId": "5123"})
		wantFailure(t, r, 400, "INVALID_REQUEST", "INVALID REQUEST")
	}
	if diff := cmp.Diff(before, h.snapshot(a)); diff != "" {
		t.Errorf("blank trxids moved something (-before +after):\n%s", diff)
	}
}
