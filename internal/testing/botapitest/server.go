// Package botapitest is a stand-in for the Telegram Bot API on
// loopback, for driving whole conversations with a bot in tests.
//
// The server keeps chats, messages and the update queue in memory and
// answers the Bot API methods a bot of this project calls with Telegram's
// own JSON shapes and error texts. The test plays the users (Send, Press),
// reads what the bot shows (Messages, WaitMessage) and injects faults
// (SetDown, SetBlocked, RequeueFrom):
//
//	s := botapitest.New(t, "123456:test")
//	b, _ := bot.New("123456:test", bot.WithServerURL(s.URL()), bot.WithSkipGetMe(), ...)
//	go b.Start(ctx) // cancel ctx, and wait for Start to return, before the test ends
//	s.Send(alice, "/start")
//	m := s.WaitMessage(alice.ID, func(m botapitest.Message) bool { ... }, 10*time.Second)
//	s.Press(alice, m.ID, "topup:10")
//
// As the real Bot API does, getUpdates confirms the updates below its
// offset, a long poll returns as soon as there are updates, and a second
// long poll terminates the first with 409 Conflict. Texts are checked as
// Telegram checks them: parse_mode HTML and MarkdownV2 are parsed (with
// TDLib's error messages), lengths counted in UTF-16 code units, inline
// keyboards validated.
package botapitest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/loopback"
)

// BotUsername is the username getMe reports for the bot.
const BotUsername = "topupd_test_bot"

// Chat is a chat the test writes in as a user, and that user.
type Chat struct {
	// ID is the chat's id: positive for a private chat, negative for a group.
	ID int64
	// Type is "private", "group" or "supergroup".
	Type string
	// Title is a group's title (a default one when empty).
	Title string
	// UserID is the writing user's id: required in a group; in a private
	// chat 0 means ID.
	UserID int64
	// Username is the writing user's username, without "@"; it may be empty.
	Username string
}

// Message is a message the bot shows in a chat, with its edits applied.
type Message struct {
	// ID is the message's id in its chat.
	ID int64
	// Text is the text as the user sees it: with parse_mode HTML or
	// MarkdownV2 the markup is gone and entities and escapes decoded;
	// legacy Markdown is kept as sent.
	Text string
	// ParseMode is the parse_mode the text was sent or last edited with.
	ParseMode string
	// Buttons is the inline keyboard, one slice per row.
	Buttons [][]Button
}

// Button is an inline keyboard button.
type Button struct {
	// Text is the button's label.
	Text string
	// Data is the callback data a press sends to the bot.
	Data string
	// URL is the link of a URL button.
	URL string
}

// CallbackAnswer is the bot's answer to a button press (answerCallbackQuery).
type CallbackAnswer struct {
	// UpdateID is the callback_query update answered (what Press returned).
	UpdateID int64
	// Text is the notification shown to the user.
	Text string
	// ShowAlert says the text is shown as an alert.
	ShowAlert bool
	// URL is the URL the user's app is to open.
	URL string
}

// Command is a command the bot registered with setMyCommands.
type Command struct {
	// Command is the command's name, without "/".
	Command string
	// Description is the command's description.
	Description string
}

// Server is the stand-in Bot API for one bot. Its methods are safe for
// concurrent use; those that fail the test must be called from the test's
// goroutine.
type Server struct {
	t     testing.TB
	srv   *loopback.Server
	token string
	botID int64
	quit  chan struct{} // closed at cleanup: long polls return

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced on every change
	down      bool
	updates   []update // every update queued, in id order from firstUpdateID
	head      int64    // the first update id not confirmed yet
	redeliver bool     // the next getUpdates answer ignores its offset
	allowed   []string // allowed_updates; nil means the default set
	chats     map[int64]*chatState
	calls     map[string]int
	pollers   int
	conflicts int
	waiting   *longPoll        // the long poll waiting for updates
	queries   map[string]int64 // unanswered callback query ids → update ids
	answers   []CallbackAnswer
	commands  []Command
}

// firstUpdateID is the first update's id: not 1, so that a bot cannot
// get away with assuming where Telegram's ids start.
const firstUpdateID = 1000

type update struct {
	id   int64
	kind string // "message" or "callback_query"
	body any    // the object under kind
}

type chatState struct {
	Chat
	blocked bool
	lastID  int64 // the last message id given in the chat
	msgs    []*message
}

