package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/console"
)

// TestOwnSignIn: an operator changes their own password (the current one
// required; their other sessions end), moves to a new authenticator app
// from a page with its QR code (the current password required, the old
// app's codes stop), and makes new recovery codes with a code of the app
// (the old codes stop); each change is in the action log (issue 22,
// point 7).
func TestOwnSignIn(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	kim := b.setUp("kim", "support")
	b.signIn(kim)
	other := b.also()
	other.signIn(kim)

	t.Run("password", func(t *testing.T) {
		b.click("#whoami a")
		if b.path() != "/console/me" {
			t.Fatalf("the name in the header goes to %s", b.path())
		}
		b.fill(map[string]string{"#current": "not my password at all", "#password": "a brand new password", "#again": "a brand new password"})
		b.click("#change-password")
		if got := b.text("#current-error"); got != "Your current password is not right." {
			t.Errorf("a wrong current password: %q", got)
		}
		b.fill(map[string]string{"#current": kim.password, "#password": "a brand new password", "#again": "a brand new password"})
		b.click("#change-password")
		if got := b.text("#flash"); !strings.HasPrefix(got, "Your password is changed.") {
			t.Fatalf("after changing: %q\n%s", got, b.page())
		}
		other.open("/console/")
		if !strings.HasPrefix(other.path(), "/console/login") {
			t.Errorf("the other session lives on after the password changed: %s", other.path())
		}
		old := kim
		other.tryCode(old, "")
		if !other.has("#error") {
			t.Errorf("the old password still signs in")
		}
		kim.password = "a brand new password"
		other.signIn(kim)
	})

	t.Run("new app", func(t *testing.T) {
		b.open("/console/me")
		b.click("#renew-totp")
		src, _ := run(b, chromedp.Evaluate[string](`document.querySelector("#totp-qr").getAttribute("src") || ""`))
		if !strings.HasPrefix(src, "data:image/png;base64,") {
			t.Errorf("the QR code's src is %.40q", src)
		}
		secret := b.text("#totp-secret")
		b.h.Logs.Secret(secret, "kim's new TOTP secret")
		b.clock.Advance(30 * time.Second)
		b.fill(map[string]string{"#code": console.TOTPCode(secret, b.clock.Now())})
		b.click("#renew")
		if got := b.text("#current-error"); !strings.Contains(got, "current password") {
			t.Errorf("renewing with neither password nor code: %q", got)
		}
		b.fill(map[string]string{"#code": console.TOTPCode(secret, b.clock.Now()), "#current": kim.password})
		b.click("#renew")
		codes := strings.Fields(b.text("#recovery-codes"))
		if len(codes) != 8 {
			t.Fatalf("after renewing: %q\n%s", codes, b.page())
		}
		old := kim
		kim.secret, kim.recovery = secret, codes
		c := b.also()
		c.tryCode(old, "")
		if !c.has("#error") {
			t.Errorf("the old app's code still signs in")
		}
		c.signIn(kim)
	})

	t.Run("recovery codes", func(t *testing.T) {
		b.open("/console/me")
		b.clock.Advance(30 * time.Second)
		b.fill(map[string]string{"#recovery-form [name=currentCode]": console.TOTPCode(kim.secret, b.clock.Now())})
		b.click("#renew-recovery")
		codes := strings.Fields(b.text("#recovery-codes"))
		if len(codes) != 8 || codes[0] == kim.recovery[0] {
			t.Fatalf("new recovery codes: %q", codes)
		}
		c := b.also()
		c.tryCode(kim, kim.recovery[0])
		if !c.has("#error") {
			t.Errorf("an old recovery code still signs in")
		}
		c.tryCode(kim, codes[0])
		if !strings.HasPrefix(c.text("#whoami"), "kim") {
			t.Errorf("a new recovery code does not sign in")
		}
		b.open("/console/actions")
		log := b.text("main")
		for _, want := range []string{"operator.password", "operator.totp", "operator.recovery-codes"} {
			if !strings.Contains(log, want) {
				t.Errorf("the action log has no %s", want)
			}
		}
	})
}
