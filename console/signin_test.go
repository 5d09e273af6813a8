package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/console"
)

// TestSignIn: an operator sets up through their link (password and TOTP),
// and the link then stops working; a wrong password, a wrong code and a
// code used before are refused (the last with its own words); the right ones sign in, and a
// recovery code works once in place of a code; signing out ends the
// session; the login log has every attempt; nothing secret is logged.
func TestSignIn(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	kim := b.setUp("kim", "support")
	wrong := "The name, password or code is wrong."
	b.open("/console/")
	if !strings.HasPrefix(b.path(), "/console/login?next=") {
		t.Fatalf("an unsigned visit to the dashboard went to %s", b.path())
	}
	bad := kim
	bad.password = "not the password at all"
	b.tryCode(bad, "")
	if got := b.text("#error"); got != wrong {
		t.Errorf("a wrong password: %q", got)
	}
	b.tryCode(kim, "000000")
	if got := b.text("#error"); got != wrong {
		t.Errorf("a wrong code: %q", got)
	}
	b.signIn(kim)
	if b.path() != "/console/" {
		t.Errorf("signed in at %s, want the dashboard", b.path())
	}
	used := console.TOTPCode(kim.secret, b.clock.Now())
	other := b.also()
	other.tryCode(kim, used)
	if got := other.text("#error"); !strings.Contains(got, "Wait for the next code") {
		t.Errorf("the code used a moment ago, again: %q", got)
	}
	other.tryCode(kim, strings.ToLower(kim.recovery[0]))
	if !strings.HasPrefix(other.text("#whoami"), "kim") {
		t.Errorf("a recovery code did not sign in: %s", other.page())
	}
	b.click("form.who button")
	if !strings.HasPrefix(b.path(), "/console/login") || b.text("#flash") != "You are signed out." || b.has("#whoami") {
		t.Errorf("after signing out: %s\n%s", b.path(), b.page())
	}
	b.open("/console/")
	if !strings.HasPrefix(b.path(), "/console/login") {
		t.Errorf("the dashboard after signing out: %s", b.path())
	}
	third := b.also()
	third.tryCode(kim, kim.recovery[0])
	if got := third.text("#error"); got != wrong {
		t.Errorf("a recovery code used twice: %q", got)
	}

	logins, err := b.h.Store.Logins(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for i := len(logins) - 1; i >= 0; i-- {
		reasons = append(reasons, logins[i].Reason)
	}
	want := "bad password,bad code,signed in,code used before,signed in,bad recovery code"
	if got := strings.Join(reasons, ","); got != want {
		t.Errorf("the login log: %s, want %s", got, want)
	}
	acts, err := b.h.AdminClient.Actions(t.Context(), url.Values{"action": {"operator.setup"}})
	if err != nil || len(acts.Actions) != 1 || acts.Actions[0].Operator != "kim" {
		t.Errorf("the setup in the action log: %+v, %v", acts, err)
	}
	unknown, _ := topupd.NewSecret()
	for _, link := range []string{kim.link, b.h.Admin.URL + "/console/setup/" + unknown} {
		b.do(chromedp.Navigate(link))
		if got := b.text("#error"); !strings.Contains(got, "unknown, used or expired") {
			t.Errorf("a spent or unknown setup link: %q", got)
		}
	}
}

// TestLockout: the fifth wrong sign-in of a name locks it for 15 minutes,
// right password and code or not; then it signs in.
func TestLockout(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	kim := b.setUp("kim", "viewer")
	bad := kim
	bad.password = "wrong wrong wrong"
	for range topupd.MaxLoginFailures {
		b.tryCode(bad, "")
	}
	if got := b.text("#error"); !strings.Contains(got, "locked until") {
		t.Errorf("after 5 failures: %q", got)
	}
	b.tryCode(kim, "")
	if got := b.text("#error"); !strings.Contains(got, "locked until") {
		t.Errorf("the right password while locked: %q", got)
	}
	b.clock.Advance(topupd.LoginLockout)
	b.signIn(kim)
}

// TestSessionExpiry: a session unused for 12 hours ends; one used within
// them lives on.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	kim := b.setUp("kim", "viewer")
	b.signIn(kim)
	b.clock.Advance(11 * time.Hour)
	b.open("/console/")
	if b.path() != "/console/" {
		t.Fatalf("after 11 hours: %s", b.path())
	}
	b.clock.Advance(12*time.Hour + time.Minute)
	b.open("/console/")
	if !strings.HasPrefix(b.path(), "/console/login") {
		t.Errorf("after 12 hours unused: %s", b.path())
	}
}

// TestCrossSitePost: a form on another site that posts to the console,
// opened by a signed-in operator, is refused (the session cookie is
// SameSite=Strict, and the form has no CSRF token); so is a post with the
// session but without the token.
func TestCrossSitePost(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	kim := b.setUp("kim", "owner")
	b.signIn(kim)
	evil := httptestServer(t, `<form id="f" method="post" action="`+b.h.Admin.URL+`/console/logout"><button>win</button></form>`)
	b.do(chromedp.Navigate(evil))
	b.click("#f button")
	if got := b.text("#error"); !strings.Contains(got, "session has ended") {
		t.Errorf("a cross-site post: %q", got)
	}
	b.open("/console/")
	if b.path() != "/console/" {
		t.Errorf("the cross-site post signed kim out: %s", b.path())
	}
	cookies, err := chromedp.Run(b.ctx, getCookies())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", b.h.Admin.URL+"/console/logout", strings.NewReader("csrf=forged"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a post with the session and a forged token: %d", resp.StatusCode)
	}
	b.open("/console/")
	if b.path() != "/console/" {
		t.Errorf("the forged post signed kim out: %s", b.path())
	}
}
