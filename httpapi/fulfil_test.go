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
	"github.com/topupd/topupd/internal/testing/topupdtest"
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

func shapeOf(r topupdtest.Reply) orderShape {
	return orderShape{r.Status, r.Body["orderCreated"], r.Str("status"), r.Str("game"), r.Str("packName"), r.Num("amountUsd"),
		r.Str("userId"), r.Str("error"), r.Body["refunded"], r.Body["idempotentReplay"], len(stringsOf(r.Body["codes"]))}
}

// kinds lists the kinds and amounts of ledger entries, oldest first.
func kinds(entries []topupdtest.Entry) [][2]string {
	var out [][2]string
	for i := len(entries) - 1; i >= 0; i-- {
		out = append(out, [2]string{entries[i].Kind, entries[i].AmountUsd})
	}
	return out
}

// TestSimTopups: the sim provider as the operator contract documents it.
func TestSimTopups(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()

	t.Run("completes", func(t *testing.T) {
		a := h.NewAccount("10", nil)
		r := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
		if r.Str("orderId") == "" || !r.Has("durationSec") || r.Body["idempotentReplay"] != false {
			t.Errorf("POST /orders: %s", r.Raw)
		}
		want := orderShape{200, true, "completed", "pubg", "60 UC", "0.89", "5123", "", nil, nil, 0}
		if diff := cmp.Diff(want, shapeOf(h.WaitOrder(a, r.Str("orderId")))); diff != "" {
			t.Errorf("GET /orders (-want +got):\n%s", diff)
		}
		if got := h.Balance(a); got != "9.11" {
			t.Errorf("balance = %s, want 9.11", got)
		}
		if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-0.89"}}, kinds(h.Ledger(a))); diff != "" {
			t.Errorf("ledger (-want +got):\n%s", diff)
		}
	})

	t.Run("invalid player is cancelled and refunded once", func(t *testing.T) {
		a := h.NewAccount("10", nil)
		r := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "99991234"})
		want := orderShape{200, true, "cancelled", "pubg", "60 UC", "0.89", "99991234", "INVALID PLAYER", true, nil, 0}
		if diff := cmp.Diff(want, shapeOf(h.WaitOrder(a, r.Str("orderId")))); diff != "" {
			t.Errorf("GET /orders (-want +got):\n%s", diff)
		}
		// Give the engine time to do anything it would wrongly do twice.
		time.Sleep(200 * time.Millisecond)
		if got := h.Balance(a); got != "10" {
			t.Errorf("balance = %s, want 10 (restored)", got)
		}
		wantLedger := [][2]string{{"credit", "10"}, {"charge", "-0.89"}, {"refund", "0.89"}}
		entries := h.Ledger(a)
		if diff := cmp.Diff(wantLedger, kinds(entries)); diff != "" {
			t.Errorf("ledger (-want +got):\n%s", diff)
		}
		for _, e := range entries[:2] {
			if e.OrderID != r.Str("orderId") {
				t.Errorf("%s entry names order %q, want %q", e.Kind, e.OrderID, r.Str("orderId"))
			}
		}
		// A replay of the failed order neither charges nor refunds again.
		rep := h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": r.Str("trxid"), "userId": "99991234"})
		if rep.Status != 200 || rep.Body["idempotentReplay"] != true || rep.Str("status") != "cancelled" || rep.Body["refunded"] != true {
			t.Errorf("replay of the cancelled order: %v", rep)
		}
		if diff := cmp.Diff(wantLedger, kinds(h.Ledger(a))); diff != "" {
			t.Errorf("ledger after replay (-want +got):\n%s", diff)
		}
	})
}

