package botapitest

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// apiError is a Bot API error answer.
type apiError struct {
	code int
	desc string
}

func badRequest(desc string) *apiError {
	return &apiError{http.StatusBadRequest, "Bad Request: " + desc}
}

// args are a request's parameters: JSON values other than strings are
// kept as their JSON text, as in a form.
type args map[string]string

// method answers one Bot API method; s.mu is held.
type method func(s *Server, a args) (any, *apiError)

// methods are the Bot API methods served, by lower-case name (Telegram's
// method names are case-insensitive); getUpdates is served apart.
var methods = map[string]method{
	"getme":                  (*Server).getMe,
	"sendmessage":            (*Server).sendMessage,
	"editmessagetext":        (*Server).editMessageText,
	"editmessagereplymarkup": (*Server).editMessageReplyMarkup,
	"answercallbackquery":    (*Server).answerCallbackQuery,
	"deletemessage":          (*Server).deleteMessage,
	"setmycommands":          (*Server).setMyCommands,
	"deletewebhook":          (*Server).deleteWebhook,
	"getwebhookinfo":         (*Server).getWebhookInfo,
}

// serve answers <server>/bot<token>/<method>, by GET or POST, with
// parameters in the query, a form, a multipart form or a JSON object.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, name, ok2 := strings.Cut(rest, "/")
	name = strings.ToLower(name)
	a, argsErr := readArgs(r)
	// What the server answers is decided under one lock with the method's
	// work, so that SetDown takes effect between two requests.
	s.mu.Lock()
	if ok && ok2 {
		s.calls[name]++
	}
	m := methods[name]
	var apiErr *apiError
	switch {
	case s.down:
		s.mu.Unlock()
		writeDown(w)
		return
	case !ok || !ok2 || (r.Method != http.MethodGet && r.Method != http.MethodPost):
		apiErr = &apiError{http.StatusNotFound, "Not Found"}
	case token != s.token:
		apiErr = &apiError{http.StatusUnauthorized, "Unauthorized"}
	case m == nil && name != "getupdates":
		apiErr = &apiError{http.StatusNotFound, "Not Found"}
	case argsErr != nil:
		apiErr = badRequest(argsErr.Error())
	case name == "getupdates":
		s.getUpdates(w, r, a) // unlocks s.mu
		return
	}
	var result any
	if apiErr == nil {
		result, apiErr = m(s, a)
	}
	s.mu.Unlock()
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	writeResult(w, result)
}

// readArgs reads a request's parameters from its query and body.
func readArgs(r *http.Request) (args, error) {
	a := args{}
	for k, v := range r.URL.Query() {
		a[k] = v[0]
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 50<<20))
	if err != nil || len(body) == 0 {
		// go-telegram/bot sends a method without parameters (getMe) as an
		// empty body, without even a multipart form's closing boundary.
		return a, nil
	}
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			return nil, errString("can't parse JSON object")
		}
		for k, raw := range obj {
			var str string
			switch {
			case string(raw) == "null":
			case json.Unmarshal(raw, &str) == nil:
				a[k] = str
			default:
				a[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, errString("can't parse form")
		}
		for k, v := range form {
			a[k] = v[0]
		}
	case "multipart/form-data":
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, errString("can't parse multipart form")
			}
			v, err := io.ReadAll(p)
			if err != nil {
				return nil, errString("can't parse multipart form")
			}
			a[p.FormName()] = string(v)
		}
	}
	return a, nil
}

type errString string

func (e errString) Error() string { return string(e) }

