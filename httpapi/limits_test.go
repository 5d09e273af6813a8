package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// wantSpendLimit fails unless a reply is the rejected-submit form with
// SPEND LIMIT EXCEEDED.
func wantSpendLimit(t *testing.T, r topupdtest.Reply, doing string) {
	t.Helper()
	if r.Status != 400 || r.Body["orderCreated"] != false || r.Str("status") != "cancelled" || r.Str("error") != "SPEND LIMIT EXCEEDED" ||
		r.Str("code") != "SPEND_LIMIT_EXCEEDED" || r.Str("game") == "" {
		t.Errorf("%s: %v, want a rejected submit with SPEND LIMIT EXCEEDED", doing, r)
	}
}

// TestSpendLimits: an order above maxOrderUsd, or taking the UTC day's
// spend net of refunds above dailyLimitUsd, is refused in the
// rejected-submit form and moves no money; a refund makes room again, the
// next UTC day starts afresh, null lifts a limit; only owner and finance
// set limits, and each change is in the action log.
func TestSpendLimits(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		// Start just after 23:00 UTC, so that the day ends within the test.
		start := clock.Now().Truncate(24 * time.Hour).Add(23*time.Hour + time.Minute)
		if !start.After(clock.Now()) {
			start = start.Add(24 * time.Hour)
		}
		clock.SetTime(start)
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock))...)
		h.LoadCatalog()
		a := h.NewAccount("100", nil)
		path := "/admin/accounts/" + a.ID
		wantCode(t, h.AdminDo("PATCH", path, map[string]any{"maxOrderUsd": usd("-1")}), 400, "INVALID_BODY", "a negative limit")
		support, finance := h.NewOperator("sup", "support"), h.NewOperator("fin", "finance")
		wantCode(t, h.AdminAs(support, "PATCH", path, map[string]any{"maxOrderUsd": usd("2")}), 403, "ROLE_FORBIDDEN", "support sets a limit")
		r := h.AdminAs(finance, "PATCH", path, map[string]any{"maxOrderUsd": usd("2"), "dailyLimitUsd": usd("3")})
		if r.Status != 200 || r.Num("maxOrderUsd") != "2" || r.Num("dailyLimitUsd") != "3" {
			t.Fatalf("finance sets the limits: %v", r)
		}

		wantSpendLimit(t, h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubgBig, "trxid": h.Trx(), "userId": "5123"}), "4.45 against 2 an order")
		for range 3 {
			h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}) // 2.67 in all
		}
		wantSpendLimit(t, h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}), "3.56 against 3 a day")
		if got := h.Balance(a); got != "97.33" {
			t.Errorf("balance %s after refusals, want 97.33: a refusal moved money", got)
		}
		if n := len(h.Ledger(a)); n != 4 {
			t.Errorf("%d ledger entries, want the credit and 3 charges", n)
		}

		clock.Advance(time.Hour)                                                                                        // the next UTC day
		manual := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId") // 2.00
		h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})                                // 2.89
		wantSpendLimit(t, h.Do("POST", "/orders", a.Key, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}), "3.78 against 3")
		h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+manual+"/cancel", map[string]any{"error": "x", "refund": true})
		h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}) // 1.78 after the refund

		h.AdminOK(http.StatusOK, "PATCH", path, map[string]any{"maxOrderUsd": nil, "dailyLimitUsd": nil})
		h.Place(a, order{"pid": topupdtest.PIDPubgBig, "trxid": h.Trx(), "userId": "5123"})
		if r := h.AdminOK(http.StatusOK, "GET", path, nil); r.Body["maxOrderUsd"] != nil || r.Body["dailyLimitUsd"] != nil {
			t.Errorf("limits after null: %v", r)
		}
		r = h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=account.update&accountId="+a.ID, nil)
		if got, _ := r.Body["actions"].([]any); len(got) != 2 {
			t.Errorf("%d account.update actions, want 2: %v", len(got), r)
		}
		h.AuditClean()
	})
}

// TestRaceDailyLimit: 200 orders at once against a daily limit for exactly
// 50 of them create exactly 50; the other 150 are refused, moving nothing.
func TestRaceDailyLimit(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("500", nil)
		h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+a.ID, map[string]any{"dailyLimitUsd": usd("44.5")}) // 50 × 0.89
		replies, errs := racer.Run2(200, func(i int) (topupdtest.Reply, error) {
			return post(h, a, order{"pid": topupdtest.PIDPubg, "trxid": fmt.Sprintf("lim-%03d", i), "userId": "5123"})
		})
		failOnErrors(t, errs)
		tally := map[string]int{}
		for _, r := range replies {
			tally[fmt.Sprintf("%d %v %s", r.Status, r.Body["orderCreated"], r.Str("error"))]++
		}
		want := map[string]int{"200 true ": 50, "400 false SPEND LIMIT EXCEEDED": 150}
		if diff := cmp.Diff(want, tally); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
		if got := h.Balance(a); got != "455.5" {
			t.Errorf("balance = %s, want 455.5", got)
		}
		if n := len(h.Ledger(a)); n != 51 {
			t.Errorf("%d ledger entries, want the credit and 50 charges", n)
		}
		h.AuditClean()
	})
}