type message struct {
	id        int64
	fromBot   bool
	raw       string // the text as sent, before parsing
	text      string
	parseMode string
	buttons   [][]Button
	date      int64
	editDate  int64
}

// New starts a stand-in Bot API for the bot with this token (which must
// look like Telegram's, "123456:secret"); it is closed when the test ends.
func New(t testing.TB, token string) *Server {
	t.Helper()
	idText, _, ok := strings.Cut(token, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || id <= 0 {
		t.Fatalf("botapitest.New: token %q is not like Telegram's \"123456:secret\"", token)
	}
	s := &Server{
		t:       t,
		token:   token,
		botID:   id,
		quit:    make(chan struct{}),
		changed: make(chan struct{}),
		head:    firstUpdateID,
		chats:   map[int64]*chatState{},
		calls:   map[string]int{},
		queries: map[string]int64{},
	}
	s.srv = loopback.Serve(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		close(s.quit)
		s.srv.Close()
	})
	return s
}

// URL is the base URL to give to bot.WithServerURL.
func (s *Server) URL() string { return s.srv.URL }

// notify wakes whoever waits for a change; s.mu must be held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// nextUpdateID is the id the next update will get; s.mu must be held.
func (s *Server) nextUpdateID() int64 { return firstUpdateID + int64(len(s.updates)) }

// queue adds an update, unless the bot's allowed_updates leave its kind
// out (Telegram does not keep those); it returns the update's id or 0.
// s.mu must be held.
func (s *Server) queue(kind string, body any) int64 {
	if s.allowed != nil && !slices.Contains(s.allowed, kind) {
		return 0
	}
	id := s.nextUpdateID()
	s.updates = append(s.updates, update{id: id, kind: kind, body: body})
	s.notify()
	return id
}

// chat registers a chat the test writes in, or updates what is known of
// it; s.mu must be held.
func (s *Server) chat(c Chat) *chatState {
	s.t.Helper()
	switch {
	case c.Type == "private" && c.ID > 0:
		if c.UserID == 0 {
			c.UserID = c.ID
		}
		if c.UserID != c.ID {
			s.t.Fatalf("botapitest: private chat %d with user %d: a private chat's id is its user's", c.ID, c.UserID)
		}
	case (c.Type == "group" || c.Type == "supergroup") && c.ID < 0:
		if c.UserID <= 0 {
			s.t.Fatalf("botapitest: group chat %d needs the writing user's UserID", c.ID)
		}
		if c.Title == "" {
			c.Title = "Group " + strconv.FormatInt(-c.ID, 10)
		}
	default:
		s.t.Fatalf("botapitest: chat %d of type %q: want a private chat with a positive id or a group with a negative one", c.ID, c.Type)
	}
	cs := s.chats[c.ID]
	if cs == nil {
		cs = &chatState{}
		s.chats[c.ID] = cs
	}
	cs.Chat = c
	return cs
}

// Send has the chat's user send text to the bot, and returns the update's
// id. In a group, as with a bot's default privacy mode, only commands
// reach the bot (and not those addressed to another bot): for other text
// Send returns 0 and queues nothing.
func (s *Server) Send(c Chat, text string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chat(c)
	cs.lastID++
	m := &message{id: cs.lastID, raw: text, text: text, date: time.Now().Unix()}
	cs.msgs = append(cs.msgs, m)
	if cs.Type != "private" && !commandFor(text, BotUsername) {
		return 0
	}
	return s.queue("message", userMessageJSON(cs.Chat, m))
}

// Press has the chat's user press the inline button with callback data
// data under the bot's message messageID, and returns the callback_query
// update's id. It fails the test when the message has no such button.
func (s *Server) Press(c Chat, messageID int64, data string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chat(c)
	i := slices.IndexFunc(cs.msgs, func(m *message) bool { return m.id == messageID })
	if i < 0 || !cs.msgs[i].fromBot {
		s.t.Fatalf("botapitest: Press: chat %d has no message %d from the bot", c.ID, messageID)
	}
	m := cs.msgs[i]
	if !slices.ContainsFunc(m.buttons, func(row []Button) bool {
		return slices.ContainsFunc(row, func(b Button) bool { return b.Data == data })
	}) {
		s.t.Fatalf("botapitest: Press: message %d in chat %d has no button with data %q; its buttons: %v", messageID, c.ID, data, m.buttons)
	}
	id := s.nextUpdateID()
	queryID := strconv.FormatInt(s.botID*1_000_000_000+id, 10)
	got := s.queue("callback_query", callbackQueryJSON{
		ID:           queryID,
		From:         userJSONOf(cs.Chat),
		Message:      s.messageJSON(cs, m),
		ChatInstance: strconv.FormatInt(c.ID, 10),
		Data:         data,
	})
	if got != 0 {
		s.queries[queryID] = got
	}
	return got
}