func writeResult(w http.ResponseWriter, result any) {
	writeJSON(w, http.StatusOK, struct {
		OK     bool `json:"ok"`
		Result any  `json:"result"`
	}{true, result})
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.code, struct {
		OK          bool   `json:"ok"`
		ErrorCode   int    `json:"error_code"`
		Description string `json:"description"`
	}{false, e.code, e.desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeDown answers as the proxy in front of a Bot API that is down.
func writeDown(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = io.WriteString(w, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
}

func (s *Server) getMe(args) (any, *apiError) {
	return struct {
		userJSON
		CanJoinGroups           bool `json:"can_join_groups"`
		CanReadAllGroupMessages bool `json:"can_read_all_group_messages"`
		SupportsInlineQueries   bool `json:"supports_inline_queries"`
	}{userJSON: s.botUser(), CanJoinGroups: true}, nil
}

// target finds the chat a method's chat_id names.
func (s *Server) target(a args) (*chatState, *apiError) {
	v, ok := a["chat_id"]
	if !ok || v == "" {
		return nil, badRequest("chat_id is empty")
	}
	id, err := strconv.ParseInt(v, 10, 64)
	cs := s.chats[id]
	if err != nil || cs == nil {
		return nil, badRequest("chat not found")
	}
	return cs, nil
}

// targetMessage finds the message a method's chat_id and message_id name.
func (s *Server) targetMessage(a args, notFound string) (*chatState, int, *apiError) {
	if a["inline_message_id"] != "" {
		return nil, 0, badRequest("inline messages are not supported by botapitest")
	}
	cs, apiErr := s.target(a)
	if apiErr != nil {
		return nil, 0, apiErr
	}
	id, err := strconv.ParseInt(a["message_id"], 10, 64)
	if err != nil {
		return nil, 0, badRequest("message identifier is not specified")
	}
	i := slices.IndexFunc(cs.msgs, func(m *message) bool { return m.id == id })
	if i < 0 {
		return nil, 0, badRequest(notFound)
	}
	return cs, i, nil
}

func (s *Server) sendMessage(a args) (any, *apiError) {
	cs, apiErr := s.target(a)
	if apiErr != nil {
		return nil, apiErr
	}
	if cs.blocked {
		return nil, &apiError{http.StatusForbidden, "Forbidden: bot was blocked by the user"}
	}
	text, buttons, apiErr := content(a)
	if apiErr != nil {
		return nil, apiErr
	}
	cs.lastID++
	m := &message{id: cs.lastID, fromBot: true, raw: a["text"], text: text, parseMode: a["parse_mode"], buttons: buttons, date: time.Now().Unix()}
	cs.msgs = append(cs.msgs, m)
	s.notify()
	return s.messageJSON(cs, m), nil
}

// editMessageText changes a message's text; like Telegram, it takes the
// inline keyboard away unless reply_markup gives it again.
func (s *Server) editMessageText(a args) (any, *apiError) {
	cs, m, apiErr := s.botMessage(a)
	if apiErr != nil {
		return nil, apiErr
	}
	text, buttons, apiErr := content(a)
	if apiErr != nil {
		return nil, apiErr
	}
	return s.edit(cs, m, a["text"], text, a["parse_mode"], buttons)
}

// editMessageReplyMarkup changes a message's inline keyboard, or takes it
// away when reply_markup is absent.
func (s *Server) editMessageReplyMarkup(a args) (any, *apiError) {
	cs, m, apiErr := s.botMessage(a)
	if apiErr != nil {
		return nil, apiErr
	}
	buttons, apiErr := inlineKeyboard(a["reply_markup"])
	if apiErr != nil {
		return nil, apiErr
	}
	return s.edit(cs, m, m.raw, m.text, m.parseMode, buttons)
}

// botMessage finds the message a call edits, which the bot must have sent.
func (s *Server) botMessage(a args) (*chatState, *message, *apiError) {
	cs, i, apiErr := s.targetMessage(a, "message to edit not found")
	if apiErr != nil {
		return nil, nil, apiErr
	}
	if !cs.msgs[i].fromBot {
		return nil, nil, badRequest("message can't be edited")
	}
	return cs, cs.msgs[i], nil
}

// content reads a message's text, parsed in its parse mode, and its inline
// keyboard.
func content(a args) (string, [][]Button, *apiError) {
	text, apiErr := formatText(a["text"], a["parse_mode"])
	if apiErr != nil {
		return "", nil, apiErr
	}
	buttons, apiErr := inlineKeyboard(a["reply_markup"])
	return text, buttons, apiErr
}

func (s *Server) edit(cs *chatState, m *message, raw, text, parseMode string, buttons [][]Button) (any, *apiError) {
	if raw == m.raw && parseMode == m.parseMode && slices.EqualFunc(buttons, m.buttons, slices.Equal[[]Button]) {
		return nil, badRequest("message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")
	}
	m.raw, m.text, m.parseMode, m.buttons = raw, text, parseMode, buttons
	m.editDate = time.Now().Unix()
	s.notify()
	return s.messageJSON(cs, m), nil
}

func (s *Server) deleteMessage(a args) (any, *apiError) {
	cs, i, apiErr := s.targetMessage(a, "message to delete not found")
	if apiErr != nil {
		return nil, apiErr
	}
	cs.msgs = slices.Delete(cs.msgs, i, i+1)
	s.notify()
	return true, nil
}

func (s *Server) answerCallbackQuery(a args) (any, *apiError) {
	id := a["callback_query_id"]
	updateID, ok := s.queries[id]
	if !ok {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	delete(s.queries, id)
	s.answers = append(s.answers, CallbackAnswer{UpdateID: updateID, Text: a["text"], ShowAlert: a["show_alert"] == "true", URL: a["url"]})
	s.notify()
	return true, nil
}

var commandNameRE = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

func (s *Server) setMyCommands(a args) (any, *apiError) {
	var cs []Command
	var list []struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	if err := json.Unmarshal([]byte(a["commands"]), &list); err != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	for _, c := range list {
		if !commandNameRE.MatchString(c.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := utf16Len(c.Description); n < 1 || n > 256 {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
		cs = append(cs, Command{Command: c.Command, Description: c.Description})
	}
	s.commands = cs
	return true, nil
}

func (s *Server) deleteWebhook(a args) (any, *apiError) {
	if a["drop_pending_updates"] == "true" {
		s.head = s.nextUpdateID()
		s.notify()
	}
	return true, nil
}

func (s *Server) getWebhookInfo(args) (any, *apiError) {
	return struct {
		URL                  string `json:"url"`
		HasCustomCertificate bool   `json:"has_custom_certificate"`
		PendingUpdateCount   int64  `json:"pending_update_count"`
	}{PendingUpdateCount: s.nextUpdateID() - s.head}, nil
}
