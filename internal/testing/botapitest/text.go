package botapitest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// maxTextLen is the longest message text in UTF-16 code units, after
// parsing.
const maxTextLen = 4096

// formatText checks a message text as Telegram does and returns what the
// user sees: HTML and MarkdownV2 are parsed (markup dropped, entities and
// escapes decoded) and must be well formed; legacy Markdown is kept as sent.
func formatText(raw, parseMode string) (string, *apiError) {
	if raw == "" {
		return "", badRequest("message text is empty")
	}
	text, problem := raw, ""
	switch strings.ToLower(parseMode) {
	case "", "none", "markdown":
	case "html":
		text, problem = parseHTML(raw)
	case "markdownv2":
		text, problem = parseMarkdownV2(raw)
	default:
		return "", badRequest("unsupported parse_mode")
	}
	if problem != "" {
		return "", badRequest("can't parse entities: " + problem)
	}
	if strings.TrimSpace(text) == "" {
		return "", badRequest("message text is empty")
	}
	if utf16Len(text) > maxTextLen {
		return "", badRequest("message is too long")
	}
	return text, nil
}

// htmlTags are the tags Telegram's HTML parse mode knows.
var htmlTags = map[string]bool{
	"a": true, "b": true, "strong": true, "i": true, "em": true, "s": true, "strike": true, "del": true,
	"u": true, "ins": true, "tg-spoiler": true, "tg-emoji": true, "tg-time": true, "span": true,
	"pre": true, "code": true, "blockquote": true,
}

// isSpace is TDLib's is_space: it counts the end of the text as a space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0 || c == '\v'
}

