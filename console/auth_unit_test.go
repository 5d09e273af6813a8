package console

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// These tests run the console's sign-in and session checks on a fake
// store, with a recorder for the browser: no database, no Chromium, so
// they run under -short. The browser tests (signin_test.go and the rest)
// keep the whole flows.

// unitConsole is a console over a fakeStore, on a clock the test moves.
type unitConsole struct {
	*Console
	store *fakeStore
	vault *topupd.Vault
	mu    sync.Mutex
	now   time.Time
}

// settingsOnly is a service store that answers Settings (defaults: orders
// on, no maintenance) and nothing else.
type settingsOnly struct{ service.Store }

// Settings answers the defaults.
func (settingsOnly) Settings(context.Context) (topupd.Settings, error) { return topupd.Settings{}, nil }

func newUnitConsole(t *testing.T) *unitConsole {
	t.Helper()
	vault, err := topupd.NewVault(make([]byte, topupd.SecretKeySize))
	if err != nil {
		t.Fatal(err)
	}
	// The service's store answers the settings alone, which every signed-in
	// page reads for its banners: a check that let a request through to an
	// operation would panic the test.
	svc, err := service.New(service.Deps{Store: settingsOnly{}})
	if err != nil {
		t.Fatal(err)
	}
	u := &unitConsole{store: newFakeStore(), vault: vault, now: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	u.Console, err = New(Deps{Store: u.store, Service: svc, Vault: vault, Now: u.clock,
		StatusOf: func(error) int { return http.StatusInternalServerError }})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (u *unitConsole) clock() time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.now
}

func (u *unitConsole) advance(d time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.now = u.now.Add(d)
}

// addOperator gives the fake an operator with a console password and a
// TOTP secret, and returns the secret.
func (u *unitConsole) addOperator(t *testing.T, name string, role topupd.Role, password string) string {
	t.Helper()
	secret, _, err := newTOTP(name)
	if err != nil {
		t.Fatal(err)
	}
	u.store.ops[name] = topupd.Operator{Name: name, Role: role}
	u.store.creds[name] = topupd.ConsoleCredentials{PasswordHash: hashPassword(password), TOTPSealed: u.vault.Seal(totpContext(name), secret)}
	return secret
}

// signInAs stores a session of name and returns its cookie and CSRF token.
func (u *unitConsole) signInAs(name string) (*http.Cookie, string) {
	id, hash := topupd.NewSecret()
	csrf, _ := topupd.NewSecret()
	u.store.sessions[hash] = topupd.ConsoleSession{ID: hash, Operator: name, CSRF: csrf, CreatedAt: u.clock()}
	return &http.Cookie{Name: sessionCookie, Value: id}, csrf
}

// serve answers one request.
func (u *unitConsole) serve(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	u.ServeHTTP(w, r)
	return w
}

func TestSignedInGate(t *testing.T) {
	u := newUnitConsole(t)
	u.store.ops["vic"] = topupd.Operator{Name: "vic", Role: topupd.RoleViewer}
	u.store.ops["olga"] = topupd.Operator{Name: "olga", Role: topupd.RoleOwner}
	vic, vicCSRF := u.signInAs("vic")
	olga, olgaCSRF := u.signInAs("olga")
	stale := &http.Cookie{Name: sessionCookie, Value: "no-such-session"}

	tests := []struct {
		name         string
		method, path string
		cookie       *http.Cookie
		csrf         string // sent as X-CSRF-Token when set
		wantStatus   int
		wantLocation string
		wantBody     string
	}{
		{name: "no cookie, a page", method: "GET", path: "/console/orders?status=processing",
			wantStatus: http.StatusSeeOther, wantLocation: "/console/login?next=" + url.QueryEscape("/console/orders?status=processing")},
		{name: "unknown session, a page", method: "GET", path: "/console/orders", cookie: stale,
			wantStatus: http.StatusSeeOther, wantLocation: "/console/login?next=%2Fconsole%2Forders"},
		{name: "no cookie, a form", method: "POST", path: "/console/accounts", csrf: "x",
			wantStatus: http.StatusUnauthorized, wantBody: "Your session has ended"},
		{name: "a form without the CSRF token", method: "POST", path: "/console/logout", cookie: olga,
			wantStatus: http.StatusForbidden, wantBody: "did not come from your console session"},
		{name: "a form with another session's token", method: "POST", path: "/console/logout", cookie: olga, csrf: vicCSRF,
			wantStatus: http.StatusForbidden, wantBody: "did not come from your console session"},
		{name: "a role without the permission", method: "POST", path: "/console/accounts", cookie: vic, csrf: vicCSRF,
			wantStatus: http.StatusForbidden, wantBody: "Your role (viewer) may not do this."},
		{name: "a role without the permission, a page", method: "GET", path: "/console/operators", cookie: vic,
			wantStatus: http.StatusForbidden, wantBody: "Your role (viewer) may not do this."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.cookie != nil {
				r.AddCookie(tt.cookie)
			}
			if tt.csrf != "" {
				r.Header.Set("X-CSRF-Token", tt.csrf)
			}
			w := u.serve(r)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d; body:\n%s", w.Code, tt.wantStatus, w.Body)
			}
			if got := w.Header().Get("Location"); got != tt.wantLocation {
				t.Errorf("Location %q, want %q", got, tt.wantLocation)
			}
			if !strings.Contains(w.Body.String(), tt.wantBody) {
				t.Errorf("body lacks %q:\n%s", tt.wantBody, w.Body)
			}
		})
	}
	if n := u.store.sessionsOf("olga"); n != 1 {
		t.Fatalf("olga has %d sessions after refused sign-outs, want 1", n)
	}

	// The same form with the session's own token gets through: olga is
	// signed out.
	r := httptest.NewRequest("POST", "/console/logout", nil)
	r.AddCookie(olga)
	r.Header.Set("X-CSRF-Token", olgaCSRF)
	if w := u.serve(r); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/login" {
		t.Fatalf("sign-out with the token: status %d, Location %q", w.Code, w.Header().Get("Location"))
	}
	if n := u.store.sessionsOf("olga"); n != 0 {
		t.Fatalf("olga has %d sessions after signing out, want 0", n)
	}
}

