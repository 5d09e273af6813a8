package botapitest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/botapitest"
)

// The tests here drive the server with the real go-telegram/bot client.

const (
	token = "123456:test-token"
	// wait is how long a test waits for the bot: generous, as a busy
	// machine is slow; a passing test does not wait that long.
	wait = 10 * time.Second
)

var alice = botapitest.Chat{ID: 501, Type: "private", Username: "alice"}

// errorLog collects the errors the library reports while polling.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) add(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

func (l *errorLog) has(target error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.errs, func(err error) bool { return errors.Is(err, target) })
}

func (l *errorLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.errs)
}

// startBot starts a bot polling s; it is stopped by the returned function
// or when the test ends. Handlers run on the bot's worker, so that a
// stopped bot has no handler left running.
func startBot(t *testing.T, s *botapitest.Server, errs *errorLog, opts ...bot.Option) (*bot.Bot, func()) {
	t.Helper()
	if errs == nil {
		errs = &errorLog{}
	}
	opts = append([]bot.Option{
		bot.WithServerURL(s.URL()),
		bot.WithSkipGetMe(),
		bot.WithNotAsyncHandlers(),
		bot.WithErrorsHandler(errs.add),
	}, opts...)
	b, err := bot.New(token, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Start(ctx)
	}()
	stop := sync.OnceFunc(func() {
		cancel()
		<-done
	})
	t.Cleanup(stop)
	return b, stop
}

// echo answers a text message with its text.
func echo(ctx context.Context, b *bot.Bot, u *models.Update) {
	if u.Message == nil {
		return
	}
	_, _ = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: u.Message.Chat.ID, Text: u.Message.Text})
}

func hasText(text string) func(botapitest.Message) bool {
	return func(m botapitest.Message) bool { return m.Text == text }
}

// eventually waits until cond holds, failing the test after wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEcho(t *testing.T) {
	s := botapitest.New(t, token)
	startBot(t, s, nil, bot.WithDefaultHandler(echo))

	s.Send(alice, "hello")
	s.WaitMessage(alice.ID, hasText("hello"), wait)
	s.Send(alice, "again, with ünïcödé")
	s.WaitMessage(alice.ID, hasText("again, with ünïcödé"), wait)

	// Message ids are the chat's: the user's messages took 1 and 3.
	want := []botapitest.Message{{ID: 2, Text: "hello"}, {ID: 4, Text: "again, with ünïcödé"}}
	if diff := cmp.Diff(want, s.Messages(alice.ID)); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}
	if got := s.Calls("sendMessage"); got != 2 {
		t.Errorf("Calls(sendMessage) = %d, want 2", got)
	}
}