// parseHTML parses Telegram's HTML as TDLib's parse_html does, with its
// error messages: the text without markup, or what is wrong.
func parseHTML(s string) (text, problem string) {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	var out strings.Builder
	var open []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '&' {
			if r, n := htmlEntity(s[i:]); n > 0 {
				out.WriteRune(r)
				i += n - 1
				continue
			}
		}
		if c != '<' {
			out.WriteByte(c)
			continue
		}
		begin := i
		i++
		if at(i) != '/' { // a start tag
			for !isSpace(at(i)) && at(i) != '>' {
				i++
			}
			if at(i) == 0 {
				return "", fmt.Sprintf("Unclosed start tag at byte offset %d", begin)
			}
			name := strings.ToLower(s[begin+1 : i])
			if !htmlTags[name] {
				return "", fmt.Sprintf("Unsupported start tag \"%s\" at byte offset %d", name, begin)
			}
			class := ""
			for at(i) != '>' {
				for at(i) != 0 && isSpace(at(i)) {
					i++
				}
				if at(i) == '>' {
					break
				}
				attrBegin := i
				for !isSpace(at(i)) && !strings.ContainsRune("=>/\"'", rune(at(i))) {
					i++
				}
				attr := s[attrBegin:i]
				if attr == "" {
					return "", fmt.Sprintf("Empty attribute name in the tag \"%s\" at byte offset %d", name, begin)
				}
				for at(i) != 0 && isSpace(at(i)) {
					i++
				}
				if at(i) != '=' {
					if at(i) == 0 {
						return "", fmt.Sprintf("Unclosed start tag \"%s\" at byte offset %d", name, begin)
					}
					continue
				}
				i++
				for at(i) != 0 && isSpace(at(i)) {
					i++
				}
				if at(i) == 0 {
					return "", fmt.Sprintf("Unclosed start tag \"%s\" at byte offset %d", name, begin)
				}
				var value string
				if q := at(i); q != '\'' && q != '"' {
					tokenBegin := i
					for isAlnum(at(i)) || at(i) == '.' || at(i) == '-' {
						i++
					}
					value = strings.ToLower(s[tokenBegin:i])
					if !isSpace(at(i)) && at(i) != '>' {
						return "", fmt.Sprintf("Unexpected end of name token at byte offset %d", tokenBegin)
					}
				} else {
					i++
					valueBegin := i
					for at(i) != q && at(i) != 0 {
						i++
					}
					value = s[valueBegin:i]
					if at(i) == q {
						i++
					}
				}
				if at(i) == 0 {
					return "", fmt.Sprintf("Unclosed start tag at byte offset %d", begin)
				}
				if attr == "class" {
					class = value
				}
			}
			if name == "span" && class != "tg-spoiler" {
				return "", fmt.Sprintf("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
			}
			open = append(open, name)
			continue
		}
		// an end tag
		if len(open) == 0 {
			return "", fmt.Sprintf("Unexpected end tag at byte offset %d", begin)
		}
		for !isSpace(at(i)) && at(i) != '>' {
			i++
		}
		name := strings.ToLower(s[begin+2 : i])
		for at(i) != 0 && isSpace(at(i)) {
			i++
		}
		if at(i) != '>' {
			return "", fmt.Sprintf("Unclosed end tag at byte offset %d", begin)
		}
		if last := open[len(open)-1]; name != "" && name != last {
			return "", fmt.Sprintf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", begin, last, name)
		}
		open = open[:len(open)-1]
	}
	if len(open) > 0 {
		return "", fmt.Sprintf("Can't find end tag corresponding to start tag \"%s\"", open[len(open)-1])
	}
	return out.String(), ""
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// htmlEntity decodes the entity at the start of s as TDLib does (&lt;
// &gt; &amp; &quot; and numeric ones, the ";" optional), returning the
// character and the entity's length, or a length of 0 when s does not
// start with one (the "&" is then kept as it is).
func htmlEntity(s string) (rune, int) {
	end := 1
	var r rune
	if strings.HasPrefix(s, "&#") {
		end++
		digits, base := "0123456789", 10
		if strings.HasPrefix(s, "&#x") {
			end++
			digits, base = "0123456789abcdefABCDEF", 16
		}
		start := end
		for end < len(s) && strings.IndexByte(digits, s[end]) >= 0 {
			end++
		}
		n, err := strconv.ParseUint(s[start:end], base, 32)
		if err != nil || n == 0 || n >= 0x10ffff || end >= 10 {
			return 0, 0
		}
		r = rune(n)
	} else {
		for end < len(s) && (s[end]|0x20 >= 'a' && s[end]|0x20 <= 'z') {
			end++
		}
		switch s[1:end] {
		case "lt":
			r = '<'
		case "gt":
			r = '>'
		case "amp":
			r = '&'
		case "quot":
			r = '"'
		default:
			return 0, 0
		}
	}
	if end < len(s) && s[end] == ';' {
		end++
	}
	return r, end
}

// parseMarkdownV2 parses Telegram's MarkdownV2 after TDLib's
// parse_markdown_v2, with its error messages: the text without markup,
// or what is wrong. Link targets and custom emoji are not checked.
func parseMarkdownV2(s string) (text, problem string) {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	type entity struct {
		kind string
		at   int
	}
	var out strings.Builder
	var open []entity
	top := func() string {
		if len(open) == 0 {
			return ""
		}
		return open[len(open)-1].kind
	}
	reserved := func(c byte) string {
		return fmt.Sprintf("Character '%c' is reserved and must be escaped with the preceding '\\'", c)
	}
	lineStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && at(i+1) > 0 && at(i+1) <= 126 {
			i++
			out.WriteByte(s[i])
			if s[i] != '\r' {
				lineStart = s[i] == '\n'
			}
			continue
		}
		special := "_*[]()~`>#+-=|{}.!\n"
		if top() == "Code" || top() == "Pre" {
			special = "`"
		}
		if strings.IndexByte(special, c) < 0 {
			out.WriteByte(c)
			if c != '\r' {
				lineStart = false
			}
			continue
		}
		switch k := top(); {
		case k == "Bold" && c == '*', k == "Italic" && c == '_' && at(i+1) != '_',
			k == "Code" && c == '`', k == "Strikethrough" && c == '~':
			open = open[:len(open)-1]
		case k == "Underline" && c == '_' && at(i+1) == '_', k == "Spoiler" && c == '|' && at(i+1) == '|':
			open = open[:len(open)-1]
			i++
		case k == "Pre" && c == '`' && at(i+1) == '`' && at(i+2) == '`':
			open = open[:len(open)-1]
			i += 2
		case (k == "TextUrl" || k == "CustomEmoji") && c == ']':
			open = open[:len(open)-1]
			if at(i+1) == '(' {
				j := i + 2
				for j < len(s) && s[j] != ')' {
					if s[j] == '\\' && at(j+1) > 0 && at(j+1) <= 126 {
						j++
					}
					j++
				}
				if j >= len(s) {
					return "", fmt.Sprintf("Can't find end of a URL at byte offset %d", i+2)
				}
				i = j
			} else if k == "CustomEmoji" {
				return "", "The entity must contain a tg://emoji or tg://time URL"
			}
		default:
			begin := i
			if o := markOpening(s[i:]); o.kind != "" {
				open = append(open, entity{o.kind, begin})
				i += len(o.mark) - 1
				continue
			}
			switch c {
			case '`':
				if at(i+1) != '`' || at(i+2) != '`' {
					open = append(open, entity{"Code", begin})
					break
				}
				open = append(open, entity{"Pre", begin})
				i += 3
				lang := i
				for !isSpace(at(lang)) && at(lang) != '`' {
					lang++
				}
				if lang != i && lang < len(s) && s[lang] != '`' {
					i = lang
				}
				if at(i) == '\n' || at(i) == '\r' {
					if (at(i+1) == '\n' || at(i+1) == '\r') && at(i) != at(i+1) {
						i++
					}
					i++
				}
				i--
			case '\n':
				out.WriteByte('\n')
				lineStart = true
			case '>':
				if !lineStart {
					return "", reserved(c)
				}
			default:
				return "", reserved(c)
			}
		}
	}
	if len(open) > 0 {
		e := open[len(open)-1]
		return "", fmt.Sprintf("Can't find end of %s entity at byte offset %d", e.kind, e.at)
	}
	return out.String(), ""
}

