package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestConsoleBadText: a NUL byte or invalid UTF-8 in a console path, query
// or form field is a 400 page, on both databases: never a 500, and never
// text changed on its way to the store (invalid UTF-8 that JSON would turn
// into U+FFFD). The sign-in form, which reads the store before anyone is
// signed in, refuses it too. Nothing is created.
func TestConsoleBadText(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("10", nil)
		h.NewOperator("kim", "owner")
		secret, id := topupd.NewSecret()
		const csrf = "form-token-of-kim"
		if err := h.Store.CreateSession(t.Context(), topupd.ConsoleSession{ID: id, Operator: "kim", CSRF: csrf, IP: "127.0.0.1", CreatedAt: h.Now()}); err != nil {
			t.Fatal(err)
		}
		h.Logs.Secret(secret, "kim's session")
		jar, _ := cookiejar.New(nil)
		base, _ := url.Parse(h.Admin.URL + "/console/")
		jar.SetCookies(base, []*http.Cookie{{Name: "topupd_session", Value: secret, Path: "/console/"}})
		signedIn := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		send := func(c *http.Client, method, path string, form url.Values) (int, string) {
			t.Helper()
			var body io.Reader
			if form != nil {
				body = strings.NewReader(form.Encode())
			}
			req, err := http.NewRequest(method, h.Admin.URL+path, body)
			if err != nil {
				t.Fatal(err)
			}
			if form != nil {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if status, body := send(signedIn, "GET", "/console/accounts/"+a.ID, nil); status != 200 || !strings.Contains(body, a.ID) {
			t.Fatalf("the session does not work: %d %.300s", status, body)
		}

		for _, bad := range []string{"\x00", "\xff", "x\xc3\x28"} {
			esc := url.PathEscape(bad)
			for _, path := range []string{"/console/orders/" + esc, "/console/accounts/" + esc, "/console/orders?q=" + url.QueryEscape(bad),
				"/console/accounts?q=" + url.QueryEscape(bad), "/console/actions?operator=" + url.QueryEscape(bad),
				"/console/catalog/packs/" + esc, "/console/stock/" + esc, "/console/orders?" + url.QueryEscape(bad) + "=1"} {
				if status, body := send(signedIn, "GET", path, nil); status != 400 {
					t.Errorf("GET %q: %d %.300s, want 400", path, status, body)
				}
			}
			for _, c := range []struct {
				path string
				form url.Values
			}{
				{"/console/accounts", url.Values{"name": {"shop" + bad}}},
				{"/console/accounts/" + a.ID + "/credit", url.Values{"amount": {"5"}, "reference": {"ref" + bad}}},
				{"/console/accounts/" + a.ID + "/keys", url.Values{"label": {"bot" + bad}}},
				{"/console/accounts/" + a.ID + "/allowlist", url.Values{"ipAllowlist": {"10.0.0.1" + bad}}},
				{"/console/accounts/" + a.ID + "/credit", url.Values{"amount": {"5"}, "reference": {"ok"}, "x" + bad: {"1"}}},
			} {
				c.form.Set("csrf", csrf)
				if status, body := send(signedIn, "POST", c.path, c.form); status != 400 {
					t.Errorf("POST %s %q: %d %.300s, want 400", c.path, c.form, status, body)
				}
			}

			// Signing in: the form's token comes with the form.
			anon, _ := cookiejar.New(nil)
			visitor := &http.Client{Jar: anon, Timeout: 30 * time.Second, CheckRedirect: signedIn.CheckRedirect}
			if status, _ := send(visitor, "GET", "/console/login", nil); status != 200 {
				t.Fatalf("the sign-in form: %d", status)
			}
			token := ""
			for _, ck := range anon.Cookies(base) {
				if ck.Name == "topupd_login" {
					token = ck.Value
				}
			}
			form := url.Values{"csrf": {token}, "name": {"kim" + bad}, "password": {"a password of kim"}, "code": {"123456"}}
			if status, body := send(visitor, "POST", "/console/login", form); status != 400 {
				t.Errorf("signing in as %q: %d %.300s, want 400", "kim"+bad, status, body)
			}
			if status, body := send(visitor, "GET", "/console/login?next=%2Fconsole%2F"+esc, nil); status != 400 {
				t.Errorf("the sign-in form with next %q: %d %.300s, want 400", bad, status, body)
			}
		}
		accounts, err := h.AdminClient.Accounts(t.Context(), "", "", 100)
		if err != nil || len(accounts.Accounts) != 1 {
			t.Errorf("accounts after bad text: %+v, %v", accounts, err)
		}
		if got := h.Balance(a); got != "10" {
			t.Errorf("the balance after bad text: %s, want 10", got)
		}
	})
}