// Messages returns the messages the bot shows in the chat, oldest first,
// with edits applied and deleted ones gone.
func (s *Server) Messages(chatID int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.botMessages(chatID)
}

func (s *Server) botMessages(chatID int64) []Message {
	cs := s.chats[chatID]
	if cs == nil {
		return nil
	}
	var ms []Message
	for _, m := range cs.msgs {
		if m.fromBot {
			ms = append(ms, Message{ID: m.id, Text: m.text, ParseMode: m.parseMode, Buttons: cloneButtons(m.buttons)})
		}
	}
	return ms
}

// WaitMessage waits for the bot to show a message in the chat that
// satisfies pred, and returns it; when several do, the newest. It fails
// the test when none does within timeout (give seconds, not
// milliseconds: a busy machine is slow). To wait for a new message, have
// pred look at the ID.
func (s *Server) WaitMessage(chatID int64, pred func(Message) bool, timeout time.Duration) Message {
	s.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ms := s.botMessages(chatID)
		changed := s.changed
		s.mu.Unlock()
		for i := len(ms) - 1; i >= 0; i-- {
			if pred(ms[i]) {
				return ms[i]
			}
		}
		select {
		case <-changed:
		case <-deadline.C:
			s.t.Fatalf("botapitest: no message in chat %d satisfied the test within %v; the bot shows %s", chatID, timeout, describe(ms))
		}
	}
}

func describe(ms []Message) string {
	if len(ms) == 0 {
		return "none"
	}
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "\n  #%d %q %v", m.ID, m.Text, m.Buttons)
	}
	return b.String()
}

// CallbackAnswers returns the bot's answers to button presses, in order.
func (s *Server) CallbackAnswers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.answers)
}

// Commands returns the commands the bot last set with setMyCommands.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.commands)
}

// SetDown takes the API down (every request, and every long poll in
// flight, gets 502 Bad Gateway from the "proxy") or brings it back up.
// Users' messages sent meanwhile wait in the queue, as with Telegram.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	s.notify()
}

// SetBlocked has the user of a private chat block the bot (sendMessage
// gets 403 Forbidden) or unblock it.
func (s *Server) SetBlocked(chatID int64, blocked bool) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chats[chatID]
	if cs == nil {
		s.t.Fatalf("botapitest: SetBlocked: no chat %d (Send in it first)", chatID)
	}
	cs.blocked = blocked
}

// RequeueFrom makes every update from updateID on pending again, and the
// next getUpdates answer returns them whatever its offset (after that,
// offsets confirm as usual). It stands for Telegram delivering updates
// again: to a bot that crashed between receiving an update and acting on
// it, when the next one polls, or twice to a running bot.
func (s *Server) RequeueFrom(updateID int64) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if updateID < firstUpdateID || updateID >= s.nextUpdateID() {
		s.t.Fatalf("botapitest: RequeueFrom(%d): no such update (ids %d to %d)", updateID, firstUpdateID, s.nextUpdateID()-1)
	}
	s.head = min(s.head, updateID)
	s.redeliver = true
	s.notify()
}

// Pending returns how many updates are queued and not confirmed yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(s.nextUpdateID() - s.head)
}

// Calls returns how many requests for a Bot API method (its name in any
// case) the server received, whatever their answer, also while down.
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[strings.ToLower(method)]
}

// Pollers returns how many getUpdates requests are in flight now: 0 or 1
// while a single bot polls.
func (s *Server) Pollers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pollers
}

// Conflicts returns how many getUpdates requests were terminated by
// another with 409 Conflict.
func (s *Server) Conflicts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conflicts
}

func cloneButtons(rows [][]Button) [][]Button {
	if rows == nil {
		return nil
	}
	out := make([][]Button, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	return out
}
