package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestStuckAndRetry: an order leased to a node that died, past its deadline,
// is listed as stuck; the operator's retry releases it with a fresh deadline
// so the engine works on it again; a final order cannot be retried.
func TestStuckAndRetry(t *testing.T) {
	clock := newFakeClock()
	h := newHarness(t, withClock(clock))
	h.loadCatalog()
	a := h.newAccount("10", nil)
	now := clock.Now()
	o, _, err := h.store.PlaceOrder(context.Background(), topupd.PlaceOrder{AccountID: a.id, Now: now, Deadline: time.Minute,
		Request:    topupd.OrderRequest{PID: pidPubgManual, TrxID: "stuck-1", Fields: topupd.AccountFields{UserID: "5123456"}},
		LeaseOwner: "node-that-died", LeaseUntil: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.adminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil); r.num("count") != "0" {
		t.Fatalf("before the deadline: %v", r)
	}
	clock.Advance(2 * time.Minute)
	stuck := h.adminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil)
	if stuck.num("count") != "1" {
		t.Fatalf("past the deadline and leased to a dead node: %v", stuck)
	}
	r := h.adminOK(http.StatusOK, "POST", "/admin/orders/"+o.ID+"/retry", nil)
	if r.str("status") != "processing" {
		t.Fatalf("retry: %v", r)
	}
	deadline, err := time.Parse(time.RFC3339Nano, r.str("deadlineAt"))
	if err != nil || !deadline.After(clock.Now()) {
		t.Errorf("retry gave deadline %v (%v), now is %v", deadline, err, clock.Now())
	}
	if r := h.adminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil); r.num("count") != "0" {
		t.Errorf("after the retry: %v", r)
	}
	// The engine takes it up again: the manual supplier leaves it pending.
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got := h.adminOK(http.StatusOK, "GET", "/admin/orders/"+o.ID, nil); got.num("attempts") != "0" {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the engine never worked on the retried order")
		}
	}
	h.adminOK(http.StatusOK, "POST", "/admin/orders/"+o.ID+"/cancel", map[string]any{"error": "GAVE UP"})
	if r := h.adminDo("POST", "/admin/orders/"+o.ID+"/retry", nil); r.status != http.StatusConflict || r.str("code") != "ORDER_FINAL" {
		t.Errorf("retrying a final order: %v", r)
	}
}
