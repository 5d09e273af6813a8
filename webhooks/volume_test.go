package webhooks_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestManyEventsSlowReceiver: 10,000 events for a receiver that takes a
// while over each are all delivered, each exactly once (none fails, so
// none is retried), within a bound.
func TestManyEventsSlowReceiver(t *testing.T) {
	t.Parallel()
	const events = 10_000
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		var mu sync.Mutex
		seen := map[string]int{}
		rc := newReceiver(t, func(_ int, r received, w http.ResponseWriter) {
			time.Sleep(2 * time.Millisecond) // a slow receiver
			mu.Lock()
			seen[r.ID]++
			mu.Unlock()
		})
		a := h.NewAccount("", nil)
		id, _ := endpoint(t, h, a.ID, rc.URL, nil)
		ctx := context.Background()
		want := map[string]bool{}
		for len(want) < events {
			batch := make([]topupd.WebhookEvent, 500)
			for i := range batch {
				batch[i] = topupd.WebhookEvent{ID: topupd.NewEventID(h.Now()), AccountID: a.ID, Type: topupd.WebhookBalanceCredited,
					At: h.Now(), Data: []byte(`{"amountUsd":1,"balanceUsd":1,"reference":"r"}`)}
				want[batch[i].ID] = true
			}
			if err := h.Store.AddWebhookEvents(ctx, batch, h.Now()); err != nil {
				t.Fatal(err)
			}
		}
		h.App.Webhooks.Wake()
		start := time.Now()
		deadline := start.Add(5 * time.Minute)
		for {
			mu.Lock()
			n := len(seen)
			mu.Unlock()
			if n == events {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d events delivered in 5 minutes", n, events)
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("%d events delivered in %v", events, time.Since(start).Round(time.Millisecond))
		mu.Lock()
		defer mu.Unlock()
		for ev, n := range seen {
			if !want[ev] || n != 1 {
				t.Errorf("event %s: delivered %d times (ours: %v)", ev, n, want[ev])
			}
		}
		if got := len(rc.all()); got != events {
			t.Errorf("%d requests for %d events", got, events)
		}
		waitFor(t, func() bool {
			d := delivery(t, h, id)
			return d["state"] == "delivered"
		}, "the last delivery to be recorded")
	}, topupdtest.WithWebhookReceivers(64))
}
