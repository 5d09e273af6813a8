package telegram

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/service"
)

// These tests run the command dispatcher on a fake store, answering
// through the Bot API stand-in, one update at a time by calling handle:
// no database, no poller, so they run under -short. The conversation
// tests (commands_test.go and the rest) keep the whole flows.

// fakeStore is the bot's Store in memory. It is also the service's store
// for what the dispatcher asks of it (an operator's actor): every other
// method of service.Store is the nil embedded interface, so a command
// that reached an operation would panic the test.
type fakeStore struct {
	service.Store
	mu     sync.Mutex
	chats  map[int64]topupd.Chat
	ops    map[string]topupd.Operator
	seen   map[int64]bool
	offset int64
	links  int // LinkChat calls
	// upstreams and waiting are what the supplier alerts read.
	upstreams []topupd.Upstream
	waiting   int
}

var _ Store = (*fakeStore)(nil)

func (f *fakeStore) Chat(_ context.Context, chatID int64) (topupd.Chat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return c, topupd.Fail(topupd.ENotFound)
	}
	return c, nil
}

func (f *fakeStore) Operator(_ context.Context, name string) (topupd.Operator, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	op, ok := f.ops[name]
	if !ok {
		return op, topupd.Fail(topupd.ENotFound)
	}
	return op, nil
}

func (f *fakeStore) SeeOperator(context.Context, string, time.Time) error { return nil }

func (f *fakeStore) UpdateSeen(_ context.Context, id int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[id], nil
}

func (f *fakeStore) RecordUpdate(_ context.Context, u topupd.BotUpdate) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen[u.UpdateID] {
		return topupd.Fail(topupd.EConflict)
	}
	f.seen[u.UpdateID] = true
	return nil
}

func (f *fakeStore) SetBotOffset(_ context.Context, offset int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.offset = offset
	return nil
}

func (f *fakeStore) LinkChat(context.Context, *topupd.Change, topupd.KeyHash, topupd.Chat, topupd.BotUpdate) (topupd.Chat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.links++
	return topupd.Chat{}, topupd.Fail(topupd.EInvalidRequest)
}

func (f *fakeStore) Chats(context.Context, string, string) ([]topupd.Chat, error) { return nil, nil }
func (f *fakeStore) OperatorChats(context.Context) ([]topupd.Chat, error)         { return nil, nil }
func (f *fakeStore) TakeBotLease(context.Context, string, time.Time, time.Time) (bool, error) {
	return false, nil
}
func (f *fakeStore) ReleaseBotLease(context.Context, string) error { return nil }
func (f *fakeStore) BotOffset(context.Context) (int64, error)      { return 0, nil }
func (f *fakeStore) Balance(context.Context, string) (topupd.Money, error) {
	return 0, nil
}
func (f *fakeStore) BalanceAlertChats(context.Context) ([]topupd.Chat, error) { return nil, nil }
func (f *fakeStore) SetBalanceAlert(context.Context, *topupd.Change, int64, *topupd.Money, bool, topupd.BotUpdate) error {
	return nil
}
func (f *fakeStore) SetBalanceLow(context.Context, int64, bool) (bool, error) { return false, nil }
func (f *fakeStore) BotAlerts(context.Context) (map[string]string, error)     { return nil, nil }
func (f *fakeStore) SetBotAlert(context.Context, string, string, bool, time.Time) (bool, error) {
	return false, nil
}
func (f *fakeStore) LowStock(context.Context) (map[string]bool, error) { return nil, nil }

// unitBot is a bot over a fakeStore that answers through the stand-in.
type unitBot struct {
	t      *testing.T
	bot    *Bot
	store  *fakeStore
	api    *botapitest.Server
	client *tgbot.Bot
}

const unitToken = "123456:unit-test-token"

