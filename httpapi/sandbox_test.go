package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// sandboxKey makes a sandbox key of the account over the admin API and
// returns the account as that key sees it.
func sandboxKey(t *testing.T, h *topupdtest.T, a topupdtest.Account) topupdtest.Account {
	t.Helper()
	r := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+a.ID+"/keys", map[string]any{"sandbox": true, "label": "tests"})
	if !strings.HasPrefix(r.Str("apiKey"), "tpd_test_") || r.Body["sandbox"] != true {
		t.Fatalf("a sandbox key: %v, want an apiKey starting tpd_test_ and sandbox true", r)
	}
	h.Logs.Secret(r.Str("apiKey"), "the sandbox key of "+a.ID)
	return topupdtest.Account{ID: a.ID, Key: r.Str("apiKey"), KeyID: r.Str("keyId")}
}

// TestSandboxApart: a sandbox key runs the real order lifecycle on books
// of its own. It sees the live catalog and prices, starts at 1,000 USD, and
// its orders, trxids, history and balance are apart from the live ones
// both ways; a key order completes with TEST- codes drawn from no stock, a
// 9999 player is refused and refunded, and none of it reaches the live
// balance, stock, reports or order lists; the audit is clean after it.
func TestSandboxApart(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		live := h.NewAccount("20", nil)
		sb := sandboxKey(t, h, live)

		keys := h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+live.ID+"/keys", nil)
		flags := map[string]any{}
		for _, k := range keys.Body["keys"].([]any) {
			k := k.(map[string]any)
			flags[k["keyId"].(string)] = k["sandbox"]
		}
		if diff := cmp.Diff(map[string]any{live.KeyID: false, sb.KeyID: true}, flags); diff != "" {
			t.Errorf("key list's sandbox flags (-want +got):\n%s", diff)
		}
		if got := h.Balance(sb); got != "1000" {
			t.Errorf("a new sandbox's balance: %s, want 1000", got)
		}
		if diff := cmp.Diff(h.Products(live), h.Products(sb)); diff != "" {
			t.Errorf("the sandbox's catalog differs from the live one (-live +sandbox):\n%s", diff)
		}
		stock := h.Stock(live)

		// The same trxid, once in each: two orders, neither a replay of the other.
		trx := h.Trx()
		keyOrder := h.Place(sb, order{"pid": topupdtest.PIDKey, "trxid": trx, "quantity": 2})
		codes := stringsOf(keyOrder.Body["codes"])
		if keyOrder.Str("status") != "completed" || keyOrder.Body["sandbox"] != true || len(codes) != 2 ||
			!strings.HasPrefix(codes[0], "TEST-") || !strings.HasPrefix(codes[1], "TEST-") || codes[0] == codes[1] {
			t.Errorf("a sandbox key order: %v, want completed, sandbox, with 2 distinct TEST- codes", keyOrder)
		}
		liveOrder := h.Place(live, order{"pid": topupdtest.PIDPubg, "trxid": trx, "userId": "5123"})
		if liveOrder.Body["idempotentReplay"] != false || liveOrder.Has("sandbox") || liveOrder.Str("orderId") == keyOrder.Str("orderId") {
			t.Errorf("a live order with the sandbox order's trxid: %v, want a new live order without sandbox", liveOrder)
		}
		again := h.Place(sb, order{"pid": topupdtest.PIDKey, "trxid": trx, "quantity": 2})
		if again.Body["idempotentReplay"] != true || again.Str("orderId") != keyOrder.Str("orderId") ||
			!cmp.Equal(stringsOf(again.Body["codes"]), codes) {
			t.Errorf("the sandbox trxid again: %v, want a replay of %s with the same codes", again, keyOrder.Str("orderId"))
		}
		if diff := cmp.Diff(stock, h.Stock(sb)); diff != "" {
			t.Errorf("the sandbox sees stock moved by its own order (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(stock, h.Stock(live)); diff != "" {
			t.Errorf("a sandbox order moved live stock (-before +after):\n%s", diff)
		}

		// Neither key finds the other's orders.
		for _, c := range []struct {
			who   topupdtest.Account
			order string
		}{{live, keyOrder.Str("orderId")}, {sb, liveOrder.Str("orderId")}} {
			if r := h.Do("GET", "/orders/"+c.order, c.who.Key, nil); r.Status != http.StatusNotFound {
				t.Errorf("GET /orders/%s with the other books' key: %v, want 404", c.order, r)
			}
		}

		refused := h.Place(sb, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "99990001"})
		if refused.Str("status") != "cancelled" || refused.Str("error") != "INVALID PLAYER" || refused.Body["refunded"] != true {
			t.Errorf("a sandbox order for a 9999 player: %v, want cancelled INVALID PLAYER, refunded", refused)
		}
		done := h.Place(sb, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
		if done.Str("status") != "completed" || done.Body["sandbox"] != true {
			t.Errorf("a sandbox top-up: %v, want completed", done)
		}
		// 1000 - 2 keys - one pubg (the refused one refunded).
		wantSandbox := topupdtest.ParseUSD(t, "1000") - 2*topupdtest.ParseUSD(t, topupdtest.PriceKey) - topupdtest.ParseUSD(t, "0.89")
		if got := h.Balance(sb); got != wantSandbox.String() {
			t.Errorf("sandbox balance %s, want %s", got, wantSandbox)
		}
		if got := h.Balance(live); got != "19.11" {
			t.Errorf("live balance %s, want 19.11 (20 less one pubg)", got)
		}
		if n := h.HistoryCount(sb); n != 3 {
			t.Errorf("sandbox history: %d orders, want 3", n)
		}
		if n := h.HistoryCount(live); n != 1 {
			t.Errorf("live history: %d orders, want 1", n)
		}
		if n := len(h.Ledger(live)); n != 2 {
			t.Errorf("live ledger: %d entries, want 2 (the credit and one charge)", n)
		}

		// The operator's lists: live orders alone, unless sandbox=true.
		listed := func(query string) (ids []string) {
			r := h.AdminOK(http.StatusOK, "GET", "/admin/orders?"+query, nil)
			for _, o := range r.Body["orders"].([]any) {
				o := o.(map[string]any)
				if o["accountId"] != live.ID || (o["sandbox"] == true) != strings.Contains(query, "sandbox=true") {
					t.Errorf("GET /admin/orders?%s lists %v", query, o)
				}
				ids = append(ids, o["orderId"].(string))
			}
			return ids
		}
		if diff := cmp.Diff([]string{liveOrder.Str("orderId")}, listed("accountId="+live.ID)); diff != "" {
			t.Errorf("live order list (-want +got):\n%s", diff)
		}
		wantSandboxIDs := []string{done.Str("orderId"), refused.Str("orderId"), keyOrder.Str("orderId")}
		if diff := cmp.Diff(wantSandboxIDs, listed("sandbox=true&accountId="+live.ID)); diff != "" {
			t.Errorf("sandbox order list (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantSandboxIDs, listed("sandbox=true")); diff != "" {
			t.Errorf("every sandbox order (-want +got):\n%s", diff)
		}
		if r := h.AdminDo("GET", "/admin/orders?sandbox=maybe", nil); r.Status != http.StatusBadRequest {
			t.Errorf("sandbox=maybe: %v, want 400", r)
		}
		if got := h.AdminOrder(keyOrder.Str("orderId")); got.AccountID != live.ID {
			t.Errorf("admin view of a sandbox order: account %q, want %q", got.AccountID, live.ID)
		}

		// Reports count the live order alone.
		q := url.Values{"from": {time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, "to": {time.Now().Add(time.Hour).UTC().Format(time.RFC3339)},
			"groupBy": {"account"}}
		report := h.AdminOK(http.StatusOK, "GET", "/admin/reports/sales?"+q.Encode(), nil)
		rows, _ := report.Body["rows"].([]any)
		if len(rows) != 1 || rows[0].(map[string]any)["key"] != live.ID || fmt.Sprint(rows[0].(map[string]any)["orders"]) != "1" {
			t.Errorf("sales report: %v, want the live order alone", report)
		}
		// A sandbox check follows the sim rules, even for a pack that draws stock.
		for key, want := range map[string]string{sb.Key: "true", live.Key: ""} {
			r := h.Do("POST", "/players/check", key, order{"pid": topupdtest.PIDKey})
			if r.Status != http.StatusOK || fmt.Sprint(r.Body["valid"] == true) != fmt.Sprint(want == "true") {
				t.Errorf("a player check of a stock pack (sandbox %v): %v", key == sb.Key, r)
			}
		}
		if r := h.Do("POST", "/players/check", sb.Key, order{"pid": topupdtest.PIDPubg, "userId": "99990001"}); r.Body["valid"] != false {
			t.Errorf("a sandbox check of a 9999 player: %v, want not valid", r)
		}
		// GET /events: each key sees its own books' events, in time.
		events := func(key string) (orders []string) {
			r := h.Do("GET", "/events", key, nil)
			for _, e := range r.Body["events"].([]any) {
				data, _ := e.(map[string]any)["data"].(map[string]any)
				if id, ok := data["orderId"].(string); ok {
					orders = append(orders, id)
					if (data["sandbox"] == true) != (key == sb.Key) {
						t.Errorf("GET /events (sandbox %v): %v", key == sb.Key, e)
					}
				}
			}
			return orders
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(events(sb.Key)) < 3 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if got := events(sb.Key); len(got) != 3 {
			t.Errorf("the sandbox's order events: %v, want its 3 orders'", got)
		}
		for _, id := range events(live.Key) {
			if id != liveOrder.Str("orderId") {
				t.Errorf("GET /events with the live key shows order %s", id)
			}
		}
		h.AuditClean()
	})
}

// TestSandboxBalanceAndLimits: the operator credits and debits the
// sandbox balance apart from the live one, never below 0; a sandbox order
// is refused for an insufficient sandbox balance as a live one is, and is
// held to no spending limit.
func TestSandboxBalanceAndLimits(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		live := h.NewAccount("10", map[string]any{"maxOrderUsd": 0.5, "dailyLimitUsd": 0.5})
		credit := func(amount string) topupdtest.Reply {
			return h.AdminDo("POST", "/admin/accounts/"+live.ID+"/credits", map[string]any{"amountUsd": topupdtest.USD(amount), "reference": h.Trx(), "sandbox": true})
		}
		// A sandbox credit before any sandbox key opens the sandbox at 1,000 USD.
		if r := credit("5"); r.Status != http.StatusOK || r.Num("balanceUsd") != "1005" {
			t.Fatalf("a first sandbox credit: %v, want balanceUsd 1005", r)
		}
		sb := sandboxKey(t, h, live)
		if got := h.Balance(sb); got != "1005" {
			t.Errorf("sandbox balance %s, want 1005", got)
		}
		if r := credit("-1005.01"); r.Status != http.StatusBadRequest || r.Str("code") != "INSUFFICIENT_BALANCE" {
			t.Errorf("a debit below 0: %v, want 400 INSUFFICIENT_BALANCE", r)
		}
		if r := credit("-1004.5"); r.Status != http.StatusOK || r.Num("balanceUsd") != "0.5" {
			t.Errorf("a debit to 0.5: %v", r)
		}
		if got := h.Balance(live); got != "10" {
			t.Errorf("live balance %s after sandbox credits, want 10", got)
		}
		before := h.Snapshot(sb)
		r := h.Do("POST", "/orders", sb.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
		if r.Status != http.StatusBadRequest || r.Body["orderCreated"] != false || r.Str("error") != "INSUFFICIENT BALANCE" {
			t.Errorf("a sandbox order above the sandbox balance: %v, want the rejected form with INSUFFICIENT BALANCE", r)
		}
		if diff := cmp.Diff(before, h.Snapshot(sb)); diff != "" {
			t.Errorf("a refused sandbox order changed the sandbox (-before +after):\n%s", diff)
		}
		credit("100")
		// The live account's limits (0.5 a order, 0.5 a day) hold its live orders alone.
		wantSpendLimit(t, h.Do("POST", "/orders", live.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}), "a live order above maxOrderUsd")
		for range 3 {
			h.Place(sb, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
		}
		if got := h.Balance(live); got != "10" {
			t.Errorf("live balance %s, want 10", got)
		}
		h.AuditClean()
	})
}

