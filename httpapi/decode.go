package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/topupd/topupd"
)

// maxTokenLen bounds trxid and idempotency keys.
const maxTokenLen = 128

// readObject reads a request body that must be one JSON object and nothing
// after it. Malformed JSON is EInvalidJSON; well-formed JSON that is not an
// object, that is not valid UTF-8 (a lone surrogate escape included), that
// holds a NUL byte (\u0000) in a string, or that
// has a member name twice in one object, at any depth, is EInvalidBody; an
// oversized body is EBodyTooLarge. The body is checked by json.Valid and
// utf8.Valid, then walked once to take its members.
func readObject(r *http.Request) (map[string]json.RawMessage, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, topupd.Fail(topupd.EBodyTooLarge)
		}
		return nil, topupd.Errorf(topupd.EInvalidJSON, "reading body: %v", err)
	}
	if !json.Valid(body) {
		return nil, topupd.Fail(topupd.EInvalidJSON)
	}
	if !utf8.Valid(body) {
		return nil, topupd.Errorf(topupd.EInvalidBody, "the body is not valid UTF-8")
	}
	w := walker{b: body}
	w.space()
	if w.b[w.i] != '{' {
		return nil, topupd.Errorf(topupd.EInvalidBody, "the body must be a JSON object")
	}
	obj := make(map[string]json.RawMessage, 8)
	if err := w.object(obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// walker takes apart, in one pass, a body that json.Valid and utf8.Valid
// have passed; it never meets malformed JSON.
type walker struct {
	b []byte
	i int
}

// smallObject is how many member names a nested object's duplicate check
// compares one by one before it switches to a map.
const smallObject = 16

// space steps over JSON whitespace.
func (w *walker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// object walks the object at w.i and refuses a member name it holds twice;
// with top, it also keeps its members there.
func (w *walker) object(top map[string]json.RawMessage) error {
	var list [smallObject][]byte
	names := list[:0]
	var seen map[string]bool
	w.i++ // {
	w.space()
	if w.b[w.i] == '}' {
		w.i++
		return nil
	}
	for {
		w.space()
		name, err := w.name()
		if err != nil {
			return err
		}
		dup := false
		switch {
		case top != nil:
			_, dup = top[string(name)]
		case seen != nil:
			dup = seen[string(name)]
			seen[string(name)] = true
		default:
			for _, n := range names {
				dup = dup || bytes.Equal(n, name)
			}
			if len(names) < smallObject {
				names = append(names, name)
				break
			}
			seen = make(map[string]bool, 4*smallObject)
			for _, n := range append(names, name) {
				seen[string(n)] = true
			}
		}
		if dup {
			return topupd.Errorf(topupd.EInvalidBody, "member %q appears twice in one object", shorten(name))
		}
		w.space()
		w.i++ // :
		w.space()
		start := w.i
		if err := w.value(); err != nil {
			return err
		}
		if top != nil {
			top[string(name)] = w.b[start:w.i]
		}
		w.space()
		w.i++ // , or }
		if w.b[w.i-1] == '}' {
			return nil
		}
	}
}

// value walks the value at w.i.
func (w *walker) value() error {
	switch w.b[w.i] {
	case '{':
		return w.object(nil)
	case '"':
		_, _, err := w.str()
		return err
	case '[':
		w.i++
		w.space()
		if w.b[w.i] == ']' {
			w.i++
			return nil
		}
		for {
			w.space()
			if err := w.value(); err != nil {
				return err
			}
			w.space()
			w.i++ // , or ]
			if w.b[w.i-1] == ']' {
				return nil
			}
		}
	}
	for ; w.i < len(w.b); w.i++ { // a number, true, false or null
		switch w.b[w.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return nil
		}
	}
	return nil
}

// name reads a member name and unescapes it as encoding/json would.
func (w *walker) name() ([]byte, error) {
	raw, escaped, err := w.str()
	if err != nil {
		return nil, err
	}
	if !escaped {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, topupd.Errorf(topupd.EInvalidBody, "member name: %v", err)
	}
	return []byte(s), nil
}

// str walks the string at w.i and returns it quoted; escaped reports a
// backslash in it.
func (w *walker) str() (raw []byte, escaped bool, err error) {
	start := w.i
	w.i++
	if q := bytes.IndexByte(w.b[w.i:], '"'); bytes.IndexByte(w.b[w.i:w.i+q], '\\') < 0 {
		w.i += q + 1
		return w.b[start:w.i], false, nil
	}
	for {
		switch w.b[w.i] {
		case '"':
			w.i++
			return w.b[start:w.i], true, nil
		case '\\':
			if err := w.escape(); err != nil {
				return nil, true, err
			}
		default:
			w.i++
		}
	}
}

// escape steps over the escape at w.i. A \u escape of a lone surrogate is
// EInvalidBody: no UTF-8 text holds it, and encoding/json would silently
// turn it into U+FFFD. So is \u0000: no text of either API has a use for a
// NUL byte, and PostgreSQL refuses one in a text value.
func (w *walker) escape() error {
	if w.b[w.i+1] != 'u' {
		w.i += 2
		return nil
	}
	r := hex4(w.b[w.i+2:])
	w.i += 6
	switch {
	case r == 0:
		return topupd.Errorf(topupd.EInvalidBody, "a \\u0000 escape (a NUL byte) is not text")
	case r < 0xD800 || r >= 0xE000:
		return nil
	case r < 0xDC00 && w.i+6 <= len(w.b) && w.b[w.i] == '\\' && w.b[w.i+1] == 'u':
		if lo := hex4(w.b[w.i+2:]); lo >= 0xDC00 && lo < 0xE000 {
			w.i += 6
			return nil
		}
	}
	return topupd.Errorf(topupd.EInvalidBody, "a \\u escape of a lone surrogate is not text")
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
}

// shorten bounds a member name quoted in an error's detail.
func shorten(name []byte) []byte {
	if len(name) > 64 {
		return name[:64]
	}
	return name
}

// stringField reads one string field under any of its aliases. A JSON number
// is taken as its literal text (clients send zone ids as numbers); null or
// absence is "". Two aliases with different values are EInvalidBody.
func stringField(obj map[string]json.RawMessage, names ...string) (string, error) {
	out, seen := "", false
	for _, n := range names {
		raw, ok := obj[n]
		if !ok {
			continue
		}
		v, err := stringValue(raw)
		if err != nil {
			return "", topupd.Errorf(topupd.EInvalidBody, "%s: %v", n, err)
		}
		if seen && v != out && v != "" && out != "" {
			return "", topupd.Errorf(topupd.EInvalidBody, "%s and its alias disagree", names[0])
		}
		if v != "" {
			out, seen = v, true
		}
	}
	return out, nil
}

func stringValue(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), nil
	}
	return "", errors.New("must be a string")
}