// loginRequest is a sign-in form post from ip, with the form's token in
// its cookie.
func loginRequest(ip, name, password, code string) *http.Request {
	token, _ := topupd.NewSecret()
	form := url.Values{"csrf": {token}, "name": {name}, "password": {password}, "code": {code}, "next": {"/console/orders"}}
	r := httptest.NewRequest("POST", "/console/login", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.AddCookie(&http.Cookie{Name: loginCookie, Value: token})
	r.RemoteAddr = ip + ":40000"
	return r
}

func TestSignInUnit(t *testing.T) {
	u := newUnitConsole(t)
	const password = "correct horse battery"
	secret := u.addOperator(t, "ana", topupd.RoleOwner, password)

	// A form posted without its cookie's token is refused unchecked.
	r := loginRequest("192.0.2.1", "ana", password, TOTPCode(secret, u.clock()))
	r.Header.Del("Cookie")
	if w := u.serve(r); w.Code != http.StatusForbidden {
		t.Fatalf("sign-in without the form's cookie: status %d, want 403", w.Code)
	}

	w := u.serve(loginRequest("192.0.2.1", "ana", password, TOTPCode(secret, u.clock())))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/orders" {
		t.Fatalf("sign-in: status %d, Location %q; body:\n%s", w.Code, w.Header().Get("Location"), w.Body)
	}
	if n := u.store.sessionsOf("ana"); n != 1 {
		t.Fatalf("ana has %d sessions after signing in, want 1", n)
	}
	var cookie *http.Cookie
	for _, c := range w.Result().Cookies() {
		if c.Name == sessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/console/" {
		t.Fatalf("session cookie %+v, want HttpOnly, SameSite=Strict, Path /console/", cookie)
	}
	if _, _, err := u.store.Session(t.Context(), topupd.HashSecret(cookie.Value), u.clock()); err != nil {
		t.Fatalf("the cookie names no session: %v", err)
	}

	// The same code again is a replay.
	if w := u.serve(loginRequest("192.0.2.1", "ana", password, TOTPCode(secret, u.clock()))); w.Code != http.StatusUnauthorized {
		t.Fatalf("a TOTP code used twice: status %d, want 401", w.Code)
	}
}

