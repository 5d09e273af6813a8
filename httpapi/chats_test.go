package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// codeRe is what a chat link code looks like.
var codeRe = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// newChatCode asks for a chat link code at path and checks the answer: a
// fresh code, valid 15 minutes from now, and no url (the server is not
// told the bot's username). The code is registered as a secret of the log.
func newChatCode(t *testing.T, h *topupdtest.T, path string) string {
	t.Helper()
	r := h.AdminOK(http.StatusCreated, "POST", path, nil)
	code := r.Str("code")
	h.Logs.Secret(code, "a chat link code")
	if !codeRe.MatchString(code) {
		t.Errorf("code %q", code)
	}
	if want := h.Now().Add(topupd.ChatLinkTTL).UTC().Format(time.RFC3339Nano); r.Str("expiresAt") != want {
		t.Errorf("expiresAt %s, want %s", r.Str("expiresAt"), want)
	}
	if !r.Has("url") || r.Str("url") != "" {
		t.Errorf("url: %s", r.Raw)
	}
	return code
}

// linkChat plays the bot: it spends a code for a chat, as /start <code> does.
func linkChat(t *testing.T, h *topupdtest.T, code string, chatID int64, username string, update int64) topupd.Chat {
	t.Helper()
	c, err := h.Store.LinkChat(context.Background(), nil, topupd.HashSecret(code), topupd.Chat{ChatID: chatID, Username: username, LinkedAt: h.Now()},
		topupd.BotUpdate{UpdateID: update, ChatID: chatID, At: h.Now()})
	if err != nil {
		t.Fatalf("linking chat %d: %v", chatID, err)
	}
	return c
}

// TestChatLinks: an account's code links a chat once; the account's chats
// are listed and one is unlinked; an operator's code links the operator's
// chat; unknown accounts, operators and chats are 404, a chat id that is
// not a number is 400; each change is in the action log, the code never.
func TestChatLinks(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.NewOperator("kim", "support")
	a := h.NewAccount("", nil)

	code := newChatCode(t, h, "/admin/accounts/"+a.ID+"/chat-links")
	clock.Advance(time.Minute)
	linkChat(t, h, code, 77, "shop", 1)
	if _, err := h.Store.LinkChat(context.Background(), nil, topupd.HashSecret(code), topupd.Chat{ChatID: 78, LinkedAt: h.Now()},
		topupd.BotUpdate{UpdateID: 2, ChatID: 78}); topupd.CodeOf(err) != topupd.EInvalidRequest {
		t.Errorf("the code spent twice: %v", err)
	}
	clock.Advance(time.Minute)
	linkChat(t, h, newChatCode(t, h, "/admin/accounts/"+a.ID+"/chat-links"), -1001, "", 3)

	r := h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID+"/chats", nil)
	wantChats := map[string]any{"success": true, "chats": []any{
		map[string]any{"chatId": json.Number("77"), "username": "shop", "linkedAt": h.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)},
		map[string]any{"chatId": json.Number("-1001"), "username": "", "linkedAt": h.Now().UTC().Format(time.RFC3339Nano)},
	}}
	if diff := cmp.Diff(wantChats, r.Body); diff != "" {
		t.Errorf("chats (-want +got):\n%s", diff)
	}

	for _, c := range []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{"POST", "/admin/accounts/acc_nobody/chat-links", nil, 404, "NOT_FOUND"},
		{"GET", "/admin/accounts/acc_nobody/chats", nil, 404, "NOT_FOUND"},
		{"DELETE", "/admin/accounts/acc_nobody/chats/77", nil, 404, "NOT_FOUND"},
		{"DELETE", "/admin/accounts/" + a.ID + "/chats/78", nil, 404, "NOT_FOUND"},
		{"DELETE", "/admin/accounts/" + a.ID + "/chats/shop", nil, 400, "INVALID_REQUEST"},
		{"DELETE", "/admin/accounts/" + a.ID + "/chats/1.5", nil, 400, "INVALID_REQUEST"},
		{"DELETE", "/admin/accounts/" + a.ID + "/chats/99999999999999999999", nil, 400, "INVALID_REQUEST"},
		{"POST", "/admin/accounts/" + a.ID + "/chat-links", map[string]any{"ttl": 60}, 400, "INVALID_BODY"},
		{"POST", "/admin/operators/nobody/chat-links", nil, 404, "NOT_FOUND"},
		{"POST", "/admin/operators/root/chat-links", nil, 404, "NOT_FOUND"},
	} {
		r := h.AdminDo(c.method, c.path, c.body)
		if r.Status != c.status || r.Str("code") != c.code {
			t.Errorf("%s %s: %v, want %d %s", c.method, c.path, r, c.status, c.code)
		}
	}

	if r := h.AdminOK(http.StatusOK, "DELETE", "/admin/accounts/"+a.ID+"/chats/77", nil); strings.TrimSpace(string(r.Raw)) != `{"success":true}` {
		t.Errorf("unlinking: %s", r.Raw)
	}
	if chats, err := h.AdminClient.Chats(context.Background(), a.ID); err != nil || len(chats) != 1 || chats[0].ChatID != -1001 {
		t.Errorf("chats after unlinking 77: %+v, %v", chats, err)
	}
	if r := h.AdminDo("DELETE", "/admin/accounts/"+a.ID+"/chats/77", nil); r.Status != 404 {
		t.Errorf("unlinking twice: %v", r)
	}

	opCode := newChatCode(t, h, "/admin/operators/kim/chat-links")
	if c := linkChat(t, h, opCode, 500, "kim_tg", 4); c.Operator != "kim" || c.AccountID != "" {
		t.Errorf("kim's chat: %+v", c)
	}
	if chats, err := h.Store.OperatorChats(context.Background()); err != nil || len(chats) != 1 || chats[0].ChatID != 500 {
		t.Errorf("operators' chats: %+v, %v", chats, err)
	}

	entries := map[string][]map[string]any{}
	for _, x := range actionsOf(t, h, "?limit=500") {
		if action := x["action"].(string); strings.Contains(action, "chat") {
			x["id"], x["at"], x["requestId"], x["ip"] = nil, nil, nil, nil
			entries[action] = append(entries[action], x)
		}
	}
	expires := func(at time.Time) string { return at.Add(topupd.ChatLinkTTL).UTC().Format(time.RFC3339Nano) }
	start := h.Now().Add(-2 * time.Minute)
	wantEntries := map[string][]map[string]any{
		"chat.link-code": {
			{"id": nil, "at": nil, "requestId": nil, "ip": nil, "operator": "root", "action": "chat.link-code", "target": a.ID, "accountId": a.ID,
				"before": map[string]any{}, "after": map[string]any{"chatLinkExpiresAt": expires(start.Add(2 * time.Minute))}},
			{"id": nil, "at": nil, "requestId": nil, "ip": nil, "operator": "root", "action": "chat.link-code", "target": a.ID, "accountId": a.ID,
				"before": map[string]any{}, "after": map[string]any{"chatLinkExpiresAt": expires(start)}},
		},
		"chat.unlink": {
			{"id": nil, "at": nil, "requestId": nil, "ip": nil, "operator": "root", "action": "chat.unlink", "target": "77", "accountId": a.ID,
				"before": map[string]any{"chatId": json.Number("77"), "username": "shop", "accountId": a.ID}, "after": map[string]any{}},
		},
		"operator.chat-link-code": {
			{"id": nil, "at": nil, "requestId": nil, "ip": nil, "operator": "root", "action": "operator.chat-link-code", "target": "kim",
				"before": map[string]any{}, "after": map[string]any{"chatLinkExpiresAt": expires(h.Now())}},
		},
	}
	if diff := cmp.Diff(wantEntries, entries); diff != "" {
		t.Errorf("action log entries (-want +got):\n%s", diff)
	}
}

