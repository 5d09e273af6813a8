package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOrderErrors sends one bad POST /orders per row and checks the status,
// code and error exactly, and that the account's balance, order count,
// ledger and the catalog's stock did not move.
func TestOrderErrors(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	poor := h.NewAccount("0.5", nil)

	type row struct {
		name string
		acct *topupdtest.Account
		body any
		want errorBody
	}
	invalidBody := errorBody{400, "INVALID_BODY", "INVALID BODY"}
	invalidRequest := errorBody{400, "INVALID_REQUEST", "INVALID REQUEST"}
	pubg := func(extra order) order {
		o := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "51234"}
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
		o := order{"pid": pid, "trxid": h.Trx()}
		for k, v := range fields {
			o[k] = v
		}
		return o
	}
	rows := []row{
		// INVALID BODY: wrong types and shapes.
		{"pid as an object", nil, pubg(order{"pid": map[string]any{"id": topupdtest.PIDPubg}}), invalidBody},
		{"pid as an array", nil, pubg(order{"pid": []string{topupdtest.PIDPubg}}), invalidBody},
		{"trxid as a bool", nil, pubg(order{"trxid": true}), invalidBody},
		{"userId as an object", nil, pubg(order{"userId": map[string]any{}}), invalidBody},
		{"quantity as a word", nil, with(topupdtest.PIDKey, order{"quantity": "x"}), invalidBody},
		{"quantity as a numeric string", nil, with(topupdtest.PIDKey, order{"quantity": "2"}), invalidBody},
		{"quantity fractional", nil, with(topupdtest.PIDKey, order{"quantity": rawJSON("1.5")}), invalidBody},
		{"quantity zero", nil, with(topupdtest.PIDKey, order{"quantity": 0}), invalidBody},
		{"quantity negative", nil, with(topupdtest.PIDKey, order{"quantity": -3}), invalidBody},
		{"body is an array", nil, topupdtest.RawBody(`[{"pid":"pubg-60"}]`), invalidBody},
		{"body is a string", nil, topupdtest.RawBody(`"pubg-60"`), invalidBody},
		{"body is a number", nil, topupdtest.RawBody(`42`), invalidBody},
		{"body is null", nil, topupdtest.RawBody(`null`), invalidBody},
		{"pid and PID disagree", nil, pubg(order{"PID": topupdtest.PIDPubgBig}), invalidBody},
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
		{"Free Fire userId with letters", nil, with(topupdtest.PIDFF, order{"userId": "12ab567"}), invalidRequest},
		{"Free Fire userId too short", nil, with(topupdtest.PIDFF, order{"userId": "1234"}), invalidRequest},
		{"Free Fire userId too long", nil, with(topupdtest.PIDFF, order{"userId": strings.Repeat("1", 21)}), invalidRequest},
		{"Riot ID without tag", nil, with(topupdtest.PIDValorant, order{"userId": "player"}), invalidRequest},
		{"zone line without zoneId", nil, with(topupdtest.PIDMLBB, order{"userId": "1234"}), invalidRequest},
		{"zone line with a non-numeric zoneId", nil, with(topupdtest.PIDMLBB, order{"userId": "1234", "zoneId": "eu"}), invalidRequest},
		{"server line without serverId", nil, with(topupdtest.PIDWW, order{"userId": "1234"}), invalidRequest},
		{"server line with an unknown server", nil, with(topupdtest.PIDWW, order{"userId": "1234", "serverId": "mars"}), invalidRequest},
		{"Once Human without moreId", nil, with(topupdtest.PIDOH, order{"userId": "1234", "region": "eu"}), invalidRequest},
		{"Once Human without region", nil, with(topupdtest.PIDOH, order{"userId": "1234", "moreId": "s1"}), invalidRequest},
		{"Once Human with an unknown region", nil, with(topupdtest.PIDOH, order{"userId": "1234", "region": "mars", "moreId": "s1"}), invalidRequest},

		// Catalog.
		{"unknown pid", nil, pubg(order{"pid": "no-such-pack"}), errorBody{400, "UNKNOWN_PID", "UNKNOWN PID"}},
		{"pack whose price × quantity overflows", nil, with(topupdtest.PIDHuge, order{"quantity": 200}), errorBody{400, "INVALID_PACK", "INVALID PACK"}},
		{"line disabled", nil, with(topupdtest.PIDRetired, order{"userId": "1234"}), errorBody{400, "GAME_DISABLED", "GAME DISABLED"}},
		{"pack disabled", nil, pubg(order{"pid": topupdtest.PIDPubgOld}), errorBody{400, "PRODUCT_DISABLED", "PRODUCT DISABLED"}},
		{"key pack disabled", nil, with(topupdtest.PIDKeyOld, nil), errorBody{400, "PRODUCT_DISABLED", "PRODUCT DISABLED"}},

		// Quantity.
		{"quantity on a top-up", nil, pubg(order{"quantity": 2}), errorBody{400, "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD", "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"}},
		{"quantity 1 on a top-up", nil, pubg(order{"quantity": 1}), errorBody{400, "QUANTITY_ONLY_FOR_GAMEKEY_OR_GIFTCARD", "QUANTITY ONLY FOR GAMEKEY OR GIFTCARD"}},
		{"quantity 501", nil, with(topupdtest.PIDKey, order{"quantity": 501}), errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
		{"quantity 501 gift cards", nil, with(topupdtest.PIDGift, order{"quantity": 501}), errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
		{"quantity beyond int64", nil, with(topupdtest.PIDKey, order{"quantity": rawJSON("99999999999999999999999")}), errorBody{400, "QUANTITY_EXCEEDS_MAX", "QUANTITY EXCEEDS MAX"}},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			acct := a
			if tc.acct != nil {
				acct = *tc.acct
			}
			before := h.Snapshot(acct)
			r := h.Do("POST", "/orders", acct.Key, tc.body)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if r.Has("orderId") {
				t.Errorf("a failure carries an orderId: %s", r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(acct)); diff != "" {
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
		acct topupdtest.Account
		body order
		want rejected
	}{
		{"insufficient balance", poor, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"},
			rejected{400, false, "cancelled", "pubg", "INSUFFICIENT BALANCE"}},
		{"insufficient balance for keys", poor, order{"pid": topupdtest.PIDKey, "trxid": h.Trx()},
			rejected{400, false, "cancelled", "gamekey", "INSUFFICIENT BALANCE"}},
		{"insufficient stock of keys", a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 11},
			rejected{400, false, "cancelled", "gamekey", "INSUFFICIENT STOCK"}},
		{"insufficient stock of gift cards", a, order{"pid": topupdtest.PIDGift, "trxid": h.Trx(), "quantity": 6},
			rejected{400, false, "cancelled", "giftcard", "INSUFFICIENT STOCK"}},
		{"no stock of a stock-based top-up", a, order{"pid": topupdtest.PIDPubgCodes, "trxid": h.Trx(), "userId": "5123", "quantity": 4},
			rejected{400, false, "cancelled", "pubg", "INSUFFICIENT STOCK"}},
	}
	for _, tc := range rejectedRows {
		t.Run(tc.name, func(t *testing.T) {
			before := h.Snapshot(tc.acct)
			r := h.Do("POST", "/orders", tc.acct.Key, tc.body)
			got := rejected{r.Status, r.Body["orderCreated"], r.Str("status"), r.Str("game"), r.Str("error")}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.Raw)
			}
			if r.Has("orderId") {
				t.Errorf("a rejected submit carries an orderId: %s", r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(tc.acct)); diff != "" {
				t.Errorf("the rejected order moved something (-before +after):\n%s", diff)
			}
			// The trxid of a rejected submit is free: no order holds it.
			if r := h.Do("GET", "/history", tc.acct.Key, nil); strings.Contains(string(r.Raw), tc.body["trxid"].(string)) {
				t.Errorf("history mentions the rejected trxid: %s", r.Raw)
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
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	b := h.NewAccount("100", nil)

	trx := h.Trx()
	first := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"})
	if first.Body["idempotentReplay"] != false {
		t.Errorf("first answer idempotentReplay = %v, want false", first.Body["idempotentReplay"])
	}
	keyTrx := h.Trx()
	firstKeys := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": keyTrx, "quantity": 2})
	// Replays answer the order as it stands: final by now.
	first, firstKeys = h.WaitOrder(a, first.Str("orderId")), h.WaitOrder(a, firstKeys.Str("orderId"))
	idemTrx := h.Trx()
	idemFirst := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": idemTrx, "idempotencyKey": "idem-1", "userId": "5123"})
	idemFirst = h.WaitOrder(a, idemFirst.Str("orderId"))

	// Replays: 200, idempotentReplay true, the same order, nothing charged.
	replays := []struct {
		name string
		body order
		want topupdtest.Reply
	}{
		{"same body", order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"}, first},
		{"same body, aliases", order{"PID": topupdtest.PIDPubg, "idTrx": trx, "userID": "5123"}, first},
		{"same body, extra ignored fields", order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123", "price": 0.01, "status": "cancelled"}, first},
		{"keys, same quantity", order{"pid": topupdtest.PIDKey, "trxid": keyTrx, "quantity": 2}, firstKeys},
		{"same trxid, an idempotencyKey added", order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123", "idempotencyKey": "new-key"}, first},
		{"same idempotencyKey, other trxid", order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "idem-1", "userId": "5123"}, idemFirst},
		{"same idempotency (alias), other trxid", order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotency": "idem-1", "userId": "5123"}, idemFirst},
	}
	for _, tc := range replays {
		t.Run("replay/"+tc.name, func(t *testing.T) {
			before := h.Snapshot(a)
			r := h.Do("POST", "/orders", a.Key, tc.body)
			type view struct {
				Status                int
				OrderID, TrxID, State string
				Amount                string
				Replay, Created       any
				Codes                 []string
			}
			want := view{200, tc.want.Str("orderId"), tc.want.Str("trxid"), tc.want.Str("status"), tc.want.Num("amountUsd"), true, true, stringsOf(tc.want.Body["codes"])}
			got := view{r.Status, r.Str("orderId"), r.Str("trxid"), r.Str("status"), r.Num("amountUsd"), r.Body["idempotentReplay"], r.Body["orderCreated"], stringsOf(r.Body["codes"])}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replay (-want +got):\n%s\nbody: %s", diff, r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("the replay moved something (-before +after):\n%s", diff)
			}
		})
	}

	reused := errorBody{422, "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_REUSED"}
	forbidden := errorBody{403, "FORBIDDEN", "FORBIDDEN"}
	refusals := []struct {
		name string
		acct topupdtest.Account
		body order
		want errorBody
	}{
		{"same trxid, other pid", a, order{"pid": topupdtest.PIDPubgBig, "trxid": trx, "userId": "5123"}, reused},
		{"same trxid, other userId", a, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5124"}, reused},
		{"same trxid, other quantity", a, order{"pid": topupdtest.PIDKey, "trxid": keyTrx, "quantity": 3}, reused},
		{"same trxid, quantity dropped", a, order{"pid": topupdtest.PIDKey, "trxid": keyTrx}, reused},
		{"same trxid, an idempotencyKey added, other userId", a, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5124", "idempotencyKey": "new-key-2"}, reused},
		{"same idempotencyKey, other trxid, other userId", a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "idem-1", "userId": "5124"}, reused},
		{"same idempotency (alias), other trxid, other pid", a, order{"pid": topupdtest.PIDPubgBig, "trxid": h.Trx(), "idempotency": "idem-1", "userId": "5123"}, reused},
		{"another account's trxid", b, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"}, forbidden},
		{"another account's trxid, other pid", b, order{"pid": topupdtest.PIDPubgBig, "trxid": trx, "userId": "1"}, forbidden},
	}
	for _, tc := range refusals {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			beforeA, beforeB := h.Snapshot(a), h.Snapshot(b)
			r := h.Do("POST", "/orders", tc.acct.Key, tc.body)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if diff := cmp.Diff(beforeA, h.Snapshot(a)); diff != "" {
				t.Errorf("account a moved (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(beforeB, h.Snapshot(b)); diff != "" {
				t.Errorf("account b moved (-before +after):\n%s", diff)
			}
		})
	}

	// The same idempotencyKey is the account's own: another account may use it.
	h.Place(b, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "idem-1", "userId": "5123"})

	// Exactly one charge per order in the ledger.
	charges := map[string]int{}
	for _, e := range h.Ledger(a) {
		if e.Kind == "charge" {
			charges[e.OrderID]++
		}
	}
	if diff := cmp.Diff(map[string]int{first.Str("orderId"): 1, firstKeys.Str("orderId"): 1, orderIDOf(h, a, idemTrx): 1}, charges); diff != "" {
		t.Errorf("charges per order (-want +got):\n%s", diff)
	}
}

// orderIDOf finds the order id of a trxid in the account's history.
func orderIDOf(h *topupdtest.T, a topupdtest.Account, trx string) string {
	h.TB.Helper()
	r := h.Do("GET", "/history?limit=200", a.Key, nil)
	for _, o := range r.Body["orders"].([]any) {
		m := o.(map[string]any)
		if m["trxid"] == trx {
			return m["orderId"].(string)
		}
	}
	h.TB.Fatalf("no order with trxid %s in %s", trx, r.Raw)
	return ""
}

// TestOrderNotFound: an unknown id and another account's order (by public or
// internal id) are 404 ORDER NOT FOUND.
func TestOrderNotFound(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	b := h.NewAccount("10", nil)
	theirs := h.Place(b, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
	internal := h.AdminOK(200, "GET", "/admin/orders/"+theirs, nil).Str("id")
	for _, id := range []string{"ord_doesnotexist", theirs, internal, "0", "999999", "-1"} {
		r := h.Do("GET", "/orders/"+id, a.Key, nil)
		wantFailure(t, r, 404, "ORDER_NOT_FOUND", "ORDER NOT FOUND")
	}
	// The owner sees it by both ids.
	for _, id := range []string{theirs, internal} {
		if r := h.Do("GET", "/orders/"+id, b.Key, nil); r.Status != 200 || r.Str("orderId") != theirs {
			t.Errorf("owner GET /orders/%s: %v", id, r)
		}
	}
}

// TestOrdersPaused: maintenance and ordersDisabled refuse POST /orders with
// 503 while reads go on; nothing moves.
func TestOrdersPaused(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	placed := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
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
			h.Settings(tc.settings)
			before := h.Snapshot(a)
			for _, body := range []any{
				order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"},
				order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1},
			} {
				wantFailure(t, h.Do("POST", "/orders", a.Key, body), tc.want.Status, tc.want.Code, tc.want.Error)
			}
			for _, path := range []string{"/services", "/products", "/catalog", "/my-ip", "/balance", "/history", "/orders/" + placed} {
				if r := h.Do("GET", path, a.Key, nil); r.Status != 200 {
					t.Errorf("GET %s while paused: %v", path, r)
				}
			}
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("a paused order moved something (-before +after):\n%s", diff)
			}
		})
	}
	h.Settings(map[string]any{"maintenance": false, "ordersDisabled": false})
	h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
}

// TestRoutingErrors: unknown paths are 404 JSON, wrong methods 405 JSON
// with Allow, oversized bodies 413 JSON; none moves anything.
func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	tests := []struct {
		method, path string
		key          string
		want         errorBody
		allow        string
	}{
		{"GET", "/nope", a.Key, errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"GET", "/nope", "", errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"GET", "/orders/x/y", a.Key, errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"POST", "/order", a.Key, errorBody{404, "NOT_FOUND", "NOT FOUND"}, ""},
		{"DELETE", "/orders", a.Key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "POST"},
		{"GET", "/orders", a.Key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "POST"},
		{"PUT", "/balance", a.Key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "GET"},
		{"POST", "/products", a.Key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "GET"},
		{"DELETE", "/orders/ord_x", a.Key, errorBody{405, "METHOD_NOT_ALLOWED", "METHOD NOT ALLOWED"}, "GET"},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			before := h.Snapshot(a)
			defer func() {
				if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
					t.Errorf("moved (-before +after):\n%s", diff)
				}
			}()
			r := h.Do(tc.method, tc.path, tc.key, nil)
			wantFailure(t, r, tc.want.Status, tc.want.Code, tc.want.Error)
			if tc.allow != "" && !strings.Contains(r.Header.Get("Allow"), tc.allow) {
				t.Errorf("Allow = %q, want it to list %s", r.Header.Get("Allow"), tc.allow)
			}
		})
	}

	big := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123", "pad": strings.Repeat("x", 70<<10)}
	t.Run("oversized body with Content-Length", func(t *testing.T) {
		before := h.Snapshot(a)
		r := h.Do("POST", "/orders", a.Key, big)
		wantFailure(t, r, 413, "BODY_TOO_LARGE", "BODY TOO LARGE")
		if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
			t.Errorf("moved (-before +after):\n%s", diff)
		}
	})
	t.Run("oversized chunked body", func(t *testing.T) {
		before := h.Snapshot(a)
		payload := fmt.Sprintf(`{"pid":%q,"trxid":%q,"userId":"5123","pad":%q}`, topupdtest.PIDPubg, h.Trx(), strings.Repeat("y", 70<<10))
		status, raw := h.PostChunked(h.API.URL, "/orders", topupdtest.Headers{"X-API-Key": a.Key}, payload)
		if status != 413 || !strings.Contains(raw, `"code":"BODY_TOO_LARGE"`) {
			t.Errorf("got %d %s, want 413 BODY_TOO_LARGE", status, raw)
		}
		if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
			t.Errorf("moved (-before +after):\n%s", diff)
		}
	})
	t.Run("a body just under the limit is read", func(t *testing.T) {
		body := order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123", "pad": strings.Repeat("z", 60<<10)}
		h.Place(a, body)
	})
}

