package telegram_test

import (
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// token is the test bot's token.
const token = "123456:test-token-never-logged"

// wait is how long a test waits for the bot to answer: generous, so that
// a busy machine does not fail a test.
const wait = 15 * time.Second

// env is a server with a bot on a Bot API stand-in, on a fake clock.
type env struct {
	t     *testing.T
	h     *topupdtest.T
	api   *botapitest.Server
	clock *topupdtest.Clock
	sent  int
}

// newEnv starts the stand-in and a server whose bot polls it.
func newEnv(t *testing.T, opts ...topupdtest.Option) *env {
	t.Helper()
	api := botapitest.New(t, token)
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, append([]topupdtest.Option{topupdtest.WithClock(clock), topupdtest.WithTelegram(api.URL(), token)}, opts...)...)
	return &env{t: t, h: h, api: api, clock: clock}
}

// private is a private chat with a user.
func private(id int64, username string) botapitest.Chat {
	return botapitest.Chat{ID: id, Type: "private", Username: username}
}

// say sends text in a chat and returns the bot's next message there.
func (e *env) say(c botapitest.Chat, text string) botapitest.Message {
	e.t.Helper()
	_, m := e.sayID(c, text)
	return m
}

// sayID is say, with the id of the update sent.
func (e *env) sayID(c botapitest.Chat, text string) (int64, botapitest.Message) {
	e.t.Helper()
	e.sent++
	if e.sent%15 == 0 { // within the chats' 20 commands a minute
		e.clock.Advance(time.Minute)
	}
	last := e.lastID(c.ID)
	id := e.api.Send(c, text)
	return id, e.api.WaitMessage(c.ID, func(m botapitest.Message) bool { return m.ID > last && asked(m) }, wait)
}

// asked reports whether a bot message answers a chat: not a notice nor
// an alert sent unasked.
func asked(m botapitest.Message) bool {
	return !strings.HasPrefix(m.Text, telegram.NoticePrefix) && !strings.HasPrefix(m.Text, telegram.AlertPrefix) &&
		!strings.HasPrefix(m.Text, telegram.ClearedPrefix)
}

// expect sends text and fails unless the answer contains want.
func (e *env) expect(c botapitest.Chat, text, want string) botapitest.Message {
	e.t.Helper()
	m := e.say(c, text)
	if !strings.Contains(m.Text, want) {
		e.t.Errorf("%q in chat %d: the bot said %q, want it to say %q", text, c.ID, m.Text, want)
	}
	return m
}

// lastID is the id of the bot's newest message in a chat, or 0.
func (e *env) lastID(chatID int64) int64 {
	ms := e.api.Messages(chatID)
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].ID
}

// link links a chat to an account with a fresh code.
func (e *env) link(c botapitest.Chat, accountID string) {
	e.t.Helper()
	code, err := e.h.AdminClient.ChatLink(e.t.Context(), accountID)
	if err != nil {
		e.t.Fatal(err)
	}
	e.h.Logs.Secret(code.Code, "a chat link code")
	e.expect(c, "/start "+code.Code, "linked to account "+accountID)
}

// press presses a button of a bot message and waits for the message to
// change.
func (e *env) press(c botapitest.Chat, m botapitest.Message, data string) botapitest.Message {
	e.t.Helper()
	e.api.Press(c, m.ID, data)
	return e.api.WaitMessage(c.ID, func(x botapitest.Message) bool { return x.ID == m.ID && x.Text != m.Text }, wait)
}

// button is the data of a message's button labelled text.
func button(t *testing.T, m botapitest.Message, text string) string {
	t.Helper()
	for _, row := range m.Buttons {
		for _, b := range row {
			if b.Text == text {
				return b.Data
			}
		}
	}
	t.Fatalf("no button %q on %q (%v)", text, m.Text, m.Buttons)
	return ""
}

// eachStore runs a conversation on SQLite and, when TOPUPD_TEST_POSTGRES
// is set, on PostgreSQL too, each with a bot of its own.
func eachStore(t *testing.T, run func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		run(t, newEnv(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn, ok := topupdtest.PostgresDB(t)
		if !ok {
			t.Skip("TOPUPD_TEST_POSTGRES not set: the conversation runs on SQLite only")
		}
		run(t, newEnv(t, topupdtest.WithDB(dsn)))
	})
}
