package schematest

import (
	"fmt"
	"strings"
)

// token is one lexical token of SQL text, with where it starts and ends
// in that text so that a clause can be cut out of a statement verbatim.
type token struct {
	kind       tokenKind
	text       string // as written; identifiers unquoted
	start, end int
}

type tokenKind int

const (
	tIdent  tokenKind = iota // a name or keyword
	tNumber                  // 12, 1.5
	tString                  // 'text', with its quotes
	tBlob                    // x'00'
	tOp                      // punctuation and operators
)

// is reports whether t is the keyword or operator s (keywords match in any case).
func (t token) is(s string) bool {
	return (t.kind == tIdent || t.kind == tOp) && strings.EqualFold(t.text, s)
}

// operators are SQL's multi-character operators, longest first.
var operators = []string{"::", "<=", ">=", "<>", "!=", "==", "||"}

// lex splits SQL text into tokens, dropping comments and white space.
func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "--"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment in %q", src)
			}
			i += end + 4
		case c == '\'' || ((c == 'x' || c == 'X') && i+1 < len(src) && src[i+1] == '\''):
			start, kind := i, tString
			if c != '\'' {
				kind, i = tBlob, i+1
			}
			j := i + 1
			for ; j < len(src); j++ {
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string in %q", src)
			}
			toks = append(toks, token{kind, src[start : j+1], start, j + 1})
			i = j + 1
		case c == '"' || c == '`' || c == '[' && !afterArray(toks) && !strings.HasPrefix(src[i:], "[]"):
			closer := map[byte]byte{'"': '"', '`': '`', '[': ']'}[c]
			j := strings.IndexByte(src[i+1:], closer)
			if j < 0 {
				return nil, fmt.Errorf("unterminated quoted name in %q", src)
			}
			toks = append(toks, token{tIdent, src[i+1 : i+1+j], i, i + j + 2})
			i += j + 2
		case isIdentStart(c):
			j := i
			for j < len(src) && (isIdentStart(src[j]) || isDigit(src[j]) || src[j] == '$') {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], i, j})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			j := i
			for j < len(src) && (isDigit(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, token{tNumber, src[i:j], i, j})
			i = j
		default:
			op := string(c)
			for _, o := range operators {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			toks = append(toks, token{tOp, op, i, i + len(op)})
			i += len(op)
		}
	}
	return toks, nil
}

// afterArray tells PostgreSQL's ARRAY[…] and type[] from SQLite's
// [quoted name]: a bracket right after ARRAY or a type name opens a list.
func afterArray(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	last := toks[len(toks)-1]
	if last.is("ARRAY") {
		return true
	}
	return len(toks) >= 2 && toks[len(toks)-2].is("::")
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// group returns the index of the parenthesis that closes the one at
// toks[open], or -1.
func group(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch {
		case toks[i].is("("):
			depth++
		case toks[i].is(")"):
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// find returns the index of the first of toks from from on that is word,
// or -1.
func find(toks []token, from int, word string) int {
	for i := max(from, 0); i < len(toks); i++ {
		if toks[i].is(word) {
			return i
		}
	}
	return -1
}

// parenList finds the first parenthesised list of toks from from on: the
// indexes of its parentheses, or an end of -1 when there is none.
func parenList(toks []token, from int) (open, end int) {
	if open = find(toks, from, "("); open < 0 {
		return -1, -1
	}
	return open, group(toks, open)
}

// splitTop splits toks at the commas outside any parentheses.
func splitTop(toks []token) [][]token {
	var parts [][]token
	depth, from := 0, 0
	for i, t := range toks {
		switch {
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		case t.is(",") && depth == 0:
			parts = append(parts, toks[from:i])
			from = i + 1
		}
	}
	return append(parts, toks[from:])
}

// span is the source text that toks were lexed from, verbatim.
func span(src string, toks []token) string {
	if len(toks) == 0 {
		return ""
	}
	return src[toks[0].start:toks[len(toks)-1].end]
}
