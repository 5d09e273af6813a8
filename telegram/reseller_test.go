package telegram_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// TestLinking: a chat that is not linked gets only /start and /help; a
// valid code links it once; a used, expired or unknown one is refused and
// links nothing; a code in a group is refused.
func TestLinking(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.expect(shop, "/balance", "not linked")
		e.expect(shop, "/help", "/start <code>")
		e.expect(shop, "/start not-a-code", "unknown, used or expired")
		code, err := e.h.AdminClient.ChatLink(t.Context(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "a link code")
		group := botapitest.Chat{ID: -2002, Type: "group", UserID: 77, Username: "shop"}
		e.expect(group, "/start "+code.Code, "only in a private chat")
		e.expect(shop, "/start "+code.Code, "linked to account "+a.ID)
		other := private(1002, "thief")
		e.expect(other, "/start "+code.Code, "unknown, used or expired")
		e.expect(other, "/balance", "not linked")
		old, err := e.h.AdminClient.ChatLink(t.Context(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(old.Code, "a link code")
		e.clock.Advance(16 * time.Minute)
		e.expect(other, "/start "+old.Code, "unknown, used or expired")
		chats, err := e.h.AdminClient.Chats(t.Context(), a.ID)
		if err != nil || len(chats) != 1 || chats[0].ChatID != shop.ID || chats[0].Username != "shop" {
			t.Errorf("the account's chats: %+v %v", chats, err)
		}
		e.expect(shop, "/balance", "Balance: 10.00 USD")
	})
}

// TestResellerCommands: every reseller command, with good and bad input,
// as the chat shows it and as the database holds it; each change in the
// action log under chat:<id>.
func TestResellerCommands(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a, b := e.h.NewAccount("10", nil), e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)

		m := e.expect(shop, "/newkey shop server", "shown only here")
		key := strings.Fields(m.Text[strings.Index(m.Text, "safe:")+5:])[0]
		e.h.Logs.Secret(key, "the chat's key")
		if r := e.h.Do("GET", "/balance", key, nil); r.Status != 200 {
			t.Fatalf("the chat's key on the reseller API: %v", r)
		}
		keyID := m.Text[strings.LastIndex(m.Text, " ")+1:]
		e.expect(shop, "/keys", keyID+" shop server")
		group := botapitest.Chat{ID: -2002, Type: "group", UserID: 1001, Username: "shop"}
		e.link(private(1003, "shop2"), a.ID)
		for _, cmd := range []string{"/newkey", "/keys", "/revoke " + a.KeyID, "/rotate " + a.KeyID} {
			e.expect(group, cmd, "only in a private chat")
		}
		e.expect(shop, "/revoke "+b.KeyID, "no key "+b.KeyID)
		ask := e.expect(shop, "/revoke "+keyID, "Revoke key "+keyID)
		done := e.press(shop, ask, button(t, ask, "Revoke it"))
		if !strings.Contains(done.Text, "is revoked") {
			t.Errorf("after pressing revoke: %q", done.Text)
		}
		if r := e.h.Do("GET", "/balance", key, nil); r.Status != 401 {
			t.Errorf("a revoked key: %v", r)
		}
		e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool {
			return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, "API key "+keyID+" was revoked. (by a linked chat)")
		}, wait)
		ask = e.expect(shop, "/revoke "+a.KeyID, "Revoke key")
		if got := e.press(shop, ask, button(t, ask, "Cancel")); !strings.Contains(got.Text, "nothing was changed") {
			t.Errorf("after cancel: %q", got.Text)
		}
		if r := e.h.Do("GET", "/balance", a.Key, nil); r.Status != 200 {
			t.Errorf("a key whose revocation was cancelled: %v", r)
		}

		e.expect(shop, "/api off", "API access is off")
		if r := e.h.Do("GET", "/balance", a.Key, nil); r.Status != 403 || r.Str("code") != "API_DISABLED" {
			t.Errorf("after /api off: %v", r)
		}
		e.expect(shop, "/api on", "API access is on")
		e.h.PatchAccount(topupdtest.Account{ID: a.ID}, map[string]any{"adminDisabled": true})
		e.expect(shop, "/api on", "cannot lift")
		if r := e.h.Do("GET", "/balance", a.Key, nil); r.Status != 403 || r.Str("code") != "API_DISABLED_BY_ADMIN" {
			t.Errorf("after /api on while adminDisabled: %v", r)
		}
		e.h.PatchAccount(topupdtest.Account{ID: a.ID}, map[string]any{"adminDisabled": false})
		e.expect(shop, "/api maybe", "/api on or /api off")

		e.expect(shop, "/ip", "empty")
		e.expect(shop, "/ip add 300.1.1.1", "Refused")
		e.expect(shop, "/ip add 10.0.0.0/8", "Added 10.0.0.0/8")
		e.expect(shop, "/ip add 10.0.0.0/8", "already")
		e.expect(shop, "/ip add 192.0.2.7", "Added")
		e.expect(shop, "/ip rm 198.51.100.1", "not in the allow-list")
		if r := e.h.Do("GET", "/balance", a.Key, nil); r.Status != 403 || r.Str("code") != "IP_NOT_ALLOWED" {
			t.Errorf("a caller outside the chat's allow-list: %v", r)
		}
		e.expect(shop, "/ip required on", "now required")
		e.expect(shop, "/ip", "10.0.0.0/8\n192.0.2.7")
		e.expect(shop, "/ip rm 10.0.0.0/8", "Removed")
		e.expect(shop, "/ip rm 192.0.2.7", "Removed")
		if r := e.h.Do("GET", "/balance", a.Key, nil); r.Status != 403 || r.Str("code") != "IP_ALLOWLIST_REQUIRED" {
			t.Errorf("required and empty: %v", r)
		}
		e.expect(shop, "/ip required off", "not required")
		e.expect(shop, "/ip please", "Send /ip")

		trx := e.h.Trx()
		o := e.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": trx})
		got := e.expect(shop, "/order "+trx, "completed")
		for _, c := range e.h.Codes[topupdtest.PIDKey] {
			if strings.Contains(got.Text, c) {
				t.Errorf("/order shows a code: %q", got.Text)
			}
		}
		e.expect(shop, "/order "+o.Str("orderId"), "completed")
		// A trxid of digits is a trxid, not the internal number of another order.
		digits := e.h.AdminOK(http.StatusOK, "GET", "/admin/orders/"+o.Str("orderId"), nil).Str("id")
		e.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": digits})
		e.expect(shop, "/order "+digits, "(trxid "+digits+")")
		bo := e.h.Place(b, map[string]any{"pid": topupdtest.PIDKey, "trxid": e.h.Trx()})
		e.expect(shop, "/order "+bo.Str("orderId"), "No order")
		e.expect(shop, "/frobnicate", "/help")

		acts, err := e.h.AdminClient.Actions(t.Context(), url.Values{"operator": {"chat:1001"}, "limit": {"100"}})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i := len(acts.Actions) - 1; i >= 0; i-- {
			names = append(names, acts.Actions[i].Action)
		}
		want := "chat.link key.create key.revoke account.update account.update account.update account.update account.update account.update account.update account.update"
		if strings.Join(names, " ") != want {
			t.Errorf("the chat's actions:\n%s\nwant\n%s", strings.Join(names, " "), want)
		}
	})
}