// quantityField reads quantity: an integer, or absent/null (0).
func quantityField(obj map[string]json.RawMessage) (int, error) {
	raw, ok := obj["quantity"]
	raw = bytes.TrimSpace(raw)
	if !ok || string(raw) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if errors.Is(err, strconv.ErrRange) && raw[0] != '-' {
		return 0, topupd.Fail(topupd.EQuantityExceedsMax)
	}
	if err != nil {
		return 0, topupd.Errorf(topupd.EInvalidBody, "quantity must be a whole number")
	}
	if n < 1 {
		return 0, topupd.Errorf(topupd.EInvalidBody, "quantity must be at least 1")
	}
	if n > topupd.MaxQuantity {
		return 0, topupd.Fail(topupd.EQuantityExceedsMax)
	}
	return int(n), nil
}

// maxPriceField reads maxPriceUsd: a JSON number of USD, taken exactly as
// every amount is (topupd.ParseMoney), at least 0; absent or null is nil.
func maxPriceField(obj map[string]json.RawMessage) (*topupd.Money, error) {
	raw, ok := obj["maxPriceUsd"]
	raw = bytes.TrimSpace(raw)
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	m, err := topupd.ParseMoney(string(raw))
	if err != nil {
		return nil, topupd.Errorf(topupd.EInvalidBody, "maxPriceUsd: %v", err)
	}
	if m < 0 {
		return nil, topupd.Errorf(topupd.EInvalidBody, "maxPriceUsd: at least 0")
	}
	return &m, nil
}

