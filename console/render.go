package console

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// view is what every page's template gets.
type view struct {
	Title string
	// Here is the page's own address, for the zone picker to come back to.
	Here string
	// S is the signed-in session; nil on the sign-in pages.
	S *session
	// Nav is the menu: only what the operator's role may see.
	Nav []navLink
	// Flash is the outcome of the last action, shown once.
	Flash string
	// Error says what went wrong, on the page that failed.
	Error string
	// Data is the page's own.
	Data any
	// Form is what was typed into a form that was refused, shown again;
	// Errs the refusal of each field, by the field's name (formFailed).
	Form url.Values
	Errs map[string]string
	// OrdersOff and Maintenance are the settings that stop new orders:
	// every signed-in page says so in a banner (banner.go).
	OrdersOff, Maintenance bool
}

// Val is what was typed into the field name of a refused form, or def
// (the stored value) when the field was not in it.
func (v view) Val(name, def string) string {
	if vs, ok := v.Form[name]; ok && len(vs) > 0 {
		return vs[0]
	}
	return def
}

// Err is the refusal of the field name, "" when there is none.
func (v view) Err(name string) string { return v.Errs[name] }

// Op is the signed-in operator's name.
func (v view) Op() string {
	if v.S == nil {
		return ""
	}
	return v.S.op.Name
}

// Role is the signed-in operator's role.
func (v view) Role() string {
	if v.S == nil {
		return ""
	}
	return string(v.S.op.Role)
}

// CSRF is the token every form of the session carries.
func (v view) CSRF() string {
	if v.S == nil {
		return ""
	}
	return v.S.csrf
}

// May reports whether the signed-in operator's role allows the permission
// a template names. A name that is no permission is an error, which stops
// the page, never a quiet "no" (TestTemplatePermissions finds any before
// a page is drawn).
func (v view) May(p string) (bool, error) {
	perm := topupd.Permission(p)
	if !perm.Valid() {
		return false, fmt.Errorf("console: a template asks for the permission %q, which does not exist", p)
	}
	return v.S != nil && v.S.may(perm), nil
}

// navLink is one entry of the menu.
type navLink struct {
	Path, Label string
	Active      bool
	// Count, when not 0, is shown beside the label: the open deposit
	// tickets, on the Deposits entry.
	Count int
}

// menu is the whole menu with the permission each entry needs.
var menu = []struct {
	path, label string
	perm        topupd.Permission
}{
	{"/console/", "Dashboard", topupd.PermRead},
	{"/console/orders", "Orders", topupd.PermRead},
	{"/console/accounts", "Accounts", topupd.PermRead},
	{depositsPath, "Deposits", topupd.PermRead},
	{disputesPath, "Disputes", topupd.PermRead},
	{"/console/catalog", "Catalog", topupd.PermRead},
	{"/console/stock", "Stock", topupd.PermRead},
	{"/console/suppliers", "Suppliers", topupd.PermRead},
	{"/console/reconciliations", "Reconciliations", topupd.PermRead},
	{"/console/reports", "Reports", topupd.PermReports},
	{"/console/operators", "Operators", topupd.PermOperators},
	{"/console/actions", "Action log", topupd.PermRead},
	{"/console/settings", "Settings", topupd.PermRead},
}

// navFor is the menu a session sees, with the current page marked.
func navFor(s *session, path string) []navLink {
	if s == nil {
		return nil
	}
	var out []navLink
	for _, m := range menu {
		if s.may(m.perm) {
			active := path == m.path || (m.path != "/console/" && strings.HasPrefix(path, m.path)) ||
				m.path == "/console/catalog" && strings.HasPrefix(path, pricingPath) // Catalog → Pricing
			out = append(out, navLink{Path: m.path, Label: m.label, Active: active})
		}
	}
	return out
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"usd": topupd.Money.Dollars,
	// live is the live account of an account id: a sandbox order's is its
	// sandbox's (topupd.LiveID).
	"live": func(id string) string {
		live, _ := topupd.LiveID(id)
		return live
	},
	// usdIf is usd of an amount, "" for none (0).
	"usdIf": func(m topupd.Money) string {
		if m == 0 {
			return ""
		}
		return m.Dollars()
	},
	// dollars is an amount as people read it: "$1,234.56".
	"dollars": usdText,
	// usdp is usd of an amount that may be absent ("" then).
	"usdp": func(m *topupd.Money) string {
		if m == nil {
			return ""
		}
		return m.Dollars()
	},
	// ratio is a ratio as a percentage, exactly: 0.3333 is "33.33%".
	"ratio": func(r topupd.Ratio) string { return topupd.Money(int64(r)*100).String() + "%" },
	// str is a string that may be absent ("" then).
	"str": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
	"when":   zoneFuncs(time.UTC)["when"], // each page's own zone: zone.go
	"whenp":  zoneFuncs(time.UTC)["whenp"],
	"zones":  zoneFuncs(time.UTC)["zones"],
	"zone":   zoneFuncs(time.UTC)["zone"],
	"date":   func(t time.Time) string { return t.UTC().Format(time.DateOnly) },
	"join":   strings.Join,
	"split":  strings.Fields,
	"add":    func(a, b int64) int64 { return a + b },
	"mul100": func(f float64) float64 { return f * 100 },
	"setting": func(name, label string, on bool, v view) settingView {
		return settingView{Name: name, Label: label, On: on, V: v}
	},
	"plural": plural,
	// supplier is who fulfils an order, in words (orders.go).
	"supplier": supplierText,
	// fieldErr is what the field-error template shows: a refusal beside
	// the field whose id is id.
	"fieldErr": func(id, msg string) fieldMsg { return fieldMsg{ID: id, Msg: msg} },
	// disputeLine pairs a dispute's row with the page's view (disputes.go).
	"disputeLine": func(r disputeRow, v view) disputeLine { return disputeLine{Row: r, V: v} },
	"pct":         pctText,
	"dur":         durText,
}

