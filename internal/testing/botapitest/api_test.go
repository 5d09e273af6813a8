package botapitest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/botapitest"
)

// The tests here call the server over plain HTTP, as any client could.

// reply is a Bot API answer.
type reply struct {
	err         error
	status      int
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
}

// post posts a form to a method (a JSON body when params is a string);
// it is safe to call from any goroutine.
func post(s *botapitest.Server, tok, method string, params any) reply {
	u := s.URL() + "/bot" + tok + "/" + method
	var resp *http.Response
	var err error
	switch p := params.(type) {
	case string:
		resp, err = http.Post(u, "application/json", strings.NewReader(p))
	case url.Values:
		resp, err = http.PostForm(u, p)
	default:
		resp, err = http.Post(u, "", nil)
	}
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode}
	if resp.StatusCode == http.StatusBadGateway {
		return r
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return reply{err: fmt.Errorf("decoding the answer: %w", err)}
	}
	if r.OK != (r.status == http.StatusOK) || (!r.OK && r.ErrorCode != r.status) {
		return reply{err: fmt.Errorf("status %d with ok %v and error_code %d", r.status, r.OK, r.ErrorCode)}
	}
	return r
}

// call is post from the test's goroutine, failing the test on an error
// of HTTP or of the answer's shape.
func call(t *testing.T, s *botapitest.Server, tok, method string, params any) reply {
	t.Helper()
	return check(t, method, post(s, tok, method, params))
}

func check(t *testing.T, method string, r reply) reply {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", method, r.err)
	}
	return r
}

// callLater posts in another goroutine; the answer comes on the channel.
func callLater(s *botapitest.Server, method string, params any) <-chan reply {
	c := make(chan reply, 1)
	go func() { c <- post(s, token, method, params) }()
	return c
}

// updateIDs returns the update ids a getUpdates answered.
func updateIDs(t *testing.T, r reply) []int64 {
	t.Helper()
	var ups []struct {
		ID int64 `json:"update_id"`
	}
	if !r.OK || json.Unmarshal(r.Result, &ups) != nil {
		t.Fatalf("getUpdates answered %d %s %s", r.status, r.Description, r.Result)
	}
	ids := []int64{}
	for _, u := range ups {
		ids = append(ids, u.ID)
	}
	return ids
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func TestErrorsOfTheAPI(t *testing.T) {
	s := botapitest.New(t, token)
	s.Send(alice, "hi")
	s.SetBlocked(alice.ID, false)
	bob := botapitest.Chat{ID: 502, Type: "private"}
	s.Send(bob, "hi")
	s.SetBlocked(bob.ID, true)
	long := strings.Repeat("é", 4097)
	tests := []struct {
		name, method string
		params       any
		tok          string
		status       int
		desc         string
	}{
		{"wrong token", "getMe", nil, "123456:wrong", 401, "Unauthorized"},
		{"unknown method", "sendTelepathy", nil, token, 404, "Not Found"},
		{"no chat", "sendMessage", form("text", "x"), token, 400, "Bad Request: chat_id is empty"},
		{"unknown chat", "sendMessage", form("chat_id", "999", "text", "x"), token, 400, "Bad Request: chat not found"},
		{"blocked", "sendMessage", form("chat_id", "502", "text", "x"), token, 403, "Forbidden: bot was blocked by the user"},
		{"empty text", "sendMessage", form("chat_id", "501"), token, 400, "Bad Request: message text is empty"},
		{"too long", "sendMessage", form("chat_id", "501", "text", long), token, 400, "Bad Request: message is too long"},
		{"parse mode", "sendMessage", form("chat_id", "501", "text", "x", "parse_mode", "BBCode"), token, 400, "Bad Request: unsupported parse_mode"},
		{"html lone <", "sendMessage", form("chat_id", "501", "text", "1 < 2", "parse_mode", "HTML"), token, 400,
			`Bad Request: can't parse entities: Unsupported start tag "" at byte offset 2`},
		{"html unclosed", "sendMessage", form("chat_id", "501", "text", "<b>x", "parse_mode", "HTML"), token, 400,
			`Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`},
		{"html crossed", "sendMessage", form("chat_id", "501", "text", "<b><i>x</b></i>", "parse_mode", "HTML"), token, 400,
			`Bad Request: can't parse entities: Unmatched end tag at byte offset 7, expected "</i>", found "</b>"`},
		{"markdownv2 dot", "sendMessage", form("chat_id", "501", "text", "*Balance:* 10.50", "parse_mode", "MarkdownV2"), token, 400,
			`Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\'`},
		{"text button", "sendMessage", form("chat_id", "501", "text", "x", "reply_markup", `{"inline_keyboard":[[{"text":"a"}]]}`), token, 400,
			"Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"},
		{"long data", "sendMessage", form("chat_id", "501", "text", "x", "reply_markup", `{"inline_keyboard":[[{"text":"a","callback_data":"`+strings.Repeat("d", 65)+`"}]]}`), token, 400,
			"Bad Request: BUTTON_DATA_INVALID"},
		{"edit missing", "editMessageText", form("chat_id", "501", "message_id", "99", "text", "x"), token, 400, "Bad Request: message to edit not found"},
		{"edit user's", "editMessageText", form("chat_id", "501", "message_id", "1", "text", "x"), token, 400, "Bad Request: message can't be edited"},
		{"delete missing", "deleteMessage", form("chat_id", "501", "message_id", "99"), token, 400, "Bad Request: message to delete not found"},
		{"answer unknown", "answerCallbackQuery", form("callback_query_id", "42"), token, 400,
			"Bad Request: query is too old and response timeout expired or query ID is invalid"},
		{"command case", "setMyCommands", form("commands", `[{"command":"Start","description":"go"}]`), token, 400, "Bad Request: BOT_COMMAND_INVALID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, s, tt.tok, tt.method, tt.params)
			if r.status != tt.status || r.Description != tt.desc {
				t.Errorf("got %d %q, want %d %q", r.status, r.Description, tt.status, tt.desc)
			}
		})
	}
	if got := s.Messages(alice.ID); got != nil {
		t.Errorf("failed calls left messages: %v", got)
	}
}

