package webhooks_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/webhooks"
)

// delivery reads an endpoint's newest delivery.
func delivery(t *testing.T, h *topupdtest.T, endpointID string) map[string]any {
	t.Helper()
	ds := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+endpointID+"/deliveries", nil).Body["deliveries"].([]any)
	if len(ds) == 0 {
		t.Fatalf("no deliveries of %s", endpointID)
	}
	return ds[0].(map[string]any)
}

// timeOf reads an RFC 3339 time of a delivery.
func timeOf(t *testing.T, d map[string]any, name string) time.Time {
	t.Helper()
	s, _ := d[name].(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s of %v: %v", name, d, err)
	}
	return at
}

// waitAttempts polls until the endpoint's newest delivery has n attempts recorded.
func waitAttempts(t *testing.T, h *topupdtest.T, endpointID string, n int) map[string]any {
	t.Helper()
	var d map[string]any
	waitFor(t, func() bool {
		d = delivery(t, h, endpointID)
		return d["attempts"] == jsonNumber(n)
	}, "attempt %d of %s to be recorded", n, endpointID)
	return d
}

// TestRetries: a failed attempt is tried again 5 s later (±10%), a 503's
// Retry-After is honoured when it asks for longer, and every attempt
// carries the same id, signed for its own timestamp.
func TestRetries(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithWebhookReceivers(0))...)
		a := h.NewAccount("", nil)
		rc := newReceiver(t, func(n int, _ received, w http.ResponseWriter) {
			switch n {
			case 1:
				w.WriteHeader(http.StatusInternalServerError)
			case 2:
				w.Header().Set("Retry-After", "7200")
				w.WriteHeader(http.StatusServiceUnavailable)
			default:
				w.WriteHeader(http.StatusOK)
			}
		})
		id, secret := endpoint(t, h, a.ID, rc.URL, nil)
		h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil)
		d := waitAttempts(t, h, id, 1)
		if d["state"] != "pending" || d["lastStatus"] != jsonNumber(500) || d["lastError"] != "500 Internal Server Error" {
			t.Errorf("after the first attempt: %v", d)
		}
		if wait := timeOf(t, d, "nextAttemptAt").Sub(clock.Now()); wait < 4500*time.Millisecond || wait > 5500*time.Millisecond {
			t.Errorf("the second attempt is due in %v, want 5 s ±10%%", wait)
		}
		clock.Advance(6 * time.Second)
		h.App.Webhooks.Wake()
		d = waitAttempts(t, h, id, 2)
		if wait := timeOf(t, d, "nextAttemptAt").Sub(clock.Now()); wait != 2*time.Hour {
			t.Errorf("after a 503 with Retry-After: 7200 the next attempt is due in %v, want 2h", wait)
		}
		clock.Advance(2*time.Hour + time.Second)
		h.App.Webhooks.Wake()
		d = waitAttempts(t, h, id, 3)
		if d["state"] != "delivered" || d["lastStatus"] != jsonNumber(200) || d["lastError"] != nil {
			t.Errorf("after the third attempt: %v", d)
		}
		got := rc.all()
		for i, g := range got {
			if g.ID != got[0].ID || !verify(secret, g.ID, g.Timestamp, g.Body, g.Signature) {
				t.Errorf("attempt %d: id %s (first %s), signature verifies %v", i+1, g.ID, got[0].ID, verify(secret, g.ID, g.Timestamp, g.Body, g.Signature))
			}
		}
		if len(got) != 3 || got[0].Timestamp == got[2].Timestamp || string(got[0].Body) != string(got[2].Body) {
			t.Errorf("attempts: %d; timestamps %s, %s; bodies alike %v", len(got), got[0].Timestamp, got[len(got)-1].Timestamp, string(got[0].Body) == string(got[2].Body))
		}
	})
}

// TestDisabling: an endpoint that always fails is tried on the whole
// schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each ±10%), then the
// delivery is failed; once it has failed for 5 days, with a failed
// delivery, its next failure disables it (failing). A 410 disables an
// endpoint at once (gone); enabling it again sends what waited. Both are
// counted in the metrics.
func TestDisabling(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock), topupdtest.WithWebhookReceivers(0))...)
		a := h.NewAccount("", nil)
		start := clock.Now()
		failing := newReceiver(t, func(_ int, _ received, w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) })
		id, _ := endpoint(t, h, a.ID, failing.URL, nil)
		h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil)
		for i, pause := range webhooks.Retries {
			d := waitAttempts(t, h, id, i+1)
			next := timeOf(t, d, "nextAttemptAt")
			if got := next.Sub(timeOf(t, d, "lastAttemptAt")); got < pause*9/10 || got > pause*11/10 {
				t.Errorf("after attempt %d the next is due in %v, want %v ±10%%", i+1, got, pause)
			}
			clock.SetTime(next.Add(time.Second))
			h.App.Webhooks.Wake()
		}
		d := waitAttempts(t, h, id, len(webhooks.Retries)+1)
		if d["state"] != "failed" || d["nextAttemptAt"] != nil {
			t.Errorf("after the last attempt: %v", d)
		}
		if e := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id, nil); e.Body["enabled"] != true {
			t.Fatalf("disabled before 5 days: %s", e.Raw)
		}
		clock.SetTime(start.Add(5*24*time.Hour + time.Minute))
		h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil)
		waitFor(t, func() bool {
			return h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id, nil).Body["enabled"] == false
		}, "the failing endpoint to be disabled")
		if e := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id, nil); e.Str("disabledReason") != "failing" {
			t.Errorf("disabled: %s", e.Raw)
		}

		var gone atomic.Bool
		gone.Store(true)
		rc := newReceiver(t, func(_ int, _ received, w http.ResponseWriter) {
			if gone.Load() {
				w.WriteHeader(http.StatusGone)
			}
		})
		id2, _ := endpoint(t, h, a.ID, rc.URL, nil)
		h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id2+"/test", nil)
		d = waitAttempts(t, h, id2, 1)
		e := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id2, nil)
		if d["state"] != "failed" || d["lastStatus"] != jsonNumber(410) || e.Body["enabled"] != false || e.Str("disabledReason") != "gone" {
			t.Errorf("after a 410: delivery %v, endpoint %s", d, e.Raw)
		}
		h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id2+"/test", nil)
		if d := delivery(t, h, id2); d["state"] != "pending" || d["attempts"] != jsonNumber(0) {
			t.Errorf("a test for a disabled endpoint: %v", d)
		}
		gone.Store(false)
		if e := h.AdminOK(http.StatusOK, "PATCH", "/admin/webhooks/"+id2, map[string]any{"enabled": true}); e.Body["disabledReason"] != nil {
			t.Errorf("enabled again: %s", e.Raw)
		}
		if d := waitAttempts(t, h, id2, 1); d["state"] != "delivered" {
			t.Errorf("the test that waited: %v", d)
		}
		_, text := h.AdminText("/metrics", h.MetricsToken)
		for _, want := range []string{`topupd_webhook_endpoints_disabled_total{reason="failing"} 1`, `topupd_webhook_endpoints_disabled_total{reason="gone"} 1`,
			`topupd_webhook_attempts_total{outcome="gone"} 1`, `topupd_webhook_attempts_total{outcome="failed"} 1`} {
			if !strings.Contains(text, want) {
				t.Errorf("the metrics lack %s", want)
			}
		}
	})
}
