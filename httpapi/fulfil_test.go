package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// orderShape is the part of an order answer these tests compare.
type orderShape struct {
	HTTP         int
	OrderCreated any
	Status       string
	Game         string
	PackName     string
	Amount       string
	UserID       string
	Error        string
	Refunded     any
	Replay       any
	Codes        int
}

func shapeOf(r reply) orderShape {
	return orderShape{r.status, r.body["orderCreated"], r.str("status"), r.str("game"), r.str("packName"), r.num("amountUsd"),
		r.str("userId"), r.str("error"), r.body["refunded"], r.body["idempotentReplay"], len(stringsOf(r.body["codes"]))}
}

// kinds lists the kinds and amounts of ledger entries, oldest first.
func kinds(entries []entry) [][2]string {
	var out [][2]string
	for i := len(entries) - 1; i >= 0; i-- {
		out = append(out, [2]string{entries[i].Kind, entries[i].AmountUsd})
	}
	return out
}

// TestSimTopups: the sim provider as the operator contract documents it.
func TestSimTopups(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()

	t.Run("completes", func(t *testing.T) {
		a := h.newAccount("10", nil)
		r := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"})
		if r.str("orderId") == "" || !r.has("durationSec") || r.body["idempotentReplay"] != false {
			t.Errorf("POST /orders: %s", r.raw)
		}
		want := orderShape{200, true, "completed", "pubg", "60 UC", "0.89", "5123", "", nil, nil, 0}
		if diff := cmp.Diff(want, shapeOf(h.waitOrder(a, r.str("orderId")))); diff != "" {
			t.Errorf("GET /orders (-want +got):\n%s", diff)
		}
		if got := h.balance(a); got != "9.11" {
			t.Errorf("balance = %s, want 9.11", got)
		}
		if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-0.89"}}, kinds(h.ledger(a))); diff != "" {
			t.Errorf("ledger (-want +got):\n%s", diff)
		}
	})

	t.Run("invalid player is cancelled and refunded once", func(t *testing.T) {
		a := h.newAccount("10", nil)
		r := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "99991234"})
		want := orderShape{200, true, "cancelled", "pubg", "60 UC", "0.89", "99991234", "INVALID PLAYER", true, nil, 0}
		if diff := cmp.Diff(want, shapeOf(h.waitOrder(a, r.str("orderId")))); diff != "" {
			t.Errorf("GET /orders (-want +got):\n%s", diff)
		}
		// Give the engine time to do anything it would wrongly do twice.
		time.Sleep(200 * time.Millisecond)
		if got := h.balance(a); got != "10" {
			t.Errorf("balance = %s, want 10 (restored)", got)
		}
		wantLedger := [][2]string{{"credit", "10"}, {"charge", "-0.89"}, {"refund", "0.89"}}
		entries := h.ledger(a)
		if diff := cmp.Diff(wantLedger, kinds(entries)); diff != "" {
			t.Errorf("ledger (-want +got):\n%s", diff)
		}
		for _, e := range entries[:2] {
			if e.OrderID != r.str("orderId") {
				t.Errorf("%s entry names order %q, want %q", e.Kind, e.OrderID, r.str("orderId"))
			}
		}
		// A replay of the failed order neither charges nor refunds again.
		rep := h.do("POST", "/orders", a.key, order{"pid": pidPubg, "trxid": r.str("trxid"), "userId": "99991234"})
		if rep.status != 200 || rep.body["idempotentReplay"] != true || rep.str("status") != "cancelled" || rep.body["refunded"] != true {
			t.Errorf("replay of the cancelled order: %v", rep)
		}
		if diff := cmp.Diff(wantLedger, kinds(h.ledger(a))); diff != "" {
			t.Errorf("ledger after replay (-want +got):\n%s", diff)
		}
	})
}