func TestJSONAndFormBodies(t *testing.T) {
	s := botapitest.New(t, token)
	s.Send(alice, "hi")
	markup := `{"inline_keyboard":[[{"text":"Buy","callback_data":"buy:1"}]]}`
	r := call(t, s, token, "sendMessage", `{"chat_id":501,"text":"by JSON &amp; so","parse_mode":"HTML","reply_markup":`+markup+`}`)
	if !r.OK {
		t.Fatalf("JSON body: %d %s", r.status, r.Description)
	}
	var sent struct {
		MessageID int64 `json:"message_id"`
		Text      string
		From      struct {
			IsBot bool `json:"is_bot"`
		}
		ReplyMarkup json.RawMessage `json:"reply_markup"`
	}
	if err := json.Unmarshal(r.Result, &sent); err != nil || sent.MessageID != 2 || sent.Text != "by JSON & so" || !sent.From.IsBot {
		t.Errorf("sendMessage result %s (%v)", r.Result, err)
	}
	if r := call(t, s, token, "sendMessage", form("chat_id", "501", "text", "by *form*", "parse_mode", "Markdown")); !r.OK {
		t.Fatalf("form body: %d %s", r.status, r.Description)
	}
	r = call(t, s, token, "editMessageReplyMarkup", form("chat_id", "501", "message_id", "2", "reply_markup", markup))
	if r.Description != "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message" {
		t.Errorf("the same markup again: %d %q", r.status, r.Description)
	}
	if r := call(t, s, token, "editMessageReplyMarkup", form("chat_id", "501", "message_id", "2")); !r.OK {
		t.Errorf("removing the keyboard: %d %s", r.status, r.Description)
	}
	if r := call(t, s, token, "deleteMessage", `{"chat_id":"501","message_id":3}`); !r.OK {
		t.Errorf("deleteMessage: %d %s", r.status, r.Description)
	}
	want := []botapitest.Message{{ID: 2, Text: "by JSON & so", ParseMode: "HTML"}}
	if diff := cmp.Diff(want, s.Messages(alice.ID)); diff != "" {
		t.Errorf("Messages (-want +got):\n%s", diff)
	}

	if r := call(t, s, token, "setMyCommands", `{"commands":[{"command":"balance","description":"Show the balance"}]}`); !r.OK {
		t.Errorf("setMyCommands: %d %s", r.status, r.Description)
	}
	if diff := cmp.Diff([]botapitest.Command{{Command: "balance", Description: "Show the balance"}}, s.Commands()); diff != "" {
		t.Errorf("Commands (-want +got):\n%s", diff)
	}
	if got := s.Calls("SENDMESSAGE"); got != 2 {
		t.Errorf("Calls(SENDMESSAGE) = %d, want 2", got)
	}
}

