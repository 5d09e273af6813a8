package httpapi_test

import (
	"context"
	"database/sql"
	"net/http"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestStuckAndRetry: an order leased to a node that hung, past its
// deadline, is listed as stuck; the operator's retry gives it a fresh
// deadline and makes it due, yet leaves the lease to the node that holds
// it (another node working on it at once could buy it twice), and the
// engine works on it again once the lease runs out; a final order cannot
// be retried.
func TestStuckAndRetry(t *testing.T) {
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock), topupdtest.WithDeadline(2*time.Hour))
	o := orphanedOrder(t, h, clock, "stuck-1")
	if r := h.AdminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil); r.Num("count") != "0" {
		t.Fatalf("before the deadline: %v", r)
	}
	clock.Advance(2 * time.Minute)
	stuck := h.AdminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil)
	if stuck.Num("count") != "1" {
		t.Fatalf("past the deadline and leased to a dead node: %v", stuck)
	}
	r := h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o.ID+"/retry", nil)
	if r.Str("status") != "processing" {
		t.Fatalf("retry: %v", r)
	}
	deadline, err := time.Parse(time.RFC3339Nano, r.Str("deadlineAt"))
	if err != nil || !deadline.After(clock.Now()) {
		t.Errorf("retry gave deadline %v (%v), now is %v", deadline, err, clock.Now())
	}
	if r := h.AdminOK(http.StatusOK, "GET", "/admin/orders/stuck", nil); r.Num("count") != "0" {
		t.Errorf("after the retry: %v", r)
	}
	if owner := leaseOwner(t, h, o.ID); owner != "node-that-hung" {
		t.Fatalf("the retry took the lease from the node that holds it: now %q's", owner)
	}
	// The lease runs out: the engine takes it up again, and the manual
	// supplier leaves it pending.
	clock.Advance(time.Hour)
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got := h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+o.ID, nil); got.Num("attempts") != "0" {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the engine never worked on the retried order")
		}
	}
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o.ID+"/cancel", map[string]any{"error": "GAVE UP"})
	if r := h.AdminDo("POST", "/admin/orders/"+o.ID+"/retry", nil); r.Status != http.StatusConflict || r.Str("code") != "ORDER_FINAL" {
		t.Errorf("retrying a final order: %v", r)
	}
}

// orphanedOrder loads the test catalog and places a manual top-up, due in a
// minute, leased for an hour to a node that hung: it stays processing
// until an operator acts, and is stuck once clock passes its deadline.
func orphanedOrder(t *testing.T, h *topupdtest.T, clock *topupdtest.Clock, trxid string) topupd.Order {
	t.Helper()
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	now := clock.Now()
	o, _, err := h.Store.PlaceOrder(context.Background(), topupd.PlaceOrder{AccountID: a.ID, Now: now, Deadline: time.Minute,
		Request:    topupd.OrderRequest{PID: topupdtest.PIDPubgManual, TrxID: trxid, Fields: topupd.AccountFields{UserID: "5123456"}},
		LeaseOwner: "node-that-hung", LeaseUntil: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// leaseOwner reads who holds an order's lease, from the harness's SQLite
// file ("" for no one).
func leaseOwner(t *testing.T, h *topupdtest.T, orderID string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+h.DB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var owner sql.NullString
	if err := db.QueryRow(`SELECT lease_owner FROM orders WHERE id = ?`, orderID).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	return owner.String
}
