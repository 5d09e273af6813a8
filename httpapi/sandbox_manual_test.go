package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestSandboxManualActions: an operator completes, cancels and retries a
// sandbox order as a live one, on the sandbox's books: a refund goes to
// the sandbox balance and the live balance never moves. Codes given to
// complete a sandbox order are 400 INVALID_BODY (its codes are TEST- codes
// of its own) and change nothing; a sandbox key order, final at once, is
// 409 ORDER_FINAL. The audit is clean after it all.
func TestSandboxManualActions(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		h.Settings(map[string]any{"simDelayMs": 86_400_000}) // sandbox top-ups wait for the operator
		live := h.NewAccount("20", nil)
		sb := sandboxKey(t, h, live)
		place := func() string {
			t.Helper()
			r := h.Place(sb, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"})
			if r.Str("status") != "processing" {
				t.Fatalf("a sandbox top-up with a day's simDelayMs: %v, want processing", r)
			}
			return r.Str("orderId")
		}
		act := func(id, action string, body map[string]any, wantStatus int) topupdtest.Reply {
			t.Helper()
			r := h.AdminDo("POST", "/admin/orders/"+id+"/"+action, body)
			if r.Status != wantStatus {
				t.Fatalf("%s of sandbox order %s: %v, want %d", action, id, r, wantStatus)
			}
			if wantStatus == http.StatusOK && (r.Body["sandbox"] != true || r.Str("accountId") != live.ID) {
				t.Errorf("%s of sandbox order %s: %v, want sandbox true and account %s", action, id, r, live.ID)
			}
			return r
		}

		completed := place()
		if r := act(completed, "complete", map[string]any{}, http.StatusOK); r.Str("status") != "completed" {
			t.Errorf("complete: %v, want completed", r)
		}
		withCodes := place()
		r := act(withCodes, "complete", map[string]any{"codes": []string{"OPERATOR-CODE-1"}}, http.StatusBadRequest)
		if r.Str("code") != "INVALID_BODY" || !strings.Contains(r.Str("detail"), "sandbox order") {
			t.Errorf("complete with codes: %v, want INVALID_BODY naming the sandbox", r)
		}
		if got := h.Do("GET", "/orders/"+withCodes, sb.Key, nil); got.Str("status") != "processing" {
			t.Errorf("after the refused completion: %v, want still processing", got)
		}
		refunded := place()
		r = act(refunded, "cancel", map[string]any{"error": "stuck in tests", "refund": true}, http.StatusOK)
		if r.Str("status") != "cancelled" || r.Body["refunded"] != true {
			t.Errorf("cancel with refund: %v, want cancelled, refunded", r)
		}
		if ledger, _ := r.Body["ledger"].([]any); len(ledger) != 2 || ledger[1].(map[string]any)["kind"] != "refund" {
			t.Errorf("cancel with refund: ledger %v, want the charge and its refund", r.Body["ledger"])
		}
		kept := place()
		if r := act(kept, "cancel", map[string]any{"error": "stuck in tests", "refund": false}, http.StatusOK); r.Body["refunded"] != false {
			t.Errorf("cancel without refund: %v, want not refunded", r)
		}
		retried := place()
		if r := act(retried, "retry", nil, http.StatusOK); r.Str("status") != "processing" {
			t.Errorf("retry: %v, want processing (sim waits its day)", r)
		}
		keyOrder := h.Place(sb, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		if r := act(keyOrder.Str("orderId"), "complete", map[string]any{}, http.StatusConflict); r.Str("code") != "ORDER_FINAL" {
			t.Errorf("complete of a final sandbox key order: %v, want 409 ORDER_FINAL", r)
		}
		// The orders left processing are settled too, so the audit holds whole.
		act(withCodes, "cancel", map[string]any{"refund": true}, http.StatusOK)
		act(retried, "complete", map[string]any{}, http.StatusOK)

		for id, want := range map[string]string{completed: "completed", refunded: "cancelled", kept: "cancelled", retried: "completed"} {
			if got := h.WaitOrder(sb, id); got.Str("status") != want || got.Body["sandbox"] != true {
				t.Errorf("the reseller's view of sandbox order %s: %v, want %s", id, got, want)
			}
		}
		// Five top-ups charged, two refunded, one key.
		pubg := topupdtest.ParseUSD(t, "0.89")
		want := topupdtest.ParseUSD(t, "1000") - 3*pubg - topupdtest.ParseUSD(t, topupdtest.PriceKey)
		if got := h.Balance(sb); got != want.String() {
			t.Errorf("sandbox balance %s, want %s", got, want)
		}
		if got := h.Balance(live); got != "20" {
			t.Errorf("live balance %s, want 20: the sandbox's actions never touch it", got)
		}
		if n := len(h.Ledger(live)); n != 1 {
			t.Errorf("live ledger: %d entries, want the one credit", n)
		}
		h.AuditClean()
	})
}