func TestGetUpdatesOffset(t *testing.T) {
	s := botapitest.New(t, token)
	if got := updateIDs(t, call(t, s, token, "getUpdates", nil)); len(got) != 0 {
		t.Fatalf("no updates yet, got %v", got)
	}
	a := s.Send(alice, "a")
	b := s.Send(alice, "b")
	for _, tt := range []struct {
		name    string
		params  url.Values
		want    []int64
		pending int
	}{
		{"no offset", nil, []int64{a, b}, 2},
		{"unconfirmed come again", form("offset", "0"), []int64{a, b}, 2},
		{"limit", form("limit", "1"), []int64{a}, 2},
		{"offset confirms below", form("offset", fmt.Sprint(b)), []int64{b}, 1},
		{"confirmed are gone", form("offset", "1"), []int64{b}, 1},
		{"offset past the last", form("offset", fmt.Sprint(b+1)), []int64{}, 0},
	} {
		var params any
		if tt.params != nil {
			params = tt.params
		}
		got := updateIDs(t, call(t, s, token, "getUpdates", params))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: update ids (-want +got):\n%s", tt.name, diff)
		}
		if p := s.Pending(); p != tt.pending {
			t.Errorf("%s: Pending() = %d, want %d", tt.name, p, tt.pending)
		}
	}

	// After RequeueFrom, the next answer ignores its offset, once.
	s.RequeueFrom(a)
	if diff := cmp.Diff([]int64{a, b}, updateIDs(t, call(t, s, token, "getUpdates", form("offset", fmt.Sprint(b+1))))); diff != "" {
		t.Errorf("after RequeueFrom (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{}, updateIDs(t, call(t, s, token, "getUpdates", form("offset", fmt.Sprint(b+1))))); diff != "" {
		t.Errorf("the offset after the redelivery (-want +got):\n%s", diff)
	}
	c := s.Send(alice, "c")
	if c != b+1 {
		t.Errorf("the next update id is %d, want %d", c, b+1)
	}
}

func TestLongPoll(t *testing.T) {
	s := botapitest.New(t, token)

	start := time.Now()
	if got := updateIDs(t, call(t, s, token, "getUpdates", form("timeout", "1"))); len(got) != 0 {
		t.Fatalf("got %v, want none", got)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("a long poll with timeout 1 answered after %v", d)
	}

	// An update queued while a poll waits answers it at once (the poll
	// would otherwise wait 50 s).
	done := callLater(s, "getUpdates", form("timeout", "50"))
	eventually(t, "the poll waits", func() bool { return s.Pollers() == 1 })
	start = time.Now()
	id := s.Send(alice, "hi")
	if diff := cmp.Diff([]int64{id}, updateIDs(t, check(t, "getUpdates", <-done))); diff != "" {
		t.Errorf("woken poll (-want +got):\n%s", diff)
	}
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("the waiting poll answered %v after the update", d)
	}
}

// As Telegram's server does, a new long poll terminates the one waiting.
func TestConcurrentPollTerminatesTheWaitingOne(t *testing.T) {
	s := botapitest.New(t, token)
	first := callLater(s, "getUpdates", form("timeout", "50"))
	eventually(t, "the first poll waits", func() bool { return s.Pollers() == 1 })
	second := callLater(s, "getUpdates", form("timeout", "50"))

	r := check(t, "getUpdates", <-first)
	if r.status != 409 || r.Description != "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running" {
		t.Errorf("the first poll got %d %q, want 409 Conflict", r.status, r.Description)
	}
	if got := s.Conflicts(); got != 1 {
		t.Errorf("Conflicts() = %d, want 1", got)
	}
	id := s.Send(alice, "hi")
	if diff := cmp.Diff([]int64{id}, updateIDs(t, check(t, "getUpdates", <-second))); diff != "" {
		t.Errorf("the second poll (-want +got):\n%s", diff)
	}
}