// TestOrderAliasesAndIgnoredFields: every alias of the spec works, and a
// price or status in the body changes nothing.
func TestOrderAliasesAndIgnoredFields(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	type echo struct {
		PID, TrxID, UserID, ZoneID, ServerID, MoreID, Amount, Status string
	}
	tests := []struct {
		name string
		body func(trx string) order
		want func(trx string) echo
	}{
		{"PID", func(trx string) order { return order{"PID": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"} },
			func(trx string) echo { return echo{topupdtest.PIDPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"trxId", func(trx string) order { return order{"pid": topupdtest.PIDPubg, "trxId": trx, "userId": "5123"} },
			func(trx string) echo { return echo{topupdtest.PIDPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"idtrx", func(trx string) order { return order{"pid": topupdtest.PIDPubg, "idtrx": trx, "userId": "5123"} },
			func(trx string) echo { return echo{topupdtest.PIDPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"idTrx", func(trx string) order { return order{"pid": topupdtest.PIDPubg, "idTrx": trx, "userId": "5123"} },
			func(trx string) echo { return echo{topupdtest.PIDPubg, trx, "5123", "", "", "", "0.89", "completed"} }},
		{"userID", func(trx string) order { return order{"pid": topupdtest.PIDPubg, "trxid": trx, "userID": "777"} },
			func(trx string) echo { return echo{topupdtest.PIDPubg, trx, "777", "", "", "", "0.89", "completed"} }},
		{"aliases agreeing", func(trx string) order {
			return order{"pid": topupdtest.PIDPubg, "PID": topupdtest.PIDPubg, "trxid": trx, "idTrx": trx, "userId": "9", "userID": "9"}
		}, func(trx string) echo { return echo{topupdtest.PIDPubg, trx, "9", "", "", "", "0.89", "completed"} }},
		{"numeric userId and zoneId", func(trx string) order {
			return order{"pid": topupdtest.PIDMLBB, "trxid": trx, "userId": 123456, "zoneId": 2001}
		}, func(trx string) echo {
			return echo{topupdtest.PIDMLBB, trx, "123456", "2001", "", "", "1.45", "completed"}
		}},
		{"Free Fire digits", func(trx string) order { return order{"pid": topupdtest.PIDFF, "trxid": trx, "userId": "12345678"} },
			func(trx string) echo { return echo{topupdtest.PIDFF, trx, "12345678", "", "", "", "0.95", "completed"} }},
		{"Riot ID", func(trx string) order {
			return order{"pid": topupdtest.PIDValorant, "trxid": trx, "userId": "name#EUW"}
		},
			func(trx string) echo {
				return echo{topupdtest.PIDValorant, trx, "name#EUW", "", "", "", "4.6", "completed"}
			}},
		{"server option, any case", func(trx string) order {
			return order{"pid": topupdtest.PIDWW, "trxid": trx, "userId": "1", "serverId": "EUROPE"}
		}, func(trx string) echo { return echo{topupdtest.PIDWW, trx, "1", "", "europe", "", "0.95", "completed"} }},
		{"Once Human region shortcut in serverId", func(trx string) order {
			return order{"pid": topupdtest.PIDOH, "trxid": trx, "userId": "1", "serverId": "na", "moreId": "s-12"}
		}, func(trx string) echo { return echo{topupdtest.PIDOH, trx, "1", "", "na", "s-12", "0.95", "completed"} }},
		{"price, status and amount in the body are ignored", func(trx string) order {
			return order{"pid": topupdtest.PIDPubgBig, "trxid": trx, "userId": "5123", "price": 0.01, "priceUsd": 0.01, "amountUsd": 0.01,
				"status": "cancelled", "orderCreated": false}
		}, func(trx string) echo {
			return echo{topupdtest.PIDPubgBig, trx, "5123", "", "", "", "4.45", "completed"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trx := h.Trx()
			before := topupdtest.ParseUSD(t, h.Balance(a))
			r := h.Place(a, tc.body(trx))
			// The state is read back once final; whether POST itself already
			// answered it final is TestSimCompletesWithinPOST's business.
			final := h.WaitOrder(a, r.Str("orderId"))
			got := echo{r.Str("pid"), r.Str("trxid"), r.Str("userId"), r.Str("zoneId"), r.Str("serverId"), r.Str("moreId"), r.Num("amountUsd"), final.Str("status")}
			want := tc.want(trx)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s\nbody: %s", diff, r.Raw)
			}
			if charged := before - topupdtest.ParseUSD(t, h.Balance(a)); charged != topupdtest.ParseUSD(t, want.Amount) {
				t.Errorf("charged %v, want the catalog price %s", charged, want.Amount)
			}
		})
	}

	t.Run("idempotency alias is the idempotency key", func(t *testing.T) {
		first := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotency": "alias-key", "userId": "5123"})
		r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "alias-key", "userId": "5123"})
		if r.Status != 200 || r.Body["idempotentReplay"] != true || r.Str("orderId") != first.Str("orderId") {
			t.Errorf("the key under its other name: %v, want a replay of %s", r, first.Str("orderId"))
		}
		r = h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "idempotencyKey": "alias-key", "userId": "5124"})
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
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	tests := []struct {
		name          string
		first, second order
	}{
		{"idempotencyKey equal to an earlier trxid",
			order{"pid": topupdtest.PIDPubg, "trxid": "key-A", "userId": "5123"},
			order{"pid": topupdtest.PIDPubg, "trxid": "key-B", "idempotencyKey": "key-A", "userId": "5123"}},
		{"trxid equal to an earlier idempotencyKey",
			order{"pid": topupdtest.PIDPubg, "trxid": "key-C", "idempotencyKey": "key-D", "userId": "5123"},
			order{"pid": topupdtest.PIDPubg, "trxid": "key-D", "userId": "5123"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h.Place(a, tc.first)
			before := h.Snapshot(a)
			r := h.Do("POST", "/orders", a.Key, tc.second)
			if r.Status == 200 && r.Body["idempotentReplay"] != true {
				t.Errorf("a repeated key placed a new order: %s", r.Raw)
			}
			if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
				t.Errorf("a repeated key moved something (-before +after):\n%s", diff)
			}
		})
	}
}

// TestBlankTrxid: a trxid of only spaces is as missing as no trxid.
func TestBlankTrxid(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	before := h.Snapshot(a)
	for _, trx := range []string{" ", "   ", "\u00a0"} {
		r := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"})
		wantFailure(t, r, 400, "INVALID_REQUEST", "INVALID REQUEST")
	}
	if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
		t.Errorf("blank trxids moved something (-before +after):\n%s", diff)
	}
}