func newUnitBot(t *testing.T) *unitBot {
	t.Helper()
	api := botapitest.New(t, unitToken)
	store := &fakeStore{chats: map[int64]topupd.Chat{}, ops: map[string]topupd.Operator{}, seen: map[int64]bool{}}
	svc, err := service.New(service.Deps{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Deps{Token: unitToken, APIURL: api.URL(), Store: store, Service: svc, Holder: "unit"})
	if err != nil {
		t.Fatal(err)
	}
	client, err := tgbot.New(unitToken, tgbot.WithServerURL(api.URL()), tgbot.WithSkipGetMe())
	if err != nil {
		t.Fatal(err)
	}
	return &unitBot{t: t, bot: b, store: store, api: api, client: client}
}

// send has the chat's user send text, and returns the update the bot gets.
func (u *unitBot) send(c botapitest.Chat, text string) *models.Update {
	id := u.api.Send(c, text)
	if id == 0 {
		u.t.Fatalf("the stand-in did not pass %q in chat %d to the bot", text, c.ID)
	}
	user := c.UserID
	if user == 0 {
		user = c.ID
	}
	return &models.Update{ID: id, Message: &models.Message{Text: text, Chat: models.Chat{ID: c.ID, Type: models.ChatType(c.Type)},
		From: &models.User{ID: user, Username: c.Username}}}
}

// handle has the bot act on an update, and returns what it said in the
// chat meanwhile.
func (u *unitBot) handle(chatID int64, upd *models.Update) []string {
	before := len(u.api.Messages(chatID))
	u.bot.handle(u.t.Context(), u.client, upd)
	var said []string
	for _, m := range u.api.Messages(chatID)[before:] {
		said = append(said, m.Text)
	}
	return said
}

// say sends text and returns the bot's one answer.
func (u *unitBot) say(c botapitest.Chat, text string) string {
	u.t.Helper()
	said := u.handle(c.ID, u.send(c, text))
	if len(said) != 1 {
		u.t.Fatalf("%q in chat %d: the bot said %q, want one answer", text, c.ID, said)
	}
	return said[0]
}

// The chats of the tests: one of each kind, and a group.
var (
	unlinkedChat = botapitest.Chat{ID: 101, Type: "private", Username: "newcomer"}
	resellerChat = botapitest.Chat{ID: 102, Type: "private", Username: "shop"}
	operatorChat = botapitest.Chat{ID: 103, Type: "private", Username: "ops"}
	groupChat    = botapitest.Chat{ID: -104, Type: "group", UserID: 105, Username: "someone"}
)

func (u *unitBot) linkChats() {
	u.store.chats[resellerChat.ID] = topupd.Chat{ChatID: resellerChat.ID, AccountID: "acc_shop"}
	u.store.chats[operatorChat.ID] = topupd.Chat{ChatID: operatorChat.ID, Operator: "olga"}
	u.store.ops["olga"] = topupd.Operator{Name: "olga", Role: topupd.RoleSupport}
}

func TestDispatchHelpPerChatKind(t *testing.T) {
	u := newUnitBot(t)
	u.linkChats()
	tests := []struct {
		chat      botapitest.Chat
		text      string
		want      []string
		wantNotIn []string
	}{
		{chat: unlinkedChat, text: "/help", want: []string{"This is the topupd bot.", "/start <code> – links this chat"},
			wantNotIn: []string{"/balance", "/stuck"}},
		{chat: unlinkedChat, text: "/start", want: []string{"/start <code> – links this chat"}},
		{chat: resellerChat, text: "/help", want: []string{"/balance – the balance", "/newkey [label]", "/api on, /api off",
			"/webhook add <URL>", "Keys and webhook secrets are shown only in a private chat."}, wantNotIn: []string{"/stuck", "/start <code>"}},
		{chat: resellerChat, text: "/HELP@topupd_test_bot", want: []string{"/balance – the balance"}},
		{chat: operatorChat, text: "/help", want: []string{"/stuck – ", "/suppliers – ", "/find <trxid or orderId>", "/credit <accountId> <usd> <reference>"},
			wantNotIn: []string{"/balance", "/newkey"}},
	}
	for _, tt := range tests {
		got := u.say(tt.chat, tt.text)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q in the %s chat: the bot said %q, want it to hold %q", tt.text, tt.chat.Username, got, w)
			}
		}
		for _, w := range tt.wantNotIn {
			if strings.Contains(got, w) {
				t.Errorf("%q in the %s chat: the bot said %q, which holds %q of another kind of chat", tt.text, tt.chat.Username, got, w)
			}
		}
	}
}

func TestDispatchPrivateOnlyInGroup(t *testing.T) {
	u := newUnitBot(t)
	u.linkChats()
	for _, tt := range []struct{ text, want string }{
		{"/keys", "/keys works only in a private chat with the bot"},
		{"/newkey shop", "/newkey [label] works only in a private chat with the bot"},
		{"/start abcdef", "/start <code> works only in a private chat with the bot"},
	} {
		if got := u.say(groupChat, tt.text); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q in a group: the bot said %q, want %q", tt.text, got, tt.want)
		}
	}
	if u.store.links != 0 {
		t.Errorf("a link code sent in a group was looked up %d times, want 0", u.store.links)
	}
	// The same link code in a private chat is looked up.
	if got := u.say(unlinkedChat, "/start abcdef"); !strings.Contains(got, "That link code is unknown, used or expired.") {
		t.Errorf("/start <code> in a private chat: the bot said %q", got)
	}
	if u.store.links != 1 {
		t.Errorf("a link code sent in a private chat was looked up %d times, want 1", u.store.links)
	}
}

func TestDispatchUnknownCommand(t *testing.T) {
	u := newUnitBot(t)
	u.linkChats()
	for _, tt := range []struct {
		chat       botapitest.Chat
		text, want string
	}{
		{unlinkedChat, "/balance", "This chat is not linked to an account."},
		{resellerChat, "/stuck", "I do not know that command. /help lists them."},
		{resellerChat, "/suppliers", "I do not know that command. /help lists them."},
		{operatorChat, "/balance", "I do not know that command. /help lists them."},
		{operatorChat, "/frobnicate", "I do not know that command. /help lists them."},
	} {
		if got := u.say(tt.chat, tt.text); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q in the %s chat: the bot said %q, want %q", tt.text, tt.chat.Username, got, tt.want)
		}
	}
}

func TestDispatchActsOnceOnAnUpdate(t *testing.T) {
	u := newUnitBot(t)
	u.linkChats()
	upd := u.send(resellerChat, "/help")
	if said := u.handle(resellerChat.ID, upd); len(said) != 1 {
		t.Fatalf("/help: the bot said %q, want one answer", said)
	}
	if !u.store.seen[upd.ID] || u.store.offset != upd.ID {
		t.Fatalf("after update %d: recorded %v, offset %d; want it recorded and the offset at it", upd.ID, u.store.seen[upd.ID], u.store.offset)
	}
	// Redelivered (a crash before the offset moved on): not answered again.
	if said := u.handle(resellerChat.ID, upd); len(said) != 0 {
		t.Fatalf("update %d redelivered: the bot said %q, want nothing", upd.ID, said)
	}
	// A refusal records its update too.
	upd = u.send(groupChat, "/keys")
	u.handle(groupChat.ID, upd)
	if said := u.handle(groupChat.ID, upd); len(said) != 0 || !u.store.seen[upd.ID] {
		t.Fatalf("a refused update redelivered: the bot said %q (recorded %v), want nothing", said, u.store.seen[upd.ID])
	}
}