// TestChatLinkRoles: codes and unlinking are for the roles that manage
// account keys (support, owner), an operator's code for the owner; every
// role reads an account's chats. A forbidden call is 403 and changes
// nothing.
func TestChatLinkRoles(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t, topupdtest.WithClock(topupdtest.NewClock()))
	a := h.NewAccount("", nil)
	tokens := map[string]string{}
	for _, role := range []string{"owner", "finance", "support", "viewer"} {
		tokens[role] = h.NewOperator("op-"+role, role)
	}
	chat := int64(1)
	link := func() string {
		chat++
		code := newChatCode(t, h, "/admin/accounts/"+a.ID+"/chat-links")
		linkChat(t, h, code, chat, "", chat)
		return "/admin/accounts/" + a.ID + "/chats/" + strconv.FormatInt(chat, 10)
	}
	for _, c := range []struct {
		name    string
		method  string
		path    func() string
		allowed []string
	}{
		{"account code", "POST", func() string { return "/admin/accounts/" + a.ID + "/chat-links" }, []string{"owner", "support"}},
		{"operator code", "POST", func() string { return "/admin/operators/op-viewer/chat-links" }, []string{"owner"}},
		{"unlink", "DELETE", link, []string{"owner", "support"}},
		{"chats", "GET", func() string { return "/admin/accounts/" + a.ID + "/chats" }, []string{"owner", "finance", "support", "viewer"}},
	} {
		for role, token := range tokens {
			path := c.path()
			before := len(actionsOf(t, h, "?limit=500"))
			chats := string(h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID+"/chats", nil).Raw)
			r := h.AdminAs(token, c.method, path, nil)
			h.Logs.Secret(r.Str("code"), "a chat link code")
			if contains(c.allowed, role) {
				if r.Status/100 != 2 {
					t.Errorf("%s as %s: %v, want it allowed", c.name, role, r)
				}
				continue
			}
			wantFailure(t, r, 403, "ROLE_FORBIDDEN", "ROLE FORBIDDEN")
			if after := len(actionsOf(t, h, "?limit=500")); after != before {
				t.Errorf("%s as %s: %d entries in the action log, want %d", c.name, role, after, before)
			}
			if got := string(h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID+"/chats", nil).Raw); got != chats {
				t.Errorf("%s as %s: the chats changed:\n%s\n%s", c.name, role, chats, got)
			}
		}
	}
}