func TestInlineButtonRoundTrip(t *testing.T) {
	s := botapitest.New(t, token)
	var seen struct {
		sync.Mutex
		text, from string
	}
	b, _ := startBot(t, s, nil)
	b.RegisterHandler(bot.HandlerTypeMessageText, "menu", bot.MatchTypeCommand, func(ctx context.Context, b *bot.Bot, u *models.Update) {
		_, _ = b.SendMessage(ctx, &bot.SendMessageParams{
			ChatID:    u.Message.Chat.ID,
			Text:      "<b>Top up</b> 10 &amp; more?",
			ParseMode: models.ParseModeHTML,
			ReplyMarkup: &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{
				{{Text: "Yes", CallbackData: "topup:yes"}, {Text: "No", CallbackData: "topup:no"}},
				{{Text: "Help", URL: "https://example.com/help"}},
			}},
		})
	})
	b.RegisterHandler(bot.HandlerTypeCallbackQueryData, "topup:", bot.MatchTypePrefix, func(ctx context.Context, b *bot.Bot, u *models.Update) {
		q := u.CallbackQuery
		seen.Lock()
		seen.text, seen.from = q.Message.Message.Text, q.From.Username
		seen.Unlock()
		_, _ = b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: "Done"})
		_, _ = b.EditMessageText(ctx, &bot.EditMessageTextParams{
			ChatID:    q.Message.Message.Chat.ID,
			MessageID: q.Message.Message.ID,
			Text:      "Chosen: " + strings.TrimPrefix(q.Data, "topup:"),
		})
	})

	s.Send(alice, "/menu")
	menu := s.WaitMessage(alice.ID, func(m botapitest.Message) bool { return len(m.Buttons) > 0 }, wait)
	wantMenu := botapitest.Message{ID: 2, Text: "Top up 10 & more?", ParseMode: "HTML", Buttons: [][]botapitest.Button{
		{{Text: "Yes", Data: "topup:yes"}, {Text: "No", Data: "topup:no"}},
		{{Text: "Help", URL: "https://example.com/help"}},
	}}
	if diff := cmp.Diff(wantMenu, menu); diff != "" {
		t.Fatalf("menu (-want +got):\n%s", diff)
	}

	press := s.Press(alice, menu.ID, "topup:yes")
	// editMessageText without reply_markup takes the keyboard away.
	s.WaitMessage(alice.ID, func(m botapitest.Message) bool { return m.Text == "Chosen: yes" && m.Buttons == nil }, wait)
	if diff := cmp.Diff([]botapitest.CallbackAnswer{{UpdateID: press, Text: "Done"}}, s.CallbackAnswers()); diff != "" {
		t.Errorf("CallbackAnswers (-want +got):\n%s", diff)
	}
	seen.Lock()
	defer seen.Unlock()
	if seen.text != "Top up 10 & more?" || seen.from != "alice" {
		t.Errorf("the callback query came with message %q from %q, want %q from alice", seen.text, seen.from, "Top up 10 & more?")
	}
}

func TestGroupGetsOnlyCommands(t *testing.T) {
	s := botapitest.New(t, token)
	startBot(t, s, nil, bot.WithDefaultHandler(echo))
	group := botapitest.Chat{ID: -100200, Type: "group", Title: "Resellers", UserID: 77, Username: "bob"}

	if id := s.Send(group, "hello everyone"); id != 0 {
		t.Errorf("plain text in a group queued update %d; with privacy mode the bot does not get it", id)
	}
	if id := s.Send(group, "/start@another_bot"); id != 0 {
		t.Errorf("another bot's command queued update %d", id)
	}
	s.Send(group, "/start@"+botapitest.BotUsername)
	s.WaitMessage(group.ID, hasText("/start@"+botapitest.BotUsername), wait)
	s.Send(group, "/balance")
	s.WaitMessage(group.ID, hasText("/balance"), wait)
	want := []botapitest.Message{{ID: 4, Text: "/start@" + botapitest.BotUsername}, {ID: 6, Text: "/balance"}}
	if diff := cmp.Diff(want, s.Messages(group.ID)); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}
}

// The offset of the bot's next getUpdates confirms what it received.
func TestOffsetConfirmsUpdates(t *testing.T) {
	s := botapitest.New(t, token)
	var ids []int64
	for _, text := range []string{"one", "two", "three"} {
		ids = append(ids, s.Send(alice, text))
	}
	if !slices.IsSorted(ids) || ids[0] == ids[1] || ids[1] == ids[2] {
		t.Fatalf("update ids %v do not strictly increase", ids)
	}
	if got := s.Pending(); got != 3 {
		t.Fatalf("Pending() = %d before the bot polls, want 3", got)
	}

	var got struct {
		sync.Mutex
		ids []int64
	}
	startBot(t, s, nil, bot.WithDefaultHandler(func(ctx context.Context, b *bot.Bot, u *models.Update) {
		got.Lock()
		got.ids = append(got.ids, u.ID)
		got.Unlock()
		echo(ctx, b, u)
	}))
	s.WaitMessage(alice.ID, hasText("three"), wait)
	eventually(t, "the bot's next poll confirms the updates", func() bool { return s.Pending() == 0 })
	got.Lock()
	defer got.Unlock()
	if diff := cmp.Diff(ids, got.ids); diff != "" {
		t.Errorf("updates handled (-want +got):\n%s", diff)
	}
}

