package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/console"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	topupdtest.CloseBrowser()
	os.Exit(code)
}

// stepTimeout bounds each browser step: a step that waits for an element
// the page never shows fails instead of hanging.
const stepTimeout = 30 * time.Second

// tab is a browser tab on a test server's console, with the server's clock.
type tab struct {
	t     *testing.T
	ctx   context.Context
	h     *topupdtest.T
	clock *topupdtest.Clock
}

// newTab starts a server on a fake clock and opens a browser tab on it.
func newTab(t *testing.T, opts ...topupdtest.Option) *tab {
	t.Helper()
	clock := topupdtest.NewClock()
	ctx := topupdtest.Browser(t)
	h := topupdtest.New(t, append([]topupdtest.Option{topupdtest.WithClock(clock)}, opts...)...)
	return &tab{t: t, ctx: ctx, h: h, clock: clock}
}

// also opens another tab, with cookies of its own, on the same server.
func (b *tab) also() *tab {
	return &tab{t: b.t, ctx: topupdtest.Browser(b.t), h: b.h, clock: b.clock}
}

// do runs browser steps, failing the test on error.
func (b *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v (at %s)", err, b.url())
	}
}

// open loads a console path.
func (b *tab) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.h.Admin.URL + path))
}

// fill sets the value of the form fields named by CSS selectors.
func (b *tab) fill(fields map[string]string) {
	b.t.Helper()
	for sel, v := range fields {
		b.do(chromedp.WaitReady(chromedp.CSS(sel)))
		js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; return true })()`, sel, v)
		if _, err := run(b, chromedp.Evaluate[bool](js)); err != nil {
			b.t.Fatalf("filling %s: %v (at %s)", sel, err, b.url())
		}
	}
}

// click clicks an element and waits for the page the click loads.
func (b *tab) click(sel string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		b.t.Fatalf("clicking %s: %v (at %s)", sel, err, b.url())
	}
}

// text is the visible text of the first element sel finds, waiting for it.
func (b *tab) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("reading %s: %v (at %s)", sel, err, b.url())
	}
	return strings.TrimSpace(s)
}

// run runs one browser action of a tab within stepTimeout, so that a stalled
// browser fails the test with a message instead of hanging it.
func run[T any](b *tab, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// has reports whether the page has an element sel finds, without waiting.
func (b *tab) has(sel string) bool {
	b.t.Helper()
	n, err := run(b, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		b.t.Fatalf("looking for %s: %v", sel, err)
	}
	return n > 0
}

// page is the text of the whole page.
func (b *tab) page() string {
	b.t.Helper()
	return b.text("body")
}

// url is where the tab is.
func (b *tab) url() string {
	u, _ := chromedp.Run(b.ctx, chromedp.Location())
	return u
}

// path is the tab's URL without the server.
func (b *tab) path() string { return strings.TrimPrefix(b.url(), b.h.Admin.URL) }

// operator is a console user: their name, password and TOTP secret.
type operator struct {
	name, password, secret, link string
	recovery                     []string
}

// setUp creates an operator with a role through the admin API and sets up
// their console sign-in in this tab through their setup link.
func (b *tab) setUp(name, role string) operator {
	b.t.Helper()
	b.h.NewOperator(name, role)
	r := b.h.AdminOK(201, "POST", "/admin/operators/"+name+"/setup-link", nil)
	link := r.Str("url")
	b.h.Logs.Secret(link[strings.LastIndex(link, "/")+1:], name+"'s setup link")
	b.do(chromedp.Navigate(link))
	o := operator{name: name, password: "correct horse battery " + name, secret: b.text("#totp-secret"), link: link}
	b.h.Logs.Secret(o.secret, name+"'s TOTP secret")
	b.fill(map[string]string{"[name=password]": o.password, "[name=again]": o.password, "[name=code]": console.TOTPCode(o.secret, b.clock.Now())})
	b.click("form button[type=submit]")
	o.recovery = strings.Fields(b.text("#recovery-codes"))
	if len(o.recovery) != 8 {
		b.t.Fatalf("setting up %s: recovery codes %q\n%s", name, o.recovery, b.page())
	}
	return o
}

// signIn signs an operator in, with the code their app shows next.
func (b *tab) signIn(o operator) {
	b.t.Helper()
	b.tryCode(o, "")
	if got := b.text("#whoami"); !strings.HasPrefix(got, o.name) {
		b.t.Fatalf("signed in as %q, want %s", got, o.name)
	}
}

// tryCode fills and sends the sign-in form; an empty code is the app's
// code after the clock moves on a step (a code works once).
func (b *tab) tryCode(o operator, code string) {
	b.t.Helper()
	if code == "" {
		b.clock.Advance(30 * time.Second)
		code = console.TOTPCode(o.secret, b.clock.Now())
	}
	if !strings.HasPrefix(b.path(), "/console/login") {
		b.open("/console/login")
	}
	b.fill(map[string]string{"[name=name]": o.name, "[name=password]": o.password, "[name=code]": code})
	b.click("form button[type=submit]")
}

// getCookies reads the tab's cookies for its page.
func getCookies() chromedp.Action[[]*http.Cookie] {
	return func(ctx context.Context, t *chromedp.Target) ([]*http.Cookie, error) {
		res, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{})
		if err != nil {
			return nil, err
		}
		var out []*http.Cookie
		for _, c := range res.Cookies {
			out = append(out, &http.Cookie{Name: c.Name, Value: c.Value})
		}
		return out, nil
	}
}

// httptestServer serves one HTML page from another origin (another port,
// as a site elsewhere would be), and answers its URL.
func httptestServer(t *testing.T, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>elsewhere</title>"+body)
	}))
	t.Cleanup(srv.Close)
	return strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}
