package sqlstore

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/topupd/topupd"
)

// The event stream's data is a flat JSON object in nearly every event: an
// order's strings, amounts, times and flags. Every order writes two or
// three such objects in its transaction, and every notifier reads each of
// them back. encoding/json spends most of that time on reflection and, for
// a map, on sorting its keys; appendFlatJSON and parseFlatJSON do a flat
// object of plain values directly and leave anything else to encoding/json.
// They write the very bytes json.Marshal writes and read the very map
// json.Unmarshal reads (FuzzFlatJSON holds them to it), so stored data and
// what a reader sees are as before. jsonText and jsonColumn (scan.go) take
// this way for every map[string]any, the events' data being the one such
// column.

// appendFlatJSON appends m to b as json.Marshal writes it, when every key
// and string value is plain (plainJSON) and every value a string, a bool,
// an int, an int64, a topupd.Money or nil; ok is false otherwise, and b
// is then to be ignored.
func appendFlatJSON(b []byte, m map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !plainJSON(k) {
			return b, false
		}
		keys = append(keys, k)
	}
	slices.Sort(keys) // encoding/json's order: the keys' bytes
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		switch v := m[k].(type) {
		case nil:
			b = append(b, "null"...)
		case string:
			if !plainJSON(v) {
				return b, false
			}
			b = append(b, '"')
			b = append(b, v...)
			b = append(b, '"')
		case bool:
			b = strconv.AppendBool(b, v)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case topupd.Money:
			text, err := v.MarshalJSON()
			if err != nil {
				return b, false
			}
			b = append(b, text...)
		default:
			return b, false
		}
	}
	return append(b, '}'), true
}

// plainJSON reports whether json.Marshal writes s between quotes as it is:
// printable ASCII, without the quote, the backslash and the three
// characters it escapes for HTML (<, >, &).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// parseFlatJSON reads b as json.Unmarshal reads it into a map[string]any,
// when b is one object whose keys and string values hold printable ASCII
// and no escape, and whose values are strings, numbers, true, false or
// null; ok is false otherwise (an array, a nested object, an escape,
// anything invalid), and the caller is to ask encoding/json.
func parseFlatJSON(b []byte) (map[string]any, bool) {
	p := flatParser{b: b}
	p.space()
	if !p.take('{') {
		return nil, false
	}
	m := make(map[string]any, bytes.Count(b, []byte{':'})) // a member's colon, or one in a string
	p.space()
	if p.take('}') {
		return m, p.end()
	}
	for {
		p.space()
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if !p.take(':') {
			return nil, false
		}
		p.space()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		m[k] = v
		p.space()
		if p.take('}') {
			return m, p.end()
		}
		if !p.take(',') {
			return nil, false
		}
	}
}

// flatParser reads a flat JSON object (parseFlatJSON).
type flatParser struct {
	b []byte
	i int
}

// space skips JSON's white space.
func (p *flatParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// take takes c if it comes next.
func (p *flatParser) take(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether nothing but white space is left.
func (p *flatParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// str reads a string of printable ASCII without escapes.
func (p *flatParser) str() (string, bool) {
	if !p.take('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			raw := p.b[start:p.i]
			p.i++
			if s, ok := eventWords[string(raw)]; ok { // no copy made to look
				return s, true
			}
			return string(raw), true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", false
		}
	}
	return "", false
}

// eventWords are the keys of the events' data and their commonest
// values, read without a copy of their own each time (str).
var eventWords = func() map[string]string {
	m := map[string]string{}
	for _, w := range []string{"orderId", "trxid", "pid", "slug", "provider", "status", "amountUsd", "createdAt",
		"finishedAt", "upstream", "sandbox", "refunded", "error", "by", "from", "to", "balanceUsd", "reference",
		"sim", "manual", "completed", "processing", "cancelled"} {
		m[w] = w
	}
	return m
}()

// value reads a string, a number, true, false or null.
func (p *flatParser) value() (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if end := p.i + len(lit.text); end <= len(p.b) && string(p.b[p.i:end]) == lit.text {
			p.i = end
			return lit.v, true
		}
	}
	return nil, false
}

// number reads a number by JSON's grammar as a float64, as encoding/json
// does into an interface; one out of float64's range is not read here.
func (p *flatParser) number() (any, bool) {
	start := p.i
	p.take('-')
	switch {
	case p.take('0'):
	case p.digits() == 0:
		return nil, false
	}
	if p.take('.') && p.digits() == 0 {
		return nil, false
	}
	if p.take('e') || p.take('E') {
		if !p.take('+') {
			p.take('-')
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	return f, err == nil
}

// digits reads a run of decimal digits and says how many.
func (p *flatParser) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// unmarshalMap reads b into *dst as json.Unmarshal would.
func unmarshalMap(b []byte, dst *map[string]any) error {
	m, ok := parseFlatJSON(b)
	if !ok {
		return json.Unmarshal(b, dst)
	}
	if *dst == nil {
		*dst = m
		return nil
	}
	for k, v := range m { // json.Unmarshal adds to a map already made
		(*dst)[k] = v
	}
	return nil
}
