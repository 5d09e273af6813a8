package botapitest

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON shapes of the Bot API objects the server sends.
type (
	userJSON struct {
		ID        int64  `json:"id"`
		IsBot     bool   `json:"is_bot"`
		FirstName string `json:"first_name"`
		Username  string `json:"username,omitempty"`
	}
	chatJSON struct {
		ID        int64  `json:"id"`
		Type      string `json:"type"`
		Title     string `json:"title,omitempty"`
		Username  string `json:"username,omitempty"`
		FirstName string `json:"first_name,omitempty"`
	}
	entityJSON struct {
		Type   string `json:"type"`
		Offset int    `json:"offset"`
		Length int    `json:"length"`
	}
	buttonJSON struct {
		Text         string `json:"text"`
		URL          string `json:"url,omitempty"`
		CallbackData string `json:"callback_data,omitempty"`
	}
	markupJSON struct {
		InlineKeyboard [][]buttonJSON `json:"inline_keyboard"`
	}
	messageJSON struct {
		MessageID   int64        `json:"message_id"`
		From        *userJSON    `json:"from,omitempty"`
		Chat        chatJSON     `json:"chat"`
		Date        int64        `json:"date"`
		EditDate    int64        `json:"edit_date,omitempty"`
		Text        string       `json:"text,omitempty"`
		Entities    []entityJSON `json:"entities,omitempty"`
		ReplyMarkup *markupJSON  `json:"reply_markup,omitempty"`
	}
	callbackQueryJSON struct {
		ID           string      `json:"id"`
		From         userJSON    `json:"from"`
		Message      messageJSON `json:"message"`
		ChatInstance string      `json:"chat_instance"`
		Data         string      `json:"data"`
	}
)

func userJSONOf(c Chat) userJSON {
	name := c.Username
	if name == "" {
		name = "User " + strconv.FormatInt(c.UserID, 10)
	}
	return userJSON{ID: c.UserID, FirstName: name, Username: c.Username}
}

func chatJSONOf(c Chat) chatJSON {
	if c.Type == "private" {
		u := userJSONOf(c)
		return chatJSON{ID: c.ID, Type: c.Type, Username: u.Username, FirstName: u.FirstName}
	}
	return chatJSON{ID: c.ID, Type: c.Type, Title: c.Title}
}

func userMessageJSON(c Chat, m *message) messageJSON {
	from := userJSONOf(c)
	return messageJSON{MessageID: m.id, From: &from, Chat: chatJSONOf(c), Date: m.date, Text: m.text, Entities: commandEntities(m.text)}
}

func (s *Server) botUser() userJSON {
	return userJSON{ID: s.botID, IsBot: true, FirstName: "topupd test", Username: BotUsername}
}

func (s *Server) messageJSON(cs *chatState, m *message) messageJSON {
	from := s.botUser()
	j := messageJSON{MessageID: m.id, From: &from, Chat: chatJSONOf(cs.Chat), Date: m.date, EditDate: m.editDate, Text: m.text}
	if len(m.buttons) > 0 {
		j.ReplyMarkup = &markupJSON{InlineKeyboard: make([][]buttonJSON, len(m.buttons))}
		for i, row := range m.buttons {
			for _, b := range row {
				j.ReplyMarkup.InlineKeyboard[i] = append(j.ReplyMarkup.InlineKeyboard[i], buttonJSON{Text: b.Text, URL: b.URL, CallbackData: b.Data})
			}
		}
	}
	return j
}

// botCommands finds the bot commands in a text as Telegram does
// ("/name" or "/name@bot", not inside a word), returning their byte
// ranges.
func botCommands(text string) [][2]int {
	var found [][2]int
	word := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }
	nameLen := func(s string) int {
		n := 0
		for n < len(s) && (isAlnum(s[n]) || s[n] == '_') {
			n++
		}
		return n
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '/' {
			continue
		}
		if prev, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && (word(prev) || strings.ContainsRune("/<>", prev)) {
			continue
		}
		end := i + 1 + nameLen(text[i+1:])
		if n := end - i - 1; n < 1 || n > 64 {
			continue
		}
		if end < len(text) && text[end] == '@' {
			m := nameLen(text[end+1:])
			if m < 3 || m > 32 {
				continue
			}
			end += 1 + m
		}
		if next, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && (word(next) || strings.ContainsRune("/<>", next)) {
			continue
		}
		found = append(found, [2]int{i, end})
		i = end - 1
	}
	return found
}

// commandEntities returns a text's bot_command entities, with offsets and
// lengths in UTF-16 code units as Telegram counts them.
func commandEntities(text string) []entityJSON {
	var es []entityJSON
	for _, c := range botCommands(text) {
		es = append(es, entityJSON{Type: "bot_command", Offset: utf16Len(text[:c[0]]), Length: utf16Len(text[c[0]:c[1]])})
	}
	return es
}

// commandFor reports whether text starts with a command a bot with this
// username receives in a group with privacy mode on.
func commandFor(text, username string) bool {
	cs := botCommands(text)
	if len(cs) == 0 || cs[0][0] != 0 {
		return false
	}
	_, to, addressed := strings.Cut(text[:cs[0][1]], "@")
	return !addressed || strings.EqualFold(to, username)
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }
