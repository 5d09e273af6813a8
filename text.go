package topupd

import (
	"strings"
	"unicode/utf8"
)

// CleanText reports whether s may be taken as text from a caller: valid
// UTF-8 without a NUL byte. PostgreSQL refuses either in a text value, and
// neither has a use in an id, a name, a filter or a note; the APIs, the
// console and the bot refuse such text before it reaches a store (400, or
// 404 where it names an order), so that it is never a 500 on one database
// and stored text on another.
func CleanText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