func TestDown(t *testing.T) {
	s := botapitest.New(t, token)
	waiting := callLater(s, "getUpdates", form("timeout", "50"))
	eventually(t, "the poll waits", func() bool { return s.Pollers() == 1 })
	s.SetDown(true)
	if r := check(t, "getUpdates", <-waiting); r.status != http.StatusBadGateway {
		t.Errorf("the waiting poll got %d when the API went down, want 502", r.status)
	}
	if r := call(t, s, token, "getMe", nil); r.status != http.StatusBadGateway {
		t.Errorf("getMe while down: %d, want 502", r.status)
	}
	id := s.Send(alice, "hi")
	s.SetDown(false)
	if diff := cmp.Diff([]int64{id}, updateIDs(t, call(t, s, token, "getUpdates", nil))); diff != "" {
		t.Errorf("the update sent while down (-want +got):\n%s", diff)
	}
	if got := s.Calls("getMe"); got != 1 {
		t.Errorf("Calls(getMe) = %d, want 1 (calls while down count)", got)
	}
}

func TestAnswerOnce(t *testing.T) {
	s := botapitest.New(t, token)
	s.Send(alice, "hi")
	if r := call(t, s, token, "sendMessage", form("chat_id", "501", "text", "Pay?", "reply_markup", `{"inline_keyboard":[[{"text":"Pay","callback_data":"pay"}]]}`)); !r.OK {
		t.Fatalf("sendMessage: %s", r.Description)
	}
	press := s.Press(alice, 2, "pay")
	r := call(t, s, token, "getUpdates", nil)
	var ups []struct {
		CallbackQuery struct {
			ID      string `json:"id"`
			Data    string `json:"data"`
			Message struct {
				MessageID int64 `json:"message_id"`
				Date      int64 `json:"date"`
			} `json:"message"`
		} `json:"callback_query"`
	}
	if err := json.Unmarshal(r.Result, &ups); err != nil || len(ups) != 2 {
		t.Fatalf("getUpdates: %s (%v)", r.Result, err)
	}
	q := ups[1].CallbackQuery
	if q.Data != "pay" || q.Message.MessageID != 2 || q.Message.Date == 0 {
		t.Errorf("callback query %+v", q)
	}
	if r := call(t, s, token, "answerCallbackQuery", form("callback_query_id", q.ID, "text", "Paid", "show_alert", "true")); !r.OK {
		t.Fatalf("answerCallbackQuery: %s", r.Description)
	}
	if r := call(t, s, token, "answerCallbackQuery", form("callback_query_id", q.ID)); r.status != 400 {
		t.Errorf("a second answer: %d %s, want 400", r.status, r.Description)
	}
	if diff := cmp.Diff([]botapitest.CallbackAnswer{{UpdateID: press, Text: "Paid", ShowAlert: true}}, s.CallbackAnswers()); diff != "" {
		t.Errorf("CallbackAnswers (-want +got):\n%s", diff)
	}
}

// fatalTB records a Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// fails runs f and returns the Fatalf message it caused.
func (f *fatalTB) fails(do func()) (msg string) {
	f.msg = ""
	defer func() {
		if r := recover(); r != f {
			if r != nil {
				panic(r)
			}
		}
		msg = f.msg
	}()
	do()
	return ""
}

func TestMisuseFailsTheTest(t *testing.T) {
	tb := &fatalTB{TB: t}
	s := botapitest.New(tb, token)
	s.Send(alice, "hi")
	call(t, s, token, "sendMessage", form("chat_id", "501", "text", "Pay?", "reply_markup", `{"inline_keyboard":[[{"text":"Pay","callback_data":"pay"}]]}`))
	for _, tt := range []struct {
		name string
		do   func()
		want string
	}{
		{"no such button", func() { s.Press(alice, 2, "refund") }, `has no button with data "refund"`},
		{"user's message", func() { s.Press(alice, 1, "pay") }, "has no message 1 from the bot"},
		{"timeout", func() { s.WaitMessage(alice.ID, hasText("never"), 50*time.Millisecond) }, "satisfied the test within"},
		{"group without user", func() { s.Send(botapitest.Chat{ID: -5, Type: "group"}, "/start") }, "needs the writing user's UserID"},
		{"positive group", func() { s.Send(botapitest.Chat{ID: 5, Type: "group", UserID: 1}, "/start") }, "want a private chat with a positive id"},
		{"unknown update", func() { s.RequeueFrom(1) }, "no such update"},
	} {
		if got := tb.fails(tt.do); !strings.Contains(got, tt.want) {
			t.Errorf("%s: failed with %q, want it to say %q", tt.name, got, tt.want)
		}
	}
	if got := s.Pending(); got != 1 {
		t.Errorf("Pending() = %d after the misuses, want 1", got)
	}
}
