package webhooks_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestNodeStopsMidDelivery: a node stops while the receiver holds its
// request; another node on the same database delivers the event, with the
// same id, and the stopped node's unfinished attempt is not counted.
func TestNodeStopsMidDelivery(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		first, release := make(chan struct{}), make(chan struct{})
		defer close(release)
		rc := newReceiver(t, func(n int, _ received, w http.ResponseWriter) {
			if n == 1 {
				close(first)
				<-release
			}
			w.WriteHeader(http.StatusOK)
		})
		h1 := topupdtest.New(t, append(db, topupdtest.WithWebhookReceivers(0))...)
		if len(db) == 0 {
			db = []topupdtest.Option{topupdtest.WithDB(h1.DB)}
		}
		a := h1.NewAccount("", nil)
		id, secret := endpoint(t, h1, a.ID, rc.URL, nil)
		h1.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil)
		<-first
		h2 := topupdtest.New(t, append(db, topupdtest.WithSecretKey(h1.SecretKey), topupdtest.WithWebhookReceivers(0))...)
		if err := h1.App.Close(); err != nil {
			t.Fatal(err)
		}
		got := rc.wait(t, 2)
		d := waitAttempts(t, h2, id, 1)
		if got[0].ID != got[1].ID || !verify(secret, got[1].ID, got[1].Timestamp, got[1].Body, got[1].Signature) || d["state"] != "delivered" {
			t.Errorf("ids %s, %s; delivery %v", got[0].ID, got[1].ID, d)
		}
	})
}

// TestLeaseRunsOut: while a node's attempt is in flight no other node can
// claim the delivery; once its lease has run out (the node died) another
// claims it, with the same event, and the first node's late record is
// refused, so the delivery is counted once.
func TestLeaseRunsOut(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithWebhookReceivers(0))...)
		ctx := context.Background()
		first, release := make(chan struct{}), make(chan struct{})
		rc := newReceiver(t, func(n int, _ received, w http.ResponseWriter) {
			if n == 1 {
				close(first)
				<-release
			}
		})
		a := h.NewAccount("", nil)
		id, _ := endpoint(t, h, a.ID, rc.URL, nil)
		ev := h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil).Str("eventId")
		<-first
		if jobs, err := h.Store.ClaimWebhookDeliveries(ctx, "other", clock.Now(), clock.Now().Add(time.Minute), 10); err != nil || len(jobs) != 0 {
			t.Fatalf("claimed while leased: %v, %v", jobs, err)
		}
		clock.Advance(2 * time.Minute)
		jobs, err := h.Store.ClaimWebhookDeliveries(ctx, "other", clock.Now(), clock.Now().Add(time.Minute), 10)
		if err != nil || len(jobs) != 1 || jobs[0].Event.ID != ev || jobs[0].Endpoint.ID != id || jobs[0].Endpoint.Secret == "" {
			t.Fatalf("claimed after the lease: %+v, %v", jobs, err)
		}
		close(release)
		waitFor(t, func() bool { return h.Logs.Lines("recording an attempt") != nil }, "the first node's record to be refused")
		if d := delivery(t, h, id); d["attempts"] != jsonNumber(0) || d["state"] != "pending" {
			t.Errorf("after the refused record: %v", d)
		}
		if _, err := h.Store.RecordWebhookAttempt(ctx, topupd.WebhookAttempt{Seq: jobs[0].Delivery.Seq, Owner: "other", At: clock.Now(), Status: 200, OK: true}); err != nil {
			t.Fatal(err)
		}
		if d := delivery(t, h, id); d["attempts"] != jsonNumber(1) || d["state"] != "delivered" {
			t.Errorf("after the second node's record: %v", d)
		}
	})
}

// TestNothingForRolledBack: a correction the balance cannot bear and an
// order refused for the balance roll back, and send nothing; the credit
// after them is the one delivery.
func TestNothingForRolledBack(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("", nil)
		rc := newReceiver(t, nil)
		id, _ := endpoint(t, h, a.ID, rc.URL, nil)
		if r := h.AdminDo("POST", "/admin/accounts/"+a.ID+"/credits", map[string]any{"amountUsd": topupdtest.USD("-5"), "reference": "too much"}); r.Status < 400 {
			t.Fatalf("a correction below zero: %v", r)
		}
		if r := h.Do("POST", "/orders", a.Key, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1}); r.Body["orderCreated"] != false {
			t.Fatalf("an order without balance: %v", r)
		}
		h.Credit(a, "1")
		got := rc.wait(t, 1)
		ds := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id+"/deliveries", nil).Body["deliveries"].([]any)
		if len(ds) != 1 || got[0].Parsed["type"] != "balance.credited" || got[0].Parsed["data"].(map[string]any)["amountUsd"] != 1.0 {
			t.Errorf("deliveries %v; first request %s", ds, got[0].Body)
		}
	}, topupdtest.WithWebhookReceivers(0))
}