// TestSimCompletesWithinPOST: with simDelayMs 0 a sim top-up is final in the
// answer to POST /orders itself: completed, or cancelled and refunded for a
// 9999 player.
func TestSimCompletesWithinPOST(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	for i := 0; i < 20; i++ {
		user, want := "5123", orderShape{200, true, "completed", "pubg", "60 UC", "0.89", "5123", "", nil, false, 0}
		if i%4 == 3 {
			user, want = "99990000", orderShape{200, true, "cancelled", "pubg", "60 UC", "0.89", "99990000", "INVALID PLAYER", true, false, 0}
		}
		r := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": user})
		if diff := cmp.Diff(want, shapeOf(r)); diff != "" {
			t.Errorf("POST /orders %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestSimDelay: with simDelayMs the order is processing at first and
// completes (or fails) later, observed by polling.
func TestSimDelay(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	h.settings(map[string]any{"simDelayMs": 1000})
	a := h.newAccount("10", nil)

	ok := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"})
	bad := h.place(a, order{"pid": pidPubgBig, "trxid": h.trx(), "userId": "9999"})
	for _, r := range []reply{ok, bad} {
		if r.str("status") != "processing" || r.has("refunded") || r.has("error") {
			t.Errorf("fresh delayed order: %s", r.raw)
		}
	}
	if got := h.balance(a); got != "4.66" {
		t.Errorf("balance while processing = %s, want 4.66", got)
	}
	done := h.waitOrder(a, ok.str("orderId"))
	if diff := cmp.Diff(orderShape{200, true, "completed", "pubg", "60 UC", "0.89", "5123", "", nil, nil, 0}, shapeOf(done)); diff != "" {
		t.Errorf("completed order (-want +got):\n%s", diff)
	}
	failed := h.waitOrder(a, bad.str("orderId"))
	if diff := cmp.Diff(orderShape{200, true, "cancelled", "pubg", "325 UC", "4.45", "9999", "INVALID PLAYER", true, nil, 0}, shapeOf(failed)); diff != "" {
		t.Errorf("failed order (-want +got):\n%s", diff)
	}
	time.Sleep(200 * time.Millisecond)
	if got := h.balance(a); got != "9.11" {
		t.Errorf("balance = %s, want 9.11", got)
	}
	if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-0.89"}, {"charge", "-4.45"}, {"refund", "4.45"}}, kinds(h.ledger(a))); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
}

// TestKeyOrders: key and card orders complete within POST with quantity
// distinct codes from the stock, readable again by public and internal id.
func TestKeyOrders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("100", nil)
	h.addStock(pidKey, 5) // 15 in all
	seen := map[string]bool{}
	for _, tc := range []struct {
		pid   string
		qty   int // 0: none sent
		want  int
		price string
	}{
		{pidKey, 3, 3, "3.6"},
		{pidKey, 0, 1, "1.2"},
		{pidKey, 1, 1, "1.2"},
		{pidGift, 2, 2, "20.4"},
		{pidPubgCodes, 3, 3, "2.7"},
	} {
		body := order{"pid": tc.pid, "trxid": h.trx()}
		if tc.qty > 0 {
			body["quantity"] = tc.qty
		}
		if tc.pid == pidPubgCodes {
			body["userId"] = "5123"
		}
		before := money(t, h.balance(a))
		r := h.place(a, body)
		codes := stringsOf(r.body["codes"])
		if r.str("status") != "completed" || len(codes) != tc.want || r.num("amountUsd") != tc.price || r.num("quantity") != strconv.Itoa(tc.want) {
			t.Errorf("%s ×%d: %s", tc.pid, tc.qty, r.raw)
		}
		for _, c := range codes {
			if seen[c] {
				t.Errorf("code %s delivered twice", c)
			}
			seen[c] = true
			if !strings.HasPrefix(c, strings.ToUpper(tc.pid)+"-CODE-") {
				t.Errorf("code %s of %s was never stocked for it", c, tc.pid)
			}
		}
		if charged := before - money(t, h.balance(a)); charged != money(t, tc.price) {
			t.Errorf("%s: charged %v, want %s", tc.pid, charged, tc.price)
		}
		// Read it back by public and by internal id.
		internal := h.adminOK(200, "GET", "/admin/orders/"+r.str("orderId"), nil)
		if internal.str("accountId") != a.id || internal.str("orderId") != r.str("orderId") {
			t.Errorf("admin view: %s", internal.raw)
		}
		for _, id := range []string{r.str("orderId"), internal.str("id")} {
			g := h.do("GET", "/orders/"+id, a.key, nil)
			if g.status != 200 || g.str("orderId") != r.str("orderId") {
				t.Fatalf("GET /orders/%s: %v", id, g)
			}
			if diff := cmp.Diff(codes, stringsOf(g.body["codes"])); diff != "" {
				t.Errorf("GET /orders/%s codes (-post +get):\n%s", id, diff)
			}
		}
	}
}

// TestManualOrders: a manual order stays processing until the operator
// completes or cancels it; a final order is 409 and moves nothing.
func TestManualOrders(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	a := h.newAccount("10", nil)

	first := h.place(a, order{"pid": pidPubgManual, "trxid": h.trx(), "userId": "5123"})
	second := h.place(a, order{"pid": pidPubgManual, "trxid": h.trx(), "userId": "5123"})
	third := h.place(a, order{"pid": pidPubgManual, "trxid": h.trx(), "userId": "5123"})
	simple := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"})
	for _, r := range []reply{first, second, third} {
		if r.str("status") != "processing" {
			t.Fatalf("manual order: %s", r.raw)
		}
	}
	time.Sleep(300 * time.Millisecond) // the engine runs meanwhile
	if g := h.do("GET", "/orders/"+first.str("orderId"), a.key, nil); g.str("status") != "processing" {
		t.Errorf("manual order left alone: %s", g.raw)
	}
	listed := h.adminOK(200, "GET", "/admin/orders?status=processing", nil)
	if n := len(listed.body["orders"].([]any)); n != 3 {
		t.Errorf("admin lists %d processing orders, want 3: %s", n, listed.raw)
	}
	if got := h.balance(a); got != "3.11" {
		t.Errorf("balance = %s, want 3.11", got)
	}

	// Complete with codes.
	done := h.adminOK(200, "POST", "/admin/orders/"+first.str("orderId")+"/complete", map[string]any{"codes": []string{"MAN-1", "MAN-2"}})
	if done.str("status") != "completed" || cmp.Diff([]string{"MAN-1", "MAN-2"}, stringsOf(done.body["codes"])) != "" {
		t.Errorf("admin complete: %s", done.raw)
	}
	g := h.do("GET", "/orders/"+first.str("orderId"), a.key, nil)
	if diff := cmp.Diff([]string{"MAN-1", "MAN-2"}, stringsOf(g.body["codes"])); g.str("status") != "completed" || diff != "" {
		t.Errorf("GET completed manual order: %s", g.raw)
	}

	// Cancel with refund.
	c := h.adminOK(200, "POST", "/admin/orders/"+second.str("orderId")+"/cancel", map[string]any{"error": "OUT OF STOCK", "refund": true})
	if diff := cmp.Diff(orderShape{200, true, "cancelled", "pubg", "Manual UC pack", "2", "5123", "OUT OF STOCK", true, nil, 0}, shapeOf(c)); diff != "" {
		t.Errorf("admin cancel (-want +got):\n%s", diff)
	}
	g = h.do("GET", "/orders/"+second.str("orderId"), a.key, nil)
	if diff := cmp.Diff(orderShape{200, true, "cancelled", "pubg", "Manual UC pack", "2", "5123", "OUT OF STOCK", true, nil, 0}, shapeOf(g)); diff != "" {
		t.Errorf("GET cancelled (-want +got):\n%s", diff)
	}
	if got := h.balance(a); got != "5.11" {
		t.Errorf("balance after refund = %s, want 5.11", got)
	}

	// Cancel without refund.
	c = h.adminOK(200, "POST", "/admin/orders/"+third.str("orderId")+"/cancel", map[string]any{"error": "FRAUD", "refund": false})
	if c.str("status") != "cancelled" || c.body["refunded"] != false {
		t.Errorf("cancel without refund: %s", c.raw)
	}

	// Nothing final moves again.
	ledger := h.ledger(a)
	bal := h.balance(a)
	for _, id := range []string{first.str("orderId"), second.str("orderId"), third.str("orderId"), simple.str("orderId")} {
		for _, op := range []struct {
			path string
			body any
		}{
			{"/complete", map[string]any{"codes": []string{"AGAIN"}}},
			{"/complete", nil},
			{"/cancel", map[string]any{"refund": true}},
			{"/cancel", map[string]any{"error": "x", "refund": false}},
		} {
			r := h.adminDo("POST", "/admin/orders/"+id+op.path, op.body)
			if r.status != http.StatusConflict || r.str("code") != "ORDER_FINAL" {
				t.Errorf("%s%s on a final order: %v, want 409 ORDER_FINAL", id, op.path, r)
			}
		}
	}
	if diff := cmp.Diff(ledger, h.ledger(a)); diff != "" {
		t.Errorf("ledger moved (-before +after):\n%s", diff)
	}
	if got := h.balance(a); got != bal {
		t.Errorf("balance moved: %s → %s", bal, got)
	}
	refunds := 0
	for _, e := range h.ledger(a) {
		if e.Kind == "refund" {
			refunds++
			if e.OrderID != second.str("orderId") {
				t.Errorf("refund of %s", e.OrderID)
			}
		}
	}
	if refunds != 1 {
		t.Errorf("%d refunds, want 1", refunds)
	}
	// The final states stick.
	for id, want := range map[string]string{first.str("orderId"): "completed", second.str("orderId"): "cancelled", third.str("orderId"): "cancelled"} {
		if g := h.do("GET", "/orders/"+id, a.key, nil); g.str("status") != want {
			t.Errorf("order %s is %s, want %s", id, g.str("status"), want)
		}
	}
	// Unknown orders are 404 for the operator.
	if r := h.adminDo("POST", "/admin/orders/ord_nope/complete", nil); r.status != 404 {
		t.Errorf("complete unknown: %v", r)
	}
}

// TestSupplierCalledOnceAtATime: an order just placed is leased to the
// request that placed it, so the engine's own loop must not claim it while
// that first supplier call runs. With a slow supplier, each order is
// answered completed within POST after exactly one Submit, and no two calls
// for one order ever overlap.
func TestSupplierCalledOnceAtATime(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadCatalog()
	h.settings(map[string]any{"simCallMs": 300})
	a := h.newAccount("10", nil)
	for i := 0; i < 3; i++ {
		r := h.place(a, order{"pid": pidPubg, "trxid": h.trx(), "userId": "5123"})
		id := r.str("orderId")
		if r.str("status") != "completed" {
			t.Errorf("order %s answered %s, want completed within POST", id, r.str("status"))
		}
		h.waitOrder(a, id)
		// [most calls at once, submits, all calls]
		if got := h.calls.stats(id); got != [3]int{1, 1, 1} {
			t.Errorf("order %s supplier calls [max at once, submits, total] = %v, want [1 1 1]", id, got)
		}
	}
}

// TestDeadline: a manual order past its deadline is not refunded, since the
// operator may have delivered it by hand: it stays processing, listed as
// stuck with an alert (and its supplier alerting), until the operator
// cancels it, which refunds it once.
func TestDeadline(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDeadline(700*time.Millisecond))
	h.loadCatalog()
	a := h.newAccount("10", nil)
	r := h.place(a, order{"pid": pidPubgManual, "trxid": h.trx(), "userId": "5123"})
	if r.str("status") != "processing" {
		t.Fatalf("manual order: %s", r.raw)
	}
	id := r.str("orderId")
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		got := h.adminOK(http.StatusOK, "GET", "/admin/orders/"+id, nil)
		if got.str("status") != "processing" {
			t.Fatalf("past its deadline the manual order ended: %v", got)
		}
		if got.str("alert") == topupd.AlertPastDeadline {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no alert on the order past its deadline: %v", got)
		}
	}
	stuck := h.adminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil)
	if items, _ := stuck.body["orders"].([]any); len(items) != 1 || items[0].(map[string]any)["alert"] != topupd.AlertPastDeadline {
		t.Errorf("stuck orders: %v", stuck)
	}
	provs := h.adminOK(http.StatusOK, "GET", "/admin/providers", nil)
	found := false
	for _, p := range provs.body["providers"].([]any) {
		p := p.(map[string]any)
		if p["provider"] == "manual" {
			found = p["alert"] == true && p["stuckOrders"] == json.Number("1")
		}
	}
	if !found {
		t.Errorf("providers do not show the manual supplier alerting with 1 stuck order: %v", provs)
	}
	if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-2"}}, kinds(h.ledger(a))); diff != "" {
		t.Errorf("ledger while stuck (-want +got):\n%s", diff)
	}
	h.adminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/cancel", map[string]any{"error": "NOT DELIVERED", "refund": true})
	final := h.waitOrder(a, id)
	want := orderShape{200, true, "cancelled", "pubg", "Manual UC pack", "2", "5123", "NOT DELIVERED", true, nil, 0}
	if diff := cmp.Diff(want, shapeOf(final)); diff != "" {
		t.Errorf("order after the operator cancelled it (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-2"}, {"refund", "2"}}, kinds(h.ledger(a))); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	if r := h.adminDo("POST", "/admin/orders/"+id+"/complete", nil); r.status != http.StatusConflict {
		t.Errorf("completing the cancelled order: %v", r)
	}
}