// fieldMsg is a field's refusal as the field-error template shows it.
type fieldMsg struct{ ID, Msg string }

// settingView is one switch of the settings page.
type settingView struct {
	Name, Label string
	On          bool
	V           view
}

// plural counts things in words: "1 code", "2 codes".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "y") {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(thing, "y") + "ies"
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// parsePages reads every page template with the layout.
func parsePages() (map[string]*template.Template, error) {
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("console: template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// render answers a page. Its flash, if any, is shown once.
func (c *Console) render(w http.ResponseWriter, r *http.Request, s *session, status int, page, title string, data any) {
	v := view{Title: title, S: s, Nav: navFor(s, r.URL.Path), Data: data}
	if ck, err := r.Cookie(flashCookie); err == nil {
		v.Flash = unflash(ck.Value)
		c.setCookie(w, flashCookie, "", -1)
	}
	c.renderView(w, r, status, page, v)
}

// renderView answers a page from a view made already.
func (c *Console) renderView(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	t := c.pages[page]
	if t == nil {
		panic("console: no page " + page)
	}
	c.banners(r, &v)
	c.depositsBadge(r, &v)
	v.Here = r.URL.RequestURI()
	if v.S != nil { // times in the operator's zone, labelled
		if t2, err := t.Clone(); err == nil {
			t = t2.Funcs(zoneFuncs(zoneOf(r)))
		}
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		c.Logger.ErrorContext(r.Context(), "console: rendering", "page", page, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// fail answers a page that says what went wrong.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	v := view{Title: http.StatusText(status), S: s, Nav: navFor(s, r.URL.Path), Error: msg}
	c.renderView(w, r, status, "error", v)
}

// failErr answers an error a page's work returned: the service layer's
// refusal with its status and message, anything else as a 500 that is
// logged.
func (c *Console) failErr(w http.ResponseWriter, r *http.Request, s *session, err error) {
	var de *topupd.Error
	if errors.As(err, &de) && de.Code != topupd.EInternal && c.StatusOf(err) < 500 {
		msg := de.Detail
		if msg == "" {
			msg = de.Code.Message()
		}
		c.fail(w, r, s, c.StatusOf(err), sentence(msg))
		return
	}
	var pe pageError
	if errors.As(err, &pe) {
		c.fail(w, r, s, pe.status, pe.msg)
		return
	}
	c.Logger.ErrorContext(r.Context(), "console", "path", r.URL.Path, "err", err)
	c.fail(w, r, s, http.StatusInternalServerError, "Something went wrong; it is in the log.")
}

// sentence makes a service's detail read as a sentence: a capital first
// letter and a full stop.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// fieldError is a refusal of a form's field (Field is its name; "" for
// the form as a whole), in plain words: the form's page is drawn again
// with what was typed and Msg beside the field.
type fieldError struct{ Field, Msg string }

func (e fieldError) Error() string { return e.Field + ": " + e.Msg }

// formFailed answers err, the refusal of a form: a fieldError draws the
// form's page again (page, with the title and data page gives) with what
// was typed and the message beside its field, as a 400; any other error
// is returned as it was, for the page that says what went wrong.
func (c *Console) formFailed(w http.ResponseWriter, r *http.Request, s *session, err error, page string, data func() (title string, d any, err error)) error {
	var fe fieldError
	if !errors.As(err, &fe) {
		return err
	}
	title, d, derr := data()
	if derr != nil {
		return derr
	}
	v := view{Title: title, S: s, Nav: navFor(s, r.URL.Path), Data: d, Form: r.PostForm, Errs: map[string]string{fe.Field: fe.Msg}}
	if fe.Field == "" {
		v.Error = fe.Msg
	}
	c.renderView(w, r, http.StatusBadRequest, page, v)
	return nil
}

// pageError is a refusal the console itself makes, with its status.
type pageError struct {
	status int
	msg    string
}

func (e pageError) Error() string { return e.msg }

// flash leaves a message for the next page the browser loads.
func (c *Console) flash(w http.ResponseWriter, msg string) {
	c.setCookie(w, flashCookie, base64.RawURLEncoding.EncodeToString([]byte(msg)), 60)
}

// unflash reads a flash cookie's message.
func unflash(v string) string {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil || len(b) > 500 {
		return ""
	}
	return string(b)
}
