package console_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd/console"
)

// TestSignInCodes: the second factor's words and fields on the sign-in
// page (issue 22, point 8). A TOTP code used a moment ago, sent again with
// the right password, says to wait for the next code; the recovery code has
// a field of its own that asks for no number pad, and it signs in.
func TestSignInCodes(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	kim := b.setUp("kim", "support")
	t.Run("a code used a moment ago", func(t *testing.T) {
		b.signIn(kim)
		used := console.TOTPCode(kim.secret, b.clock.Now())
		other := b.also()
		other.tryCode(kim, used)
		if got := other.text("#error"); !strings.Contains(got, "Wait for the next code") {
			t.Errorf("the same code again: %q, want it to say to wait for the next code", got)
		}
		bad := kim
		bad.password = "not the password at all"
		other.tryCode(bad, console.TOTPCode(kim.secret, b.clock.Now()))
		if got := other.text("#error"); got != "The name, password or code is wrong." {
			t.Errorf("the same code with a wrong password: %q, want the generic refusal", got)
		}
	})
	t.Run("the recovery code's own field", func(t *testing.T) {
		c := b.also()
		c.open("/console/login")
		if !c.has("input[name=recovery]") {
			t.Fatalf("the sign-in form has no recovery-code field:\n%s", c.page())
		}
		if c.has("input[name=recovery][inputmode=numeric]") || c.has("input[name=recovery][pattern]") || c.has("input[name=recovery][type=number]") {
			t.Errorf("the recovery-code field asks for a number pad")
		}
		if !c.has("input[name=code][inputmode=numeric]") {
			t.Errorf("the TOTP field lost its number pad")
		}
		c.fill(map[string]string{"[name=name]": kim.name, "[name=password]": kim.password, "[name=recovery]": kim.recovery[1]})
		c.click("form button[type=submit]")
		if !strings.HasPrefix(c.text("#whoami"), "kim") {
			t.Errorf("a recovery code in its own field did not sign in:\n%s", c.page())
		}
	})
}
