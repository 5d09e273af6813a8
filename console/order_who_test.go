package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOrderPageSaysWho: the order page names who completed or cancelled
// an order (the operator), calls the first supplier call "submit", not
// "retry", and shows a completed order's cost and margin.
func TestOrderPageSaysWho(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgManual, map[string]any{"costUsd": 1.5})
	a := b.h.NewAccount("100", nil)
	place := func() string {
		id := b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "trxid": b.h.Trx(), "userId": "5123"}).Str("orderId")
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if o, err := b.h.AdminClient.Order(t.Context(), id); err == nil && len(o.History) >= 2 {
				return id
			}
			if time.Now().After(end) {
				t.Fatalf("order %s: no supplier call in 10 s", id)
			}
		}
	}
	done, gone := place(), place()
	b.h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+done+"/complete", nil)
	b.h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+gone+"/cancel", map[string]any{"error": "OUT OF STOCK"})
	b.signIn(b.setUp("own", "owner"))

	t.Run("completed", func(t *testing.T) {
		b.open("/console/orders/" + done)
		h := b.text("#history")
		if !strings.Contains(h, "submit") || strings.Contains(h, "retry") {
			t.Errorf("the history calls the first submit otherwise: %q", h)
		}
		if !strings.Contains(h, "by root") {
			t.Errorf("the history does not say who completed it: %q", h)
		}
		// The money format may carry a "$" or not: the figures are what count.
		if got, m := strings.TrimPrefix(b.text("#order-cost"), "$"), strings.TrimPrefix(b.text("#order-margin"), "$"); got != "1.50" || m != "0.50" {
			t.Errorf("cost %q, margin %q; want 1.50, 0.50", got, m)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		b.open("/console/orders/" + gone)
		if h := b.text("#history"); !strings.Contains(h, "by root: OUT OF STOCK") {
			t.Errorf("the history does not say who cancelled it: %q", h)
		}
		if b.has("#order-margin") {
			t.Error("a cancelled order shows a margin")
		}
	})
}
