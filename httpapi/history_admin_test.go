package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// historyOf reads the history of an admin answer about one order.
func historyOf(t *testing.T, r topupdtest.Reply) []client.OrderEvent {
	t.Helper()
	items, ok := r.Body["history"].([]any)
	if !ok {
		t.Fatalf("no history in %s", r.Raw)
	}
	out := []client.OrderEvent{}
	for _, it := range items {
		m := it.(map[string]any)
		at, err := time.Parse(time.RFC3339Nano, m["at"].(string))
		if err != nil {
			t.Fatalf("history at: %v", err)
		}
		out = append(out, client.OrderEvent{At: at, Kind: m["kind"].(string), Note: m["note"].(string)})
	}
	return out
}

// TestAdminOrderHistory: on a clock the test moves, a manual order's
// history tells its story, oldest first: placed, the supplier's pending
// answer, the operator's retry (naming the operator) and the engine's
// call that follows it, and its completion; every answer about one order
// carries it, GET and the client's AdminOrder too, and lists do not. A
// cancellation ends with the order's error, and a key order completed from
// stock as it was placed ends completed at its creation.
func TestAdminOrderHistory(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.LoadCatalog()
	h.AddStock(topupdtest.PIDKey, 1)
	a := h.NewAccount("100", nil)
	get := func(id string) topupdtest.Reply { return h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+id, nil) }
	// waitSteps waits for the engine to have written n steps of the history.
	waitSteps := func(id string, n int) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); len(historyOf(t, get(id))) < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("history of %s after 10 s: %s", id, get(id).Raw)
			}
		}
	}

	placed := clock.Now()
	id := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
	waitSteps(id, 2)
	clock.Advance(time.Minute)
	retried := h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/retry", nil)
	if got := historyOf(t, retried); len(got) < 3 || got[2] != (client.OrderEvent{At: placed.Add(time.Minute), Kind: "retried", Note: "by root"}) {
		t.Errorf("the retry's answer: history %v, want the retry third", got)
	}
	waitSteps(id, 4) // the engine asks the supplier again at once
	clock.Advance(time.Minute)
	done := h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/complete", nil)
	pending := "the supplier says pending"
	want := []client.OrderEvent{
		{At: placed, Kind: "placed"},
		{At: placed, Kind: "retry", Note: pending},
		{At: placed.Add(time.Minute), Kind: "retried", Note: "by root"},
		{At: placed.Add(time.Minute), Kind: "retry", Note: pending},
		{At: placed.Add(2 * time.Minute), Kind: "completed", Note: "by root"},
	}
	if diff := cmp.Diff(want, historyOf(t, done)); diff != "" {
		t.Errorf("the completion's answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, historyOf(t, get(id))); diff != "" {
		t.Errorf("GET (-want +got):\n%s", diff)
	}
	o, err := h.AdminClient.Order(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, o.History); diff != "" {
		t.Errorf("client.AdminOrder.History (-want +got):\n%s", diff)
	}

	cancelled := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
	waitSteps(cancelled, 2)
	got := historyOf(t, h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+cancelled+"/cancel", map[string]any{"error": "OUT OF STOCK"}))
	if last := got[len(got)-1]; last != (client.OrderEvent{At: clock.Now(), Kind: "cancelled", Note: "by root: OUT OF STOCK"}) {
		t.Errorf("a cancelled order's history ends %v", last)
	}

	// The order's ledger entries: its charge and its refund (the cancel refunds by default).
	ledger, err := h.AdminClient.Order(t.Context(), cancelled)
	if err != nil {
		t.Fatal(err)
	}
	if l := ledger.Ledger; len(l) != 2 || l[0].Kind != "charge" || l[1].Kind != "refund" || l[0].OrderID != cancelled ||
		l[1].AmountUSD != -l[0].AmountUSD || l[1].BalanceAfterUSD != l[0].BalanceAfterUSD-l[0].AmountUSD {
		t.Errorf("a refunded order's ledger: %+v", l)
	}

	key := h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1}).Str("orderId")
	want = []client.OrderEvent{{At: clock.Now(), Kind: "placed"}, {At: clock.Now(), Kind: "completed"}}
	if diff := cmp.Diff(want, historyOf(t, get(key))); diff != "" {
		t.Errorf("an order completed from stock (-want +got):\n%s", diff)
	}

	for _, it := range h.AdminOK(http.StatusOK, "GET", "/admin/orders", nil).Body["orders"].([]any) {
		if _, ok := it.(map[string]any)["history"]; ok {
			t.Errorf("a listed order carries its history: %v", it)
		}
	}
	if r := h.AdminDo("GET", "/admin/orders/ord_nope", nil); r.Status != http.StatusNotFound {
		t.Errorf("an unknown order: %v", r)
	}
}