func TestSignInLockout(t *testing.T) {
	u := newUnitConsole(t)
	const password = "correct horse battery"
	secret := u.addOperator(t, "ana", topupd.RoleOwner, password)

	for i := 1; i <= topupd.MaxLoginFailures; i++ {
		w := u.serve(loginRequest("192.0.2.1", "ana", "wrong password!", "000000"))
		if w.Code != http.StatusUnauthorized {
			t.Fatalf("wrong password %d: status %d, want 401", i, w.Code)
		}
		locked := strings.Contains(w.Body.String(), "this name is locked until 10:15 UTC")
		if locked != (i == topupd.MaxLoginFailures) {
			t.Fatalf("wrong password %d of %d: says locked %v; body:\n%s", i, topupd.MaxLoginFailures, locked, w.Body)
		}
	}
	u.advance(time.Minute)
	w := u.serve(loginRequest("192.0.2.2", "ana", password, TOTPCode(secret, u.clock())))
	if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), "locked until 10:15 UTC") {
		t.Fatalf("the right password while locked: status %d, want 429 and the lock's end; body:\n%s", w.Code, w.Body)
	}
	if n := u.store.sessionsOf("ana"); n != 0 {
		t.Fatalf("a locked name signed in: %d sessions", n)
	}
	u.advance(topupd.LoginLockout)
	if w := u.serve(loginRequest("192.0.2.2", "ana", password, TOTPCode(secret, u.clock()))); w.Code != http.StatusSeeOther {
		t.Fatalf("the right password after the lock: status %d, want 303; body:\n%s", w.Code, w.Body)
	}
}

func TestSignInAddressBlock(t *testing.T) {
	u := newUnitConsole(t)
	const password = "correct horse battery"
	secret := u.addOperator(t, "ana", topupd.RoleOwner, password)
	u.addOperator(t, "mallory", topupd.RoleViewer, "another password!")

	// Failures from one address, whatever the name (mallory's is locked
	// after 5; the address still counts each).
	for i := range ipMaxFailures {
		if w := u.serve(loginRequest("198.51.100.7", "mallory", "guess", "000000")); w.Code == http.StatusSeeOther || w.Code == http.StatusForbidden {
			t.Fatalf("guess %d: status %d", i, w.Code)
		}
	}
	w := u.serve(loginRequest("198.51.100.7", "ana", password, TOTPCode(secret, u.clock())))
	if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), "from your address") {
		t.Fatalf("the right password from a blocked address: status %d, want 429; body:\n%s", w.Code, w.Body)
	}
	// Another address is not blocked.
	if w := u.serve(loginRequest("198.51.100.8", "ana", password, TOTPCode(secret, u.clock()))); w.Code != http.StatusSeeOther {
		t.Fatalf("the right password from another address: status %d, want 303; body:\n%s", w.Code, w.Body)
	}
	// The block lasts ipWindow from the failures.
	u.advance(ipWindow + time.Second)
	if w := u.serve(loginRequest("198.51.100.7", "ana", password, TOTPCode(secret, u.clock()))); w.Code != http.StatusSeeOther {
		t.Fatalf("the right password after the window: status %d, want 303; body:\n%s", w.Code, w.Body)
	}
}
