package webhooks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestSandboxDeliveries: a sandbox order's event goes to its account's
// endpoint, its order data carrying "sandbox": true; a live order's never
// carries it.
func TestSandboxDeliveries(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("10", nil)
		rc := newReceiver(t, nil)
		endpoint(t, h, a.ID, rc.URL, map[string]any{"events": []string{"order.completed"}})
		r := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+a.ID+"/keys", map[string]any{"sandbox": true})
		h.Logs.Secret(r.Str("apiKey"), "a sandbox key")
		sb := topupdtest.Account{ID: a.ID, Key: r.Str("apiKey")}
		sandboxOrder := h.Place(sb, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		liveOrder := h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		got := map[string]map[string]any{}
		for _, g := range rc.wait(t, 2) {
			data := g.Parsed["data"].(map[string]any)
			got[data["orderId"].(string)] = data
		}
		if d := got[sandboxOrder.Str("orderId")]; d == nil || d["sandbox"] != true || d["codes"] != nil {
			t.Errorf("the sandbox order's delivery: %v, want its order with sandbox true and no codes", d)
		}
		if d := got[liveOrder.Str("orderId")]; d == nil || strings.Contains(string(mustJSON(t, d)), "sandbox") {
			t.Errorf("the live order's delivery: %v, want its order without sandbox", d)
		}
	}, topupdtest.WithWebhookReceivers(0))
}