// A crash between receiving an update and acting on it: the next bot gets
// the update again once it is requeued.
func TestRequeueAfterCrash(t *testing.T) {
	s := botapitest.New(t, token)
	received := make(chan int64, 10)
	_, crash := startBot(t, s, nil, bot.WithDefaultHandler(func(_ context.Context, _ *bot.Bot, u *models.Update) {
		received <- u.ID // and dies before answering
	}))
	id := s.Send(alice, "top up 10")
	select {
	case got := <-received:
		if got != id {
			t.Fatalf("the bot received update %d, want %d", got, id)
		}
	case <-time.After(wait):
		t.Fatal("the first bot received no update")
	}
	eventually(t, "the first bot's next poll confirms the update", func() bool { return s.Pending() == 0 })
	crash()

	s.RequeueFrom(id)
	if got := s.Pending(); got != 1 {
		t.Fatalf("Pending() = %d after RequeueFrom, want 1", got)
	}
	startBot(t, s, nil, bot.WithDefaultHandler(echo))
	s.WaitMessage(alice.ID, hasText("top up 10"), wait)
}

// Telegram delivering an update twice to a running bot.
func TestRequeueToRunningBot(t *testing.T) {
	s := botapitest.New(t, token)
	received := make(chan int64, 10)
	startBot(t, s, nil, bot.WithDefaultHandler(func(ctx context.Context, b *bot.Bot, u *models.Update) {
		received <- u.ID
		echo(ctx, b, u)
	}))
	id := s.Send(alice, "top up 10")
	s.WaitMessage(alice.ID, hasText("top up 10"), wait)
	eventually(t, "the bot's next poll confirms the update", func() bool { return s.Pending() == 0 })
	s.RequeueFrom(id)
	eventually(t, "the bot acts on the update again", func() bool { return len(s.Messages(alice.ID)) == 2 })
	for range 2 {
		if got := <-received; got != id {
			t.Errorf("the bot received update %d, want %d", got, id)
		}
	}
}

func TestSecondPollerGetsConflict(t *testing.T) {
	s := botapitest.New(t, token)
	var errsA, errsB errorLog
	startBot(t, s, &errsA, bot.WithDefaultHandler(echo))
	eventually(t, "the first bot polls", func() bool { return s.Pollers() == 1 })
	_, stopB := startBot(t, s, &errsB, bot.WithDefaultHandler(echo))

	eventually(t, "a bot reports bot.ErrorConflict", func() bool {
		return errsA.has(bot.ErrorConflict) || errsB.has(bot.ErrorConflict)
	})
	if got := s.Conflicts(); got == 0 {
		t.Error("Conflicts() = 0 after a bot got 409 Conflict")
	}

	// With one poller left, the bot works again (after its backoff).
	stopB()
	s.Send(alice, "still there?")
	s.WaitMessage(alice.ID, hasText("still there?"), wait)
	if got := s.Pollers(); got > 1 {
		t.Errorf("Pollers() = %d with one bot", got)
	}
}

func TestBotRecoversWhenAPIComesBack(t *testing.T) {
	s := botapitest.New(t, token)
	var errs errorLog
	startBot(t, s, &errs, bot.WithDefaultHandler(echo))
	s.Send(alice, "one")
	s.WaitMessage(alice.ID, hasText("one"), wait)

	s.SetDown(true)
	polls := s.Calls("getUpdates")
	s.Send(alice, "two")
	eventually(t, "the bot retries getUpdates", func() bool { return s.Calls("getUpdates") >= polls+3 })
	if errs.len() == 0 {
		t.Error("the bot reported no error while the API was down")
	}
	if diff := cmp.Diff([]botapitest.Message{{ID: 2, Text: "one"}}, s.Messages(alice.ID)); diff != "" {
		t.Errorf("Messages while down (-want +got):\n%s", diff)
	}

	s.SetDown(false)
	s.WaitMessage(alice.ID, hasText("two"), wait)
}
