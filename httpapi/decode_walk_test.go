package httpapi

// These tests hold readObject's one-pass walker against encoding/json: the
// walker must take apart exactly what json.Unmarshal would, and refuse
// exactly the bodies a Token-by-Token reference finds a duplicate member,
// invalid UTF-8, a lone surrogate escape or a NUL (\u0000) in.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// escapeRE finds the escapes of a JSON string, left to right.
var escapeRE = regexp.MustCompile(`\\(?:u([0-9a-fA-F]{4})|[^u])`)

// loneSurrogate reports whether a quoted JSON string has a \u escape of a
// surrogate that is not half of a high-low pair written as two escapes in a row.
func loneSurrogate(quoted []byte) bool {
	m := escapeRE.FindAllSubmatchIndex(quoted, -1)
	for i := 0; i < len(m); i++ {
		if m[i][2] < 0 {
			continue
		}
		u, _ := strconv.ParseUint(string(quoted[m[i][2]:m[i][3]]), 16, 16)
		switch {
		case u < 0xD800 || u >= 0xE000:
		case u >= 0xDC00:
			return true
		default: // a high half: a low half must follow at once
			if i+1 == len(m) || m[i+1][0] != m[i][1] || m[i+1][2] < 0 {
				return true
			}
			lo, _ := strconv.ParseUint(string(quoted[m[i+1][2]:m[i+1][3]]), 16, 16)
			if lo < 0xDC00 || lo >= 0xE000 {
				return true
			}
			i++
		}
	}
	return false
}

// referenceCode is what readObject must answer for a body: the code of its
// refusal, or "" when it is accepted.
func referenceCode(body []byte) topupd.ErrorCode {
	if !json.Valid(body) {
		return topupd.EInvalidJSON
	}
	if !utf8.Valid(body) || !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		return topupd.EInvalidBody
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		object bool
		names  map[string]bool
		isName bool // the next string token is a member name
	}
	var stack []*frame
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return topupd.EInvalidJSON
		}
		if s, ok := tok.(string); ok {
			raw := body[before:dec.InputOffset()]
			if loneSurrogate(raw[bytes.IndexByte(raw, '"'):]) || strings.IndexByte(s, 0) >= 0 {
				return topupd.EInvalidBody
			}
			if top := len(stack) - 1; top >= 0 && stack[top].object && stack[top].isName {
				if stack[top].names[s] {
					return topupd.EInvalidBody
				}
				stack[top].names[s] = true
				stack[top].isName = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}, isName: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if top := len(stack) - 1; top >= 0 && stack[top].object {
			stack[top].isName = true // a value ended
		}
	}
}

// readBody runs readObject on a body.
func readBody(body []byte) (map[string]json.RawMessage, error) {
	return readObject(httptest.NewRequest("POST", "/", bytes.NewReader(body)))
}

// checkAgainstReference compares readObject with the reference on one body.
func checkAgainstReference(t *testing.T, body []byte) {
	t.Helper()
	got, err := readBody(body)
	want := referenceCode(body)
	if err != nil {
		var e *topupd.Error
		if !errors.As(err, &e) {
			t.Fatalf("readObject(%q): %v (%T) is not a *topupd.Error", body, err, err)
		}
		if want != e.Code {
			t.Fatalf("readObject(%q) refused it as %s (%v), the reference answers %q", body, e.Code, err, want)
		}
		return
	}
	if want != "" {
		t.Fatalf("readObject(%q) accepted it, the reference refuses it as %s", body, want)
	}
	var ref map[string]json.RawMessage
	if err := json.Unmarshal(body, &ref); err != nil {
		t.Fatalf("json.Unmarshal(%q): %v", body, err)
	}
	if diff := cmp.Diff(ref, got); diff != "" {
		t.Fatalf("readObject(%q) (-json.Unmarshal +readObject):\n%s", body, diff)
	}
}

// walkCases are bodies the walker must take apart as encoding/json does.
var walkCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":1,"b":2}`, `{"a":1,"a":1}`, `{"a":1,"A":2}`,
	`{"a":{"b":1,"b":2}}`, `{"a":[{"b":1},{"b":2}]}`, `{"a":[{"b":1,"c":{"d":[],"d":{}}}]}`,
	`{"a":"x","\u0061":"y"}`, `{"\"":1,"\\":2,"\\\"":3}`, `{"a\\":1,"a":2}`, `{"\/":1,"/":2}`,
	`{"s":"\ud83d\ude00"}`, `{"s":"\ud800"}`, `{"s":"\udc00"}`, `{"s":"\ud800\u0041"}`, `{"s":"\\ud800"}`,
	`{"s":"\ud800\\udc00"}`, `{"\ud800":0}`, `{"\udc00":0,"\udc00":1}`, `{"\ud83d\ude00":1,"😀":2}`, `{"s":"\uFFFD"}`, "{\"s\":\"\xff\"}", "{\"\xc3\":1}",
	"{\"s\":\"\xed\xa0\x80\"}", `{"n":-1.5e+3,"t":true,"f":false,"z":null}`, `[]`, `"x"`, `1`, `{"a":1}x`,
	`{"a":1,}`, "\ufeff{}", `{"a" : [ 1 , { "b" : 2 , "b" : 3 } ] }`,
	`{"a":"` + strings.Repeat(`\n`, 300) + `","a":0}`,
	`{"o":{` + manyNames(40, 0) + `}}`, `{"o":{` + manyNames(40, 33) + `}}`, `{` + manyNames(40, 39) + `}`,
	`{"o":{` + manyNames(16, 15) + `}}`, `{"o":{` + manyNames(18, 16) + `}}`, `{"o":{` + manyNames(17, 15) + `}}`,
	`{"s":"\u0000"}`, `{"s":"a\u0000b"}`, `{"\u0000":1}`, `{"a":[{"b":"\u0000"}]}`, `{"s":"\\u0000"}`, `{"s":"\u0001"}`,
}

// manyNames lists n members "k0"…; with dup >= 0 the last one repeats name dup.
func manyNames(n, dup int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i)
	}
	if dup >= 0 && dup < n-1 {
		parts[n-1] = `"k` + strconv.Itoa(dup) + `":0`
	}
	return strings.Join(parts, ",")
}

// TestReadObjectMatchesReference: the walker agrees with encoding/json on
// every case above.
func TestReadObjectMatchesReference(t *testing.T) {
	for _, c := range walkCases {
		checkAgainstReference(t, []byte(c))
	}
	// The cases do what they say: a few refusals the reference must see.
	for _, c := range []string{`{"a":1,"a":1}`, `{"a":"x","\u0061":"y"}`, `{"s":"\ud800"}`, "{\"s\":\"\xff\"}",
		`{"o":{` + manyNames(40, 33) + `}}`, `{"o":{` + manyNames(17, 15) + `}}`, `{"\ud83d\ude00":1,"😀":2}`,
		`{"s":"\u0000"}`, `{"a":[{"b":"\u0000"}]}`} {
		if referenceCode([]byte(c)) != topupd.EInvalidBody {
			t.Errorf("reference accepts %s", c)
		}
	}
}

// FuzzReadObject holds the walker against the reference on any body.
func FuzzReadObject(f *testing.F) {
	for _, c := range walkCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkAgainstReference(t, body)
	})
}