// TestSimCompletesWithinPOST: with simDelayMs 0 a sim top-up is final in the
// answer to POST /orders itself: completed, or cancelled and refunded for a
// 9999 player.
func TestSimCompletesWithinPOST(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	for i := 0; i < 20; i++ {
		user, want := "5123", orderShape{200, true, "completed", "pubg", "60 UC", "0.89", "5123", "", nil, false, 0}
		if i%4 == 3 {
			user, want = "99990000", orderShape{200, true, "cancelled", "pubg", "60 UC", "0.89", "99990000", "INVALID PLAYER", true, false, 0}
		}
		r := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": user})
		if diff := cmp.Diff(want, shapeOf(r)); diff != "" {
			t.Errorf("POST /orders %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestSimDelay: with simDelayMs the order is processing at first and
// completes (or fails) later, observed by polling.
func TestSimDelay(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	h.Settings(map[string]any{"simDelayMs": 1000})
	a := h.NewAccount("10", nil)

	ok := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
	bad := h.Place(a, order{"pid": topupdtest.PIDPubgBig, "trxid": h.Trx(), "userId": "9999"})
	for _, r := range []topupdtest.Reply{ok, bad} {
		if r.Str("status") != "processing" || r.Has("refunded") || r.Has("error") {
			t.Errorf("fresh delayed order: %s", r.Raw)
		}
	}
	if got := h.Balance(a); got != "4.66" {
		t.Errorf("balance while processing = %s, want 4.66", got)
	}
	done := h.WaitOrder(a, ok.Str("orderId"))
	if diff := cmp.Diff(orderShape{200, true, "completed", "pubg", "60 UC", "0.89", "5123", "", nil, nil, 0}, shapeOf(done)); diff != "" {
		t.Errorf("completed order (-want +got):\n%s", diff)
	}
	failed := h.WaitOrder(a, bad.Str("orderId"))
	if diff := cmp.Diff(orderShape{200, true, "cancelled", "pubg", "325 UC", "4.45", "9999", "INVALID PLAYER", true, nil, 0}, shapeOf(failed)); diff != "" {
		t.Errorf("failed order (-want +got):\n%s", diff)
	}
	time.Sleep(200 * time.Millisecond)
	if got := h.Balance(a); got != "9.11" {
		t.Errorf("balance = %s, want 9.11", got)
	}
	if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-0.89"}, {"charge", "-4.45"}, {"refund", "4.45"}}, kinds(h.Ledger(a))); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
}

// TestKeyOrders: key and card orders complete within POST with quantity
// distinct codes from the stock, readable again by public and internal id.
func TestKeyOrders(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("100", nil)
	h.AddStock(topupdtest.PIDKey, 5) // 15 in all
	seen := map[string]bool{}
	for _, tc := range []struct {
		pid   string
		qty   int // 0: none sent
		want  int
		price string
	}{
		{topupdtest.PIDKey, 3, 3, "3.6"},
		{topupdtest.PIDKey, 0, 1, "1.2"},
		{topupdtest.PIDKey, 1, 1, "1.2"},
		{topupdtest.PIDGift, 2, 2, "20.4"},
		{topupdtest.PIDPubgCodes, 3, 3, "2.7"},
	} {
		body := order{"pid": tc.pid, "trxid": h.Trx()}
		if tc.qty > 0 {
			body["quantity"] = tc.qty
		}
		if tc.pid == topupdtest.PIDPubgCodes {
			body["userId"] = "5123"
		}
		before := topupdtest.ParseUSD(t, h.Balance(a))
		r := h.Place(a, body)
		codes := stringsOf(r.Body["codes"])
		if r.Str("status") != "completed" || len(codes) != tc.want || r.Num("amountUsd") != tc.price || r.Num("quantity") != strconv.Itoa(tc.want) {
			t.Errorf("%s ×%d: %s", tc.pid, tc.qty, r.Raw)
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
		if charged := before - topupdtest.ParseUSD(t, h.Balance(a)); charged != topupdtest.ParseUSD(t, tc.price) {
			t.Errorf("%s: charged %v, want %s", tc.pid, charged, tc.price)
		}
		// Read it back by public and by internal id.
		internal := h.AdminOK(200, "GET", "/admin/orders/"+r.Str("orderId"), nil)
		if internal.Str("accountId") != a.ID || internal.Str("orderId") != r.Str("orderId") {
			t.Errorf("admin view: %s", internal.Raw)
		}
		for _, id := range []string{r.Str("orderId"), internal.Str("id")} {
			g := h.Do("GET", "/orders/"+id, a.Key, nil)
			if g.Status != 200 || g.Str("orderId") != r.Str("orderId") {
				t.Fatalf("GET /orders/%s: %v", id, g)
			}
			if diff := cmp.Diff(codes, stringsOf(g.Body["codes"])); diff != "" {
				t.Errorf("GET /orders/%s codes (-post +get):\n%s", id, diff)
			}
		}
	}
}

// TestManualOrders: a manual order stays processing until the operator
// completes or cancels it; a final order is 409 and moves nothing.
func TestManualOrders(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)

	first := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"})
	second := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"})
	third := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"})
	simple := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
	for _, r := range []topupdtest.Reply{first, second, third} {
		if r.Str("status") != "processing" {
			t.Fatalf("manual order: %s", r.Raw)
		}
	}
	time.Sleep(300 * time.Millisecond) // the engine runs meanwhile
	if g := h.Do("GET", "/orders/"+first.Str("orderId"), a.Key, nil); g.Str("status") != "processing" {
		t.Errorf("manual order left alone: %s", g.Raw)
	}
	listed := h.AdminOK(200, "GET", "/admin/orders?status=processing", nil)
	if n := len(listed.Body["orders"].([]any)); n != 3 {
		t.Errorf("admin lists %d processing orders, want 3: %s", n, listed.Raw)
	}
	if got := h.Balance(a); got != "3.11" {
		t.Errorf("balance = %s, want 3.11", got)
	}

	// A top-up delivers no codes: completing it with some is refused, and
	// changes nothing (codes delivered by hand: TestCodesUniqueEverywhere).
	before := h.Snapshot(a)
	r := h.AdminDo("POST", "/admin/orders/"+first.Str("orderId")+"/complete", map[string]any{"codes": []string{"MAN-1"}})
	if r.Status != 400 || r.Str("code") != "INVALID_BODY" {
		t.Errorf("a manual top-up completed with codes: %s, want 400 INVALID_BODY", r)
	}
	if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
		t.Errorf("the refused completion moved something (-before +after):\n%s", diff)
	}
	// Complete.
	done := h.AdminOK(200, "POST", "/admin/orders/"+first.Str("orderId")+"/complete", map[string]any{"codes": []string{}})
	if done.Str("status") != "completed" || len(stringsOf(done.Body["codes"])) != 0 {
		t.Errorf("admin complete: %s", done.Raw)
	}
	g := h.Do("GET", "/orders/"+first.Str("orderId"), a.Key, nil)
	if g.Str("status") != "completed" || g.Has("codes") && len(stringsOf(g.Body["codes"])) != 0 {
		t.Errorf("GET completed manual order: %s", g.Raw)
	}

	// Cancel with refund.
	c := h.AdminOK(200, "POST", "/admin/orders/"+second.Str("orderId")+"/cancel", map[string]any{"error": "OUT OF STOCK", "refund": true})
	if diff := cmp.Diff(orderShape{200, true, "cancelled", "pubg", "Manual UC pack", "2", "5123", "OUT OF STOCK", true, nil, 0}, shapeOf(c)); diff != "" {
		t.Errorf("admin cancel (-want +got):\n%s", diff)
	}
	g = h.Do("GET", "/orders/"+second.Str("orderId"), a.Key, nil)
	if diff := cmp.Diff(orderShape{200, true, "cancelled", "pubg", "Manual UC pack", "2", "5123", "OUT OF STOCK", true, nil, 0}, shapeOf(g)); diff != "" {
		t.Errorf("GET cancelled (-want +got):\n%s", diff)
	}
	if got := h.Balance(a); got != "5.11" {
		t.Errorf("balance after refund = %s, want 5.11", got)
	}

	// Cancel without refund.
	c = h.AdminOK(200, "POST", "/admin/orders/"+third.Str("orderId")+"/cancel", map[string]any{"error": "FRAUD", "refund": false})
	if c.Str("status") != "cancelled" || c.Body["refunded"] != false {
		t.Errorf("cancel without refund: %s", c.Raw)
	}

	// Nothing final moves again.
	ledger := h.Ledger(a)
	bal := h.Balance(a)
	for _, id := range []string{first.Str("orderId"), second.Str("orderId"), third.Str("orderId"), simple.Str("orderId")} {
		for _, op := range []struct {
			path string
			body any
		}{
			{"/complete", map[string]any{"codes": []string{"AGAIN"}}},
			{"/complete", nil},
			{"/cancel", map[string]any{"refund": true}},
			{"/cancel", map[string]any{"error": "x", "refund": false}},
		} {
			r := h.AdminDo("POST", "/admin/orders/"+id+op.path, op.body)
			if r.Status != http.StatusConflict || r.Str("code") != "ORDER_FINAL" {
				t.Errorf("%s%s on a final order: %v, want 409 ORDER_FINAL", id, op.path, r)
			}
		}
	}
	if diff := cmp.Diff(ledger, h.Ledger(a)); diff != "" {
		t.Errorf("ledger moved (-before +after):\n%s", diff)
	}
	if got := h.Balance(a); got != bal {
		t.Errorf("balance moved: %s → %s", bal, got)
	}
	refunds := 0
	for _, e := range h.Ledger(a) {
		if e.Kind == "refund" {
			refunds++
			if e.OrderID != second.Str("orderId") {
				t.Errorf("refund of %s", e.OrderID)
			}
		}
	}
	if refunds != 1 {
		t.Errorf("%d refunds, want 1", refunds)
	}
	// The final states stick.
	for id, want := range map[string]string{first.Str("orderId"): "completed", second.Str("orderId"): "cancelled", third.Str("orderId"): "cancelled"} {
		if g := h.Do("GET", "/orders/"+id, a.Key, nil); g.Str("status") != want {
			t.Errorf("order %s is %s, want %s", id, g.Str("status"), want)
		}
	}
	// Unknown orders are 404 for the operator.
	if r := h.AdminDo("POST", "/admin/orders/ord_nope/complete", nil); r.Status != 404 {
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
	h := topupdtest.New(t)
	h.LoadCatalog()
	h.Settings(map[string]any{"simCallMs": 300})
	a := h.NewAccount("10", nil)
	for i := 0; i < 3; i++ {
		r := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
		id := r.Str("orderId")
		if r.Str("status") != "completed" {
			t.Errorf("order %s answered %s, want completed within POST", id, r.Str("status"))
		}
		h.WaitOrder(a, id)
		// [most calls at once, submits, all calls]
		if got := h.Calls.Stats(id); got != [3]int{1, 1, 1} {
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
	h := topupdtest.New(t, topupdtest.WithDeadline(700*time.Millisecond))
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	r := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"})
	if r.Str("status") != "processing" {
		t.Fatalf("manual order: %s", r.Raw)
	}
	id := r.Str("orderId")
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		got := h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+id, nil)
		if got.Str("status") != "processing" {
			t.Fatalf("past its deadline the manual order ended: %v", got)
		}
		if got.Str("alert") == topupd.AlertPastDeadline {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no alert on the order past its deadline: %v", got)
		}
	}
	stuck := h.AdminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil)
	if items, _ := stuck.Body["orders"].([]any); len(items) != 1 || items[0].(map[string]any)["alert"] != topupd.AlertPastDeadline {
		t.Errorf("stuck orders: %v", stuck)
	}
	provs := h.AdminOK(http.StatusOK, "GET", "/admin/providers", nil)
	found := false
	for _, p := range provs.Body["providers"].([]any) {
		p := p.(map[string]any)
		if p["provider"] == "manual" {
			found = p["alert"] == true && p["stuckOrders"] == json.Number("1")
		}
	}
	if !found {
		t.Errorf("providers do not show the manual supplier alerting with 1 stuck order: %v", provs)
	}
	if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-2"}}, kinds(h.Ledger(a))); diff != "" {
		t.Errorf("ledger while stuck (-want +got):\n%s", diff)
	}
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/cancel", map[string]any{"error": "NOT DELIVERED", "refund": true})
	final := h.WaitOrder(a, id)
	want := orderShape{200, true, "cancelled", "pubg", "Manual UC pack", "2", "5123", "NOT DELIVERED", true, nil, 0}
	if diff := cmp.Diff(want, shapeOf(final)); diff != "" {
		t.Errorf("order after the operator cancelled it (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]string{{"credit", "10"}, {"charge", "-2"}, {"refund", "2"}}, kinds(h.Ledger(a))); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	if r := h.AdminDo("POST", "/admin/orders/"+id+"/complete", nil); r.Status != http.StatusConflict {
		t.Errorf("completing the cancelled order: %v", r)
	}
}