// markdownMark is a MarkdownV2 mark that opens an entity of a kind.
type markdownMark struct{ mark, kind string }

// markdownMarks are the marks that open an entity, but for code: a mark
// before any other it starts with.
var markdownMarks = []markdownMark{
	{"__", "Underline"}, {"_", "Italic"}, {"*", "Bold"}, {"~", "Strikethrough"},
	{"||", "Spoiler"}, {"[", "TextUrl"}, {"![", "CustomEmoji"},
}

// markOpening returns the mark that s starts with, if any.
func markOpening(s string) markdownMark {
	for _, m := range markdownMarks {
		if strings.HasPrefix(s, m.mark) {
			return m
		}
	}
	return markdownMark{}
}

// inlineKeyboard reads a reply_markup parameter's inline keyboard, checked
// as Telegram checks it; other kinds of reply markup give no buttons.
func inlineKeyboard(v string) ([][]Button, *apiError) {
	if v == "" {
		return nil, nil
	}
	var markup struct {
		InlineKeyboard [][]map[string]json.RawMessage `json:"inline_keyboard"`
	}
	if err := json.Unmarshal([]byte(v), &markup); err != nil {
		return nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	var rows [][]Button
	for _, row := range markup.InlineKeyboard {
		var r []Button
		for _, fields := range row {
			var b Button
			str := func(name string) string {
				var s string
				_ = json.Unmarshal(fields[name], &s)
				return s
			}
			b.Text, b.URL, b.Data = str("text"), str("url"), str("callback_data")
			if b.URL != "" {
				b.Data = ""
			}
			if b.Text == "" {
				return nil, badRequest("can't parse inline keyboard button: Field \"text\" must be of type String")
			}
			if len(b.Data) > 64 {
				return nil, badRequest("BUTTON_DATA_INVALID")
			}
			if b.URL == "" && b.Data == "" && !otherButton(fields) {
				return nil, badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
			}
			r = append(r, b)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// otherButton reports whether a button is of a kind other than URL and
// callback (a game, a payment, an inline query, a login, a web app, a
// text to copy).
func otherButton(fields map[string]json.RawMessage) bool {
	for _, k := range []string{"callback_game", "pay", "switch_inline_query", "switch_inline_query_chosen_chat",
		"switch_inline_query_current_chat", "login_url", "web_app", "copy_text"} {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	return false
}
