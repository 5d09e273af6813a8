package storetest

import (
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// setUpConsole gives an operator console credentials through a setup link.
func (e *env) setUpConsole(name string, recovery []topupd.KeyHash) {
	e.t.Helper()
	_, link := topupd.NewSecret()
	if err := e.s.CreateSetupLink(e.ctx, nil, name, link, t0, t0.Add(time.Hour)); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.s.CompleteSetup(e.ctx, nil, link, topupd.ConsoleCredentials{PasswordHash: "$argon2id$old", TOTPSealed: []byte{1}, RecoveryCodes: recovery}, t0); err != nil {
		e.t.Fatal(err)
	}
}

// testOwnSignIn: a new password ends the operator's other sessions but
// the one kept; renewing the second factor replaces the recovery codes
// and, given one, the TOTP secret with its last step; an operator with no
// console sign-in is ENotFound; each change is in the action log.
func testOwnSignIn(t *testing.T, e *env) {
	e.operator("kim", topupd.RoleSupport)
	e.operator("lee", topupd.RoleViewer)
	old := []topupd.KeyHash{topupd.HashSecret("r1")}
	e.setUpConsole("kim", old)
	var sessions [2]topupd.KeyHash
	for i := range sessions {
		_, sessions[i] = topupd.NewSecret()
		if err := e.s.CreateSession(e.ctx, topupd.ConsoleSession{ID: sessions[i], Operator: "kim", CSRF: "c", IP: "10.0.0.1", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	ch := func(action string) *topupd.Change {
		return &topupd.Change{Actor: topupd.Actor{Operator: "kim"}, Action: action, Target: "kim"}
	}
	if err := e.s.ChangeConsolePassword(e.ctx, ch("operator.password"), "kim", "$argon2id$new", sessions[0]); err != nil {
		t.Fatal(err)
	}
	if c, err := e.s.ConsoleCredentials(e.ctx, "kim"); err != nil || c.PasswordHash != "$argon2id$new" {
		t.Errorf("after the change: %+v, %v", c, err)
	}
	if _, _, err := e.s.Session(e.ctx, sessions[0], t0.Add(time.Minute)); err != nil {
		t.Errorf("the session kept: %v", err)
	}
	if _, _, err := e.s.Session(e.ctx, sessions[1], t0.Add(time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the other session: %v", err)
	}
	if err := e.s.ChangeConsolePassword(e.ctx, nil, "lee", "$argon2id$x", sessions[0]); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the password of an operator with no sign-in: %v", err)
	}
	fresh := []topupd.KeyHash{topupd.HashSecret("n1"), topupd.HashSecret("n2")}
	if err := e.s.RenewSecondFactor(e.ctx, ch("operator.totp"), "kim", []byte{9, 9}, 77, fresh); err != nil {
		t.Fatal(err)
	}
	if c, err := e.s.ConsoleCredentials(e.ctx, "kim"); err != nil || string(c.TOTPSealed) != "\x09\x09" || c.TOTPLastStep != 77 {
		t.Errorf("after renewing: %+v, %v", c, err)
	}
	if err := e.s.UseRecoveryCode(e.ctx, "kim", old[0], t0); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("an old recovery code: %v", err)
	}
	if err := e.s.RenewSecondFactor(e.ctx, nil, "kim", nil, 0, []topupd.KeyHash{topupd.HashSecret("m1")}); err != nil {
		t.Fatal(err)
	}
	if c, err := e.s.ConsoleCredentials(e.ctx, "kim"); err != nil || c.TOTPLastStep != 77 {
		t.Errorf("recovery codes alone changed the TOTP: %+v, %v", c, err)
	}
	if err := e.s.UseRecoveryCode(e.ctx, "kim", fresh[0], t0); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("a code of the second set: %v", err)
	}
	if err := e.s.UseRecoveryCode(e.ctx, "kim", topupd.HashSecret("m1"), t0); err != nil {
		t.Errorf("a code of the last set: %v", err)
	}
	if err := e.s.RenewSecondFactor(e.ctx, nil, "lee", nil, 0, nil); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("renewing for an operator with no sign-in: %v", err)
	}
	for _, a := range []string{"operator.password", "operator.totp"} {
		acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: a, Limit: 10})
		if err != nil || len(acts) != 1 || acts[0].Target != "kim" {
			t.Errorf("the action log of %s: %+v, %v", a, acts, err)
		}
	}
}

// testLoginLocks: the names with failures counted or locked are listed,
// a lock that ran out is not; clearing forgets a name's count and lock
// (it may be tried again at once), is in the action log, and a name with
// nothing counted is ENotFound.
func testLoginLocks(t *testing.T, e *env) {
	fail := func(name string, n int, at time.Time) {
		for range n {
			if _, _, err := e.s.ReserveLogin(e.ctx, name, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	fail("kim", topupd.MaxLoginFailures, t0)
	fail("ghost", 2, t0)
	fail("old", topupd.MaxLoginFailures, t0.Add(-time.Hour))
	now := t0.Add(time.Minute)
	locks, err := e.s.LoginLocks(e.ctx, now)
	want := []topupd.LoginLock{{Name: "ghost", Failures: 2}, {Name: "kim", Failures: topupd.MaxLoginFailures, LockedUntil: t0.Add(topupd.LoginLockout)}}
	if err != nil || len(locks) != 2 || locks[0] != want[0] || locks[1].Name != "kim" || locks[1].Failures != want[1].Failures || !locks[1].LockedUntil.Equal(want[1].LockedUntil) {
		t.Fatalf("LoginLocks: %+v, %v; want %+v", locks, err, want)
	}
	logged := &topupd.Change{Actor: topupd.Actor{Operator: "olga"}, Action: "operator.unlock", Target: "kim"}
	if err := e.s.ClearLoginLock(e.ctx, logged, "kim", now); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := e.s.ReserveLogin(e.ctx, "kim", now); err != nil || !ok {
		t.Errorf("kim after the unlock: ok %v, %v", ok, err)
	}
	for _, name := range []string{"old", "nobody"} {
		if err := e.s.ClearLoginLock(e.ctx, nil, name, now); topupd.CodeOf(err) != topupd.ENotFound {
			t.Errorf("clearing %s: %v", name, err)
		}
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "operator.unlock", Limit: 10})
	if err != nil || len(acts) != 1 || acts[0].Target != "kim" || acts[0].Before["failures"] == nil {
		t.Errorf("the action log: %+v, %v", acts, err)
	}
}
