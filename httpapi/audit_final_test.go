package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestAuditOrdersFinal: GET /admin/audit on a live server whose only
// unsettled order is still within its deadline is clean (success true,
// orders-final holds); once the order is past its deadline and
// topupd.FinalGrace and still processing, orders-final names it.
func TestAuditOrdersFinal(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.LoadCatalog()
	h.Settings(map[string]any{"simDelayMs": 86_400_000}) // the sim supplier works on it for a day
	a := h.NewAccount("10", nil)
	id := h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123", "trxid": h.Trx()}).Str("orderId")

	finalCheck := func() (success bool, check map[string]any) {
		t.Helper()
		audit := h.AdminOK(http.StatusOK, "GET", "/admin/audit", nil)
		for _, c := range audit.Body["checks"].([]any) {
			if c := c.(map[string]any); c["name"] == "orders-final" {
				check = c
			}
		}
		if check == nil {
			t.Fatalf("no orders-final check in %v", audit)
		}
		return audit.Body["success"] == true, check
	}
	if ok, c := finalCheck(); !ok || c["ok"] != true || fmt.Sprint(c["violations"]) != "0" {
		t.Errorf("an order processing within its deadline: success %v, orders-final %v", ok, c)
	}
	h.AuditClean()

	clock.Advance(topupd.DefaultOrderDeadline + topupd.FinalGrace + time.Minute)
	ok, c := finalCheck()
	if ok || c["ok"] != false || fmt.Sprint(c["violations"]) != "1" || fmt.Sprint(c["examples"]) != "["+id+"]" {
		t.Errorf("an order processing past its deadline and the grace: success %v, orders-final %v, want %s named", ok, c, id)
	}
}
