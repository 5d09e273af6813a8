package webhooks_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDeliveries: a credit, an order completed and a test are each posted
// once to the account's endpoint, signed (checked by an independent
// verifier), with the event's id in the header and the body, the order as
// GET /orders/:orderId shows it without success and codes; another
// account's endpoint hears nothing; the deliveries are listed newest first.
func TestDeliveries(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a, other := h.NewAccount("", nil), h.NewAccount("", nil)
		rc, stranger := newReceiver(t, nil), newReceiver(t, nil)
		id, secret := endpoint(t, h, a.ID, rc.URL+"/hook?token=x", nil)
		endpoint(t, h, other.ID, stranger.URL, nil)

		h.Credit(a, "10")
		rc.wait(t, 1)
		order := h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		rc.wait(t, 2)
		h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil)
		got := rc.wait(t, 3)

		for i, g := range got {
			if !verify(secret, g.ID, g.Timestamp, g.Body, g.Signature) {
				t.Errorf("request %d: the signature %q does not verify", i, g.Signature)
			}
			hdr := http.Header{"Webhook-Id": {g.ID}, "Webhook-Timestamp": {g.Timestamp}, "Webhook-Signature": {g.Signature}}
			if ev, err := client.VerifyWebhook(secret, hdr, g.Body, time.Now()); err != nil || ev.ID != g.ID {
				t.Errorf("request %d: client.VerifyWebhook: %v, %v", i, ev, err)
			}
			ts, err := strconv.ParseInt(g.Timestamp, 10, 64)
			if err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
				t.Errorf("request %d: webhook-timestamp %q", i, g.Timestamp)
			}
			if g.ContentType != "application/json" || g.Parsed["id"] != g.ID || len(g.ID) < 5 || g.ID[:4] != "evt_" {
				t.Errorf("request %d: content type %q, id %q, body %s", i, g.ContentType, g.ID, g.Body)
			}
			if _, err := time.Parse(time.RFC3339, g.Parsed["timestamp"].(string)); err != nil {
				t.Errorf("request %d: timestamp: %v", i, err)
			}
		}
		if got[0].Parsed["type"] != "balance.credited" {
			t.Fatalf("first: %s", got[0].Body)
		}
		credit := got[0].Parsed["data"].(map[string]any)
		if credit["amountUsd"] != 10.0 || credit["balanceUsd"] != 10.0 || credit["reference"] == "" {
			t.Errorf("balance.credited data: %v", credit)
		}
		if got[1].Parsed["type"] != "order.completed" {
			t.Fatalf("second: %s", got[1].Body)
		}
		var want, data map[string]any
		raw := h.Do("GET", "/orders/"+order.Str("orderId"), a.Key, nil).Raw
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		delete(want, "success")
		delete(want, "codes")
		data = got[1].Parsed["data"].(map[string]any)
		if diff := cmp.Diff(want, data); diff != "" {
			t.Errorf("order.completed data (-GET /orders +sent):\n%s", diff)
		}
		if got[2].Parsed["type"] != "webhook.test" || string(mustJSON(t, got[2].Parsed["data"])) != "{}" {
			t.Errorf("third: %s", got[2].Body)
		}
		if n := len(stranger.all()); n != 0 {
			t.Errorf("another account's endpoint got %d requests", n)
		}

		waitAttempts(t, h, id, 1) // the newest, the test's, recorded
		list := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id+"/deliveries?limit=2", nil)
		ds := list.Body["deliveries"].([]any)
		if len(ds) != 2 || list.Body["nextCursor"] == nil {
			t.Fatalf("deliveries: %s", list.Raw)
		}
		first := ds[0].(map[string]any)
		if first["type"] != "webhook.test" || first["state"] != "delivered" || first["attempts"] != json.Number("1") ||
			first["lastStatus"] != json.Number("204") || first["deliveredAt"] == nil || first["nextAttemptAt"] != nil {
			t.Errorf("newest delivery: %v", first)
		}
		rest := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id+"/deliveries?cursor="+list.Str("nextCursor"), nil)
		if ds := rest.Body["deliveries"].([]any); len(ds) != 1 || ds[0].(map[string]any)["eventId"] != got[0].ID || rest.Body["nextCursor"] != nil {
			t.Errorf("second page: %s", rest.Raw)
		}
	}, topupdtest.WithWebhookReceivers(0))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