// token checks a trxid or idempotency key: at most 128 characters, no
// control characters.
func token(name, v string) error {
	if len(v) > maxTokenLen || !utf8.ValidString(v) {
		return topupd.Errorf(topupd.EInvalidBody, "%s: at most %d bytes of text", name, maxTokenLen)
	}
	return plainText(name, v)
}

// plainText refuses a control character in a field.
func plainText(name, v string) error {
	for _, c := range v {
		if unicode.IsControl(c) {
			return topupd.Errorf(topupd.EInvalidBody, "%s: no control characters", name)
		}
	}
	return nil
}

// DecodeOrder reads a POST /orders body with the spec's field aliases. Fields
// the spec does not name (a price or a status, say) are ignored.
func DecodeOrder(r *http.Request) (topupd.OrderRequest, error) {
	return decodeOrder(r, true)
}

// DecodePlayerCheck reads a POST /players/check body: an order's body
// without its trxid, refused as DecodeOrder refuses it. A trxid or
// idempotency key sent anyway is ignored.
func DecodePlayerCheck(r *http.Request) (topupd.OrderRequest, error) {
	return decodeOrder(r, false)
}

// decodeOrder is DecodeOrder, which with trx reads and requires the trxid
// and idempotency key, and without them leaves them out.
func decodeOrder(r *http.Request, trx bool) (topupd.OrderRequest, error) {
	var req topupd.OrderRequest
	obj, err := readObject(r)
	if err != nil {
		return req, err
	}
	fields := []struct {
		dst   *string
		names []string
	}{
		{&req.PID, []string{"pid", "PID"}},
		{&req.TrxID, []string{"trxid", "trxId", "idtrx", "idTrx"}},
		{&req.IdempotencyKey, []string{"idempotencyKey", "idempotency"}},
		{&req.Fields.UserID, []string{"userId", "userID"}},
		{&req.Fields.ZoneID, []string{"zoneId"}},
		{&req.Fields.ServerID, []string{"serverId"}},
		{&req.Fields.Region, []string{"region"}},
		{&req.Fields.MoreID, []string{"moreId"}},
	}
	for _, f := range fields {
		if !trx && (f.dst == &req.TrxID || f.dst == &req.IdempotencyKey) {
			continue
		}
		if *f.dst, err = stringField(obj, f.names...); err != nil {
			return req, err
		}
	}
	if req.Quantity, err = quantityField(obj); err != nil {
		return req, err
	}
	if req.MaxPrice, err = maxPriceField(obj); err != nil {
		return req, err
	}
	if err := token("trxid", req.TrxID); err != nil {
		return req, err
	}
	if err := token("idempotencyKey", req.IdempotencyKey); err != nil {
		return req, err
	}
	for _, f := range [...]struct{ name, v string }{{"userId", req.Fields.UserID}, {"zoneId", req.Fields.ZoneID},
		{"serverId", req.Fields.ServerID}, {"region", req.Fields.Region}, {"moreId", req.Fields.MoreID}} {
		if err := plainText(f.name, f.v); err != nil {
			return req, err
		}
	}
	switch {
	case strings.TrimSpace(req.PID) == "":
		return req, topupd.Errorf(topupd.EInvalidRequest, "pid is required")
	case trx && strings.TrimSpace(req.TrxID) == "":
		return req, topupd.Errorf(topupd.EInvalidRequest, "trxid is required")
	}
	return req, nil
}
