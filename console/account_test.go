package console_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestAccountKeysAndFlags: support makes a key with a label on an
// account's page, shown once, and it works on the reseller API; revoking
// it (confirmed) stops it. Turning adminDisabled on refuses the account's
// calls; an allow-list that leaves out the caller refuses them; a bad
// allow-list entry is refused and changes nothing.
func TestAccountKeysAndFlags(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	sup := b.setUp("sup", "support")
	b.signIn(sup)
	a := b.h.NewAccount("5", nil)
	b.open("/console/accounts/" + a.ID)
	b.fill(map[string]string{"[name=label]": "shop server"})
	b.click("#create-key")
	key, keyID := b.text("#api-key"), strings.Trim(b.text("#new-key small"), "()")
	b.h.Logs.Secret(key, "the console's key")
	if r := b.h.Do("GET", "/balance", key, nil); r.Status != 200 {
		t.Fatalf("the new key on the reseller API: %v", r)
	}
	if got := b.text("#keys"); !strings.Contains(got, "shop server") {
		t.Errorf("the keys table: %q", got)
	}
	b.open("/console/accounts/" + a.ID)
	if b.has("#api-key") || strings.Contains(b.page(), key) {
		t.Errorf("the key is shown again")
	}
	b.confirm(`form[action$="/keys/` + keyID + `/revoke"] button`)
	if got := b.text("#flash"); !strings.Contains(got, "revoked") {
		t.Errorf("after revoking: %q", got)
	}
	if r := b.h.Do("GET", "/balance", key, nil); r.Status != 401 {
		t.Errorf("a revoked key: %v", r)
	}

	b.eval(`document.querySelector("[name=adminDisabled]").checked = true`)
	b.click("#save-flags")
	if r := b.h.Do("GET", "/balance", a.Key, nil); r.Status != 403 || r.Str("code") != "API_DISABLED_BY_ADMIN" {
		t.Errorf("after adminDisabled: %v", r)
	}
	b.eval(`document.querySelector("[name=adminDisabled]").checked = false`)
	b.click("#save-flags")

	b.fill(map[string]string{"#allowlist": "10.0.0.0/8\n300.1.1.1"})
	b.click("#save-allowlist")
	if got := b.text("#allowlist-error"); !strings.Contains(got, "300.1.1.1") {
		t.Errorf("a bad allow-list entry: %q", got)
	}
	if r := b.h.Do("GET", "/balance", a.Key, nil); r.Status != 200 {
		t.Errorf("after a refused allow-list: %v", r)
	}
	b.open("/console/accounts/" + a.ID)
	b.fill(map[string]string{"#allowlist": "10.0.0.0/8\n192.0.2.7"})
	b.click("#save-allowlist")
	if got := b.text("#flash"); got != "The allow-list is saved: 2 entries." {
		t.Errorf("after saving the allow-list: %q", got)
	}
	if r := b.h.Do("GET", "/balance", a.Key, nil); r.Status != 403 || r.Str("code") != "IP_NOT_ALLOWED" {
		t.Errorf("a caller outside the allow-list: %v", r)
	}
	acts, err := b.h.AdminClient.Actions(t.Context(), map[string][]string{"operator": {"sup"}})
	var names []string
	for _, a := range acts.Actions {
		names = append(names, a.Action)
	}
	if got := strings.Join(names, " "); err != nil || got != "account.update account.update account.update key.revoke key.create operator.setup" {
		t.Errorf("support's actions, newest first: %s (%v)", got, err)
	}
}

// TestOrderCompleteRetry: support completes an order by hand with a code
// (after a confirmation) and the reseller gets it; another is retried.
func TestOrderCompleteRetry(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	// A top-up that may take codes: bought from an upstream (a manual
	// top-up of our own delivers none) whose own pack is manual.
	up := topupdtest.New(t)
	up.LoadCatalog()
	at := up.NewAccount("100", nil)
	b.h.Logs.Secret(at.Key, "our key at the upstream")
	b.h.AdminCall("PUT", "/admin/upstreams/by-hand", map[string]any{"baseUrl": up.API.URL, "apiKey": at.Key}, nil)
	b.h.PutPack("pubg-by-hand", map[string]any{"slug": "pubg", "name": "60 UC by hand", "priceUsd": topupdtest.USD("2"), "status": "active",
		"provider": "upstream", "upstream": "by-hand", "upstreamPid": topupdtest.PIDPubgManual})
	sup := b.setUp("sup", "support")
	b.signIn(sup)
	a := b.h.NewAccount("10", nil)
	one := b.h.Place(a, map[string]any{"pid": "pubg-by-hand", "userId": "5123456789", "trxid": b.h.Trx()}).Str("orderId")
	two := b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123456789", "trxid": b.h.Trx()}).Str("orderId")
	b.open("/console/orders/" + one)
	b.fill(map[string]string{"[name=codes]": "UC CODE-1"})
	b.h.Logs.Secret("UC CODE-1", "a delivered code")
	b.click("#complete")
	if got := b.text("#question"); !strings.Contains(got, "1 code") {
		t.Errorf("the completion's question: %q", got)
	}
	b.click("#confirm")
	if got := b.text("#order-status"); got != "completed" {
		t.Errorf("after completing: %q", got)
	}
	if strings.Contains(b.page(), "UC CODE-1") {
		t.Errorf("the console shows a delivered code")
	}
	r := b.h.WaitOrder(a, one)
	if codes, _ := r.Body["codes"].([]any); len(codes) != 1 || codes[0] != "UC CODE-1" {
		t.Errorf("the reseller's order: %v", r)
	}
	b.open("/console/orders/" + two)
	b.confirm("#retry")
	if got := b.text("#flash"); got != "The order will be retried now." {
		t.Errorf("after retrying: %q", got)
	}
	if got := b.text("#history"); !strings.Contains(got, "retried") {
		t.Errorf("the history after a retry: %q", got)
	}
}

// TestAccountChats: support makes a chat link code on an account's page
// (shown once); the chat linked with it is listed there, and unlinking it
// (confirmed) removes it.
func TestAccountChats(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	sup := b.setUp("sup", "support")
	b.signIn(sup)
	a := b.h.NewAccount("5", nil)
	b.open("/console/accounts/" + a.ID)
	if got := b.text("#chats tbody"); got != "No chat is linked." {
		t.Errorf("the chats of a new account: %q", got)
	}
	b.click("#new-chat-link")
	code := b.text("#chat-code")
	b.h.Logs.Secret(code, "a chat link code")
	now := b.clock.Now()
	if _, err := b.h.Store.LinkChat(t.Context(), nil, topupd.HashSecret(code), topupd.Chat{ChatID: 4242, Username: "shop", LinkedAt: now},
		topupd.BotUpdate{UpdateID: 1, ChatID: 4242, At: now}); err != nil {
		t.Fatalf("linking with the console's code: %v", err)
	}
	b.open("/console/accounts/" + a.ID)
	if got := b.text("#chats tbody"); !strings.Contains(got, "4242") || !strings.Contains(got, "@shop") {
		t.Errorf("the linked chat: %q", got)
	}
	b.confirm("#chats button.danger")
	if got := b.text("#chats tbody"); got != "No chat is linked." {
		t.Errorf("after unlinking: %q", got)
	}
	if _, err := b.h.Store.Chat(t.Context(), 4242); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the unlinked chat in the store: %v", err)
	}
}
