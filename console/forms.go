package console

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// done sends the browser to path with a message shown there once: the
// answer to every form that changed something (post, redirect, get).
func (c *Console) done(w http.ResponseWriter, r *http.Request, path, msg string) error {
	c.flash(w, msg)
	http.Redirect(w, r, path, http.StatusSeeOther)
	return nil
}

// confirmData is the confirmation page: what the action will do, and the
// form to send again with confirmed=yes.
type confirmData struct {
	Question, Action, Back string
	Danger                 bool
	Fields                 []field
}

// field is one hidden form field carried through a confirmation.
type field struct{ Name, Value string }

// confirmed reports whether a destructive form was confirmed; when it was
// not, it answers the confirmation page, which posts the same fields again
// with confirmed=yes (or goes back).
func (c *Console) confirmed(w http.ResponseWriter, r *http.Request, s *session, question, back string) bool {
	if r.PostFormValue("confirmed") == "yes" {
		return true
	}
	d := confirmData{Question: question, Action: r.URL.Path, Back: back, Danger: true}
	names := make([]string, 0, len(r.PostForm))
	for k := range r.PostForm {
		if k != "csrf" && k != "confirmed" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range r.PostForm[k] {
			d.Fields = append(d.Fields, field{k, v})
		}
	}
	c.render(w, r, s, http.StatusOK, "confirm", "Are you sure?", d)
	return false
}

// money reads a USD amount from a form field, or a refusal naming it.
func money(r *http.Request, name, label string) (topupd.Money, error) {
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(r.FormValue(name)), "$"))
	m, err := topupd.ParseMoney(v)
	if err != nil {
		return 0, pageError{http.StatusBadRequest, fmt.Sprintf("%s: %q is not an amount in dollars and cents, such as 25.00.", label, v)}
	}
	return m, nil
}

// dayParam reads a date (2006-01-02, UTC) from a query parameter; empty
// gives def.
func dayParam(q url.Values, name string, def time.Time) (time.Time, error) {
	v := strings.TrimSpace(q.Get(name))
	if v == "" {
		return def, nil
	}
	t, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return t, pageError{http.StatusBadRequest, fmt.Sprintf("%s: %q is not a date such as 2026-11-24.", name, v)}
	}
	return t, nil
}

// words splits a textarea of addresses into its entries: at line ends,
// commas and spaces.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' || r == ' ' || r == '\t' })
}

// codeLines splits a textarea of codes into its non-empty trimmed lines:
// a code may hold spaces.
func codeLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// pageQuery is the current query with one parameter replaced: the link to
// the next page of a list keeps its filters.
func pageQuery(q url.Values, name, value string) template.URL {
	n := url.Values{}
	for k, v := range q {
		n[k] = v
	}
	n.Set(name, value)
	return template.URL(n.Encode()) // url.Values encoded it: safe as a query
}

// badTextMsg is the page a request whose text the console refuses gets.
const badTextMsg = "This address or form holds a NUL byte or text that is not UTF-8; nothing was done."

// cleanRequest reports whether a request's path, query and form fields
// (names and values, decoded) are clean text (topupd.CleanText): the
// console refuses anything else with a 400 page before it reaches the
// store or the admin API (where JSON would quietly turn invalid UTF-8 into
// U+FFFD). A URL-encoded form is read here; a multipart one (the stock
// upload, whose size is bounded first) is checked by its handler.
func cleanRequest(r *http.Request) bool {
	if !topupd.CleanText(r.URL.Path) {
		return false
	}
	if q, _ := url.ParseQuery(r.URL.RawQuery); !cleanValues(q) {
		return false
	}
	if r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		r.ParseForm() // a malformed form is the handler's to refuse, as before
		return cleanValues(r.PostForm)
	}
	return true
}

// cleanValues reports whether every name and value of a form is clean text.
func cleanValues(v url.Values) bool {
	for k, vs := range v {
		if !topupd.CleanText(k) {
			return false
		}
		for _, s := range vs {
			if !topupd.CleanText(s) {
				return false
			}
		}
	}
	return true
}