// TestSandboxWithSimOff: with --sim off, a sandbox order still follows the
// sim rules, whatever its pack's supplier: a manual pack's top-up completes
// (after simDelayMs, polled) and its 9999 player is refused and refunded,
// while a live order of the same pack waits for the operator.
func TestSandboxWithSimOff(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.PutLine("pubg", map[string]any{"productName": "PUBG Mobile", "gameName": "PUBG Mobile", "game": "pubg", "kind": "topup",
			"status": "active", "required": []any{map[string]any{"field": "userId", "label": "Player ID"}}})
		h.PutPack("pubg-manual", map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": 1, "status": "active", "provider": "manual"})
		h.Settings(map[string]any{"simDelayMs": 50})
		live := h.NewAccount("10", nil)
		sb := sandboxKey(t, h, live)
		placed := h.Place(sb, order{"pid": "pubg-manual", "trxid": h.Trx(), "userId": "5123"})
		if got := h.WaitOrder(sb, placed.Str("orderId")); got.Str("status") != "completed" || got.Body["sandbox"] != true {
			t.Errorf("a sandbox order of a manual pack with sim off: %v, want completed", got)
		}
		placed = h.Place(sb, order{"pid": "pubg-manual", "trxid": h.Trx(), "userId": "99991234"})
		if got := h.WaitOrder(sb, placed.Str("orderId")); got.Str("error") != "INVALID PLAYER" || got.Body["refunded"] != true {
			t.Errorf("a sandbox order for a 9999 player with sim off: %v, want cancelled INVALID PLAYER, refunded", got)
		}
		if r := h.Place(live, order{"pid": "pubg-manual", "trxid": h.Trx(), "userId": "5123"}); r.Str("status") != "processing" || r.Has("sandbox") {
			t.Errorf("a live order of the manual pack: %v, want processing, for the operator", r)
		}
		if got := h.Balance(sb); got != "999" {
			t.Errorf("sandbox balance %s, want 999", got)
		}

		// A key pack an upstream fulfils has no stock of its own: its
		// sandbox orders complete at once with TEST- codes all the same
		// (the simulator found them completing with none).
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/up", map[string]any{"baseUrl": "http://127.0.0.1:9", "apiKey": "k", "check": false})
		h.PutLine("keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "keys", "kind": "gamekey", "status": "active"})
		h.PutPack("key-up", map[string]any{"slug": "keys", "name": "Key", "priceUsd": 2, "status": "active",
			"provider": "upstream", "upstream": "up", "upstreamPid": "K1"})
		keyOrder := h.Place(sb, order{"pid": "key-up", "trxid": h.Trx(), "quantity": 2})
		codes := stringsOf(keyOrder.Body["codes"])
		if keyOrder.Str("status") != "completed" || len(codes) != 2 || !strings.HasPrefix(codes[0], "TEST-") || !strings.HasPrefix(codes[1], "TEST-") {
			t.Errorf("a sandbox order of an upstream's key pack: %v, want completed at once with 2 TEST- codes", keyOrder)
		}
		if got := h.Balance(sb); got != "995" {
			t.Errorf("sandbox balance %s, want 995", got)
		}
	}, topupdtest.WithSimOff())
}
