package console_test

import (
	"strings"
	"testing"
)

// TestLoginLockouts: an owner sees the names locked out of signing in
// (and those with failures counted), unlocks one, and the operator signs in
// at once; the unlock is in the action log; another role may not see the
// page (issue 22, point 7).
func TestLoginLockouts(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	olga := b.setUp("olga", "owner")
	k := b.also()
	kim := k.setUp("kim", "support")
	b.signIn(olga)
	bad := kim
	bad.password = "not the password at all"
	for range 5 {
		k.tryCode(bad, "")
	}
	k.tryCode(kim, "")
	if got := k.text("#error"); !strings.Contains(got, "locked until") {
		t.Fatalf("kim is not locked: %q", got)
	}
	t.Run("the owner's view", func(t *testing.T) {
		b.open("/console/operators")
		b.click("#lockouts-link")
		row := b.text("#lockouts tbody tr")
		if !strings.HasPrefix(row, "kim") || !strings.Contains(row, "5") || strings.Contains(row, "not locked") {
			t.Errorf("the lockouts: %q", row)
		}
	})
	t.Run("unlock", func(t *testing.T) {
		b.click("#unlock-kim")
		if got := b.text("#flash"); got != "kim may sign in again." {
			t.Errorf("after unlocking: %q", got)
		}
		if strings.Contains(b.text("#lockouts"), "kim") {
			t.Errorf("kim is still listed: %s", b.text("#lockouts"))
		}
		k.signIn(kim)
		b.open("/console/actions")
		if log := b.text("main"); !strings.Contains(log, "operator.unlock") {
			t.Errorf("the action log has no operator.unlock")
		}
	})
	t.Run("not for support", func(t *testing.T) {
		k.open("/console/operators/lockouts")
		if k.has("#lockouts") {
			t.Errorf("support sees the lockouts")
		}
	})
}
