package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestConsoleWebhooks: an account's webhook endpoints in the console
// (issue 22, point 7): support adds one (its secret shown once), a bad URL
// gives the form back with the error beside it, the delivery log shows
// what was sent, one delivery is sent again, the secret is renewed after a
// confirmation, and each change is in the action log; a viewer reads the
// log but has no forms.
func TestConsoleWebhooks(t *testing.T) {
	t.Parallel()
	var got atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	b := newTab(t, topupdtest.WithWebhookReceivers(0), topupdtest.WithWebhookPoll(20*time.Millisecond))
	sam := b.setUp("sam", "support")
	b.signIn(sam)
	a := b.h.NewAccount("", nil)
	page := "/console/accounts/" + a.ID + "/webhooks"
	var endpoint string

	t.Run("add", func(t *testing.T) {
		b.open("/console/accounts/" + a.ID)
		b.click("#webhooks-link")
		b.fill(map[string]string{"#url": "ftp://shop.example/hook", "#description": "the shop"})
		b.click("#add-webhook")
		if msg := b.text("#url-error"); !strings.Contains(msg, "URL") && !strings.Contains(msg, "url") {
			t.Errorf("a bad URL: %q beside the field", msg)
		}
		b.fill(map[string]string{"#url": recv.URL + "/hook"})
		b.click("#add-webhook")
		if s := b.text("#webhook-secret"); !strings.HasPrefix(s, "whsec_") {
			t.Fatalf("no secret shown after adding:\n%s", b.page())
		}
		b.h.Logs.Secret(b.text("#webhook-secret"), "a webhook secret")
		b.open(page)
		if b.has("#webhook-secret") {
			t.Errorf("the secret is shown again")
		}
		endpoint = b.text("#webhooks tbody a")
		if !strings.HasPrefix(endpoint, "whe_") || !strings.Contains(b.text("#webhooks tbody"), "the shop") {
			t.Fatalf("the list: %s", b.text("#webhooks"))
		}
	})

	t.Run("delivery log and replay", func(t *testing.T) {
		b.h.Credit(a, "5")
		deadline := time.Now().Add(10 * time.Second)
		for got.Load() < 1 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		b.open("/console/webhooks/" + endpoint)
		row := b.text("#deliveries tbody tr")
		if !strings.Contains(row, "balance.credited") || !strings.Contains(row, "delivered") {
			t.Fatalf("the delivery log: %q", row)
		}
		b.click("#deliveries tbody tr button")
		if f := b.text("#flash"); f != "1 event queued to be sent again." {
			t.Errorf("after a replay: %q", f)
		}
		for got.Load() < 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got.Load() < 2 {
			t.Errorf("the replay was not sent: %d requests", got.Load())
		}
	})

	t.Run("new secret", func(t *testing.T) {
		b.open("/console/webhooks/" + endpoint)
		b.click("#rotate-webhook")
		if !strings.Contains(b.text("#question"), "new secret") {
			t.Fatalf("no confirmation: %s", b.page())
		}
		b.click("#confirm")
		s := b.text("#new-secret code")
		b.h.Logs.Secret(s, "a webhook secret")
		if !strings.HasPrefix(s, "whsec_") {
			t.Errorf("the new secret: %q", s)
		}
		b.open("/console/actions")
		log := b.text("main")
		for _, want := range []string{"webhook.create", "webhook.replay", "webhook.rotate-secret"} {
			if !strings.Contains(log, want) {
				t.Errorf("the action log has no %s", want)
			}
		}
	})

	t.Run("a viewer reads", func(t *testing.T) {
		v := b.also()
		vic := v.setUp("vic", "viewer")
		v.signIn(vic)
		v.open("/console/webhooks/" + endpoint)
		if !strings.Contains(v.text("#deliveries"), "balance.credited") {
			t.Errorf("a viewer does not see the delivery log")
		}
		if v.has("#webhook-form") || v.has("#deliveries button") {
			t.Errorf("a viewer has the forms")
		}
	})
}