// TestRotate: /rotate shows a new key once; the old key keeps working for
// 24 hours beside it (on the server's clock), then is refused; another
// account's key, or an unknown one, is refused and nothing changes.
func TestRotate(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a, b := e.h.NewAccount("10", nil), e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		m := e.expect(shop, "/rotate "+a.KeyID, "keeps working until")
		key := strings.Fields(m.Text[strings.Index(m.Text, "safe:")+5:])[0]
		e.h.Logs.Secret(key, "the rotated key")
		e.expect(shop, "/rotate "+b.KeyID, "Refused")
		e.expect(shop, "/rotate key_nope", "Refused")
		e.expect(shop, "/keys", "stops working")
		e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool {
			return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, "API key "+a.KeyID+" was rotated")
		}, wait)
		for _, c := range []struct {
			after     time.Duration
			old, next int
		}{{0, 200, 200}, {23 * time.Hour, 200, 200}, {time.Hour + time.Second, 401, 200}} {
			e.clock.Advance(c.after)
			if got := e.h.Do("GET", "/balance", a.Key, nil).Status; got != c.old {
				t.Errorf("the old key %v on: %d, want %d", c.after, got, c.old)
			}
			if got := e.h.Do("GET", "/balance", key, nil).Status; got != c.next {
				t.Errorf("the new key %v on: %d, want %d", c.after, got, c.next)
			}
		}
		if r := e.h.Do("GET", "/balance", b.Key, nil); r.Status != 200 {
			t.Errorf("the other account's key: %v", r)
		}
	})
}
