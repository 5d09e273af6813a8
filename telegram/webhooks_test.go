package telegram_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// TestWebhookCommands: /webhook lists, adds (the secret in that message
// alone), tests (a later message tells the receiver's answer) and deletes
// (after a button) the account's endpoints, only in a private chat; when a
// 410 disables an endpoint, the account's chats are told why, and the
// operators' chats get an alert, cleared once the endpoint is deleted.
func TestWebhookCommands(t *testing.T) {
	for name, db := range map[string]bool{"sqlite": false, "postgres": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := []topupdtest.Option{topupdtest.WithWebhookReceivers(0)}
			if db {
				dsn, ok := topupdtest.PostgresDB(t)
				if !ok {
					t.Skip("TOPUPD_TEST_POSTGRES not set")
				}
				opts = append(opts, topupdtest.WithDB(dsn))
			}
			e := newEnv(t, opts...)
			var calls atomic.Int32
			rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if calls.Add(1) == 1 {
					w.WriteHeader(http.StatusNoContent)
					return
				}
				w.WriteHeader(http.StatusGone)
			}))
			t.Cleanup(rc.Close)
			a := e.h.NewAccount("", nil)
			shop, other := private(1001, "shop"), private(1002, "other")
			e.link(shop, a.ID)
			e.link(other, a.ID)
			e.h.NewOperator("ops", "support")
			opCode, err := e.h.AdminClient.OperatorChatLink(t.Context(), "ops")
			if err != nil {
				t.Fatal(err)
			}
			e.h.Logs.Secret(opCode.Code, "an operator's link code")
			ops := private(5001, "ops")
			e.expect(ops, "/start "+opCode.Code, "linked to operator ops")
			group := botapitest.Chat{ID: -2002, Type: "group", UserID: 1001, Username: "shop"}
			e.expect(group, "/webhook", "only in a private chat")
			e.expect(shop, "/webhook", "No webhook endpoints")
			e.expect(shop, "/webhook add http://", "Refused: url:")
			m := e.expect(shop, "/webhook add "+rc.URL+"/hook", "shown only here")
			secret := regexp.MustCompile(`whsec_[A-Za-z0-9+/=]+`).FindString(m.Text)
			id := regexp.MustCompile(`whe_[a-z0-9]+`).FindString(m.Text)
			if secret == "" || id == "" {
				t.Fatalf("added: %q", m.Text)
			}
			e.h.Logs.Secret(secret, "a webhook secret")
			e.expect(shop, "/webhook", id+" "+rc.URL+"/hook: every event; enabled; no deliveries yet")
			e.expect(shop, "/webhook test "+id, "queued")
			notice := func(chat botapitest.Chat, want string) {
				t.Helper()
				e.api.WaitMessage(chat.ID, func(m botapitest.Message) bool {
					return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, want)
				}, wait)
			}
			notice(shop, "The test of "+id+": delivered, the receiver answered HTTP 204.")
			e.expect(shop, "/webhook test "+id, "queued")
			notice(shop, "the first attempt failed, the receiver answered HTTP 410.")
			for _, c := range []botapitest.Chat{shop, other} {
				notice(c, "Webhook endpoint "+id+" ("+rc.URL+"/hook) was disabled: it answered 410 Gone.")
			}
			e.expect(shop, "/webhook", id+" "+rc.URL+"/hook: every event; disabled (gone); last delivery webhook.test failed (HTTP 410)")
			alert := "webhook endpoint " + id + " of " + a.ID + " (" + rc.URL + "/hook) is disabled (gone)."
			e.api.WaitMessage(ops.ID, func(m botapitest.Message) bool { return m.Text == telegram.AlertPrefix+alert }, wait)
			e.expect(shop, "/webhook rm whe_nope", "Refused: webhook endpoint whe_nope")
			ask := e.expect(shop, "/webhook rm "+id, "Delete webhook endpoint "+id)
			if done := e.press(shop, ask, button(t, ask, "Delete it")); !strings.Contains(done.Text, "is deleted") {
				t.Errorf("after pressing delete: %q", done.Text)
			}
			if r := e.h.AdminDo("GET", "/admin/webhooks/"+id, nil); r.Status != 404 {
				t.Errorf("the deleted endpoint: %v", r)
			}
			e.api.WaitMessage(ops.ID, func(m botapitest.Message) bool { return m.Text == telegram.ClearedPrefix+alert }, wait)
			e.expect(shop, "/webhook what", "Send /webhook")
		})
	}
}
