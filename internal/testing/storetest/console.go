package storetest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

var consoleTests = []test{
	{"SetupLinks", testSetupLinks},
	{"TOTPStepsOnce", testTOTPStepsOnce},
	{"LoginLockout", testLoginLockout},
	{"LoginRace", testLoginRace},
	{"Sessions", testSessions},
	{"LastOwner", testLastOwner},
	{"OwnSignIn", testOwnSignIn},
	{"LoginLocks", testLoginLocks},
}

// operator creates an operator with a token.
func (e *env) operator(name string, role topupd.Role) topupd.Operator {
	e.t.Helper()
	_, h := topupd.NewOperatorToken()
	o, err := e.s.CreateOperator(e.ctx, nil, topupd.Operator{Name: name, Role: role, CreatedAt: t0}, h)
	if err != nil {
		e.t.Fatal(err)
	}
	return o
}

// testSetupLinks: a setup link works once and until it expires; a newer
// link retires the older; completing it sets the credentials, the recovery
// codes (each spent once), ends the operator's sessions, and is in the
// action log.
func testSetupLinks(t *testing.T, e *env) {
	e.operator("kim", topupd.RoleSupport)
	if err := e.s.CreateSetupLink(e.ctx, nil, "nobody", topupd.HashSecret("x"), t0, t0.Add(time.Hour)); err == nil || topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("a link for nobody: %v", err)
	}
	_, first := topupd.NewSecret()
	_, second := topupd.NewSecret()
	for _, l := range []topupd.KeyHash{first, second} {
		if err := e.s.CreateSetupLink(e.ctx, nil, "kim", l, t0, t0.Add(topupd.SetupLinkTTL)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.s.SetupLinkOperator(e.ctx, first, t0.Add(time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the retired first link: %v", err)
	}
	if o, err := e.s.SetupLinkOperator(e.ctx, second, t0.Add(time.Minute)); err != nil || o.Name != "kim" {
		t.Errorf("the second link: %+v, %v", o, err)
	}
	if _, err := e.s.SetupLinkOperator(e.ctx, second, t0.Add(topupd.SetupLinkTTL)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the second link after 24 h: %v", err)
	}
	if _, err := e.s.ConsoleCredentials(e.ctx, "kim"); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("credentials before setup: %v", err)
	}
	_, sess := topupd.NewSecret()
	if err := e.s.CreateSession(e.ctx, topupd.ConsoleSession{ID: sess, Operator: "kim", CSRF: "c", IP: "10.0.0.1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	recovery := []topupd.KeyHash{topupd.HashSecret("r1"), topupd.HashSecret("r2")}
	logged := &topupd.Change{Actor: topupd.Actor{Operator: "kim", IP: "10.0.0.1"}, Action: "operator.setup"}
	creds := topupd.ConsoleCredentials{PasswordHash: "$argon2id$x", TOTPSealed: []byte{1, 2, 3}, RecoveryCodes: recovery}
	if o, err := e.s.CompleteSetup(e.ctx, logged, second, creds, t0.Add(time.Minute)); err != nil || o.Name != "kim" {
		t.Fatalf("CompleteSetup: %+v, %v", o, err)
	}
	if _, err := e.s.CompleteSetup(e.ctx, nil, second, creds, t0.Add(2*time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("the link used twice: %v", err)
	}
	got, err := e.s.ConsoleCredentials(e.ctx, "kim")
	if err != nil || got.PasswordHash != creds.PasswordHash || string(got.TOTPSealed) != string(creds.TOTPSealed) || got.TOTPLastStep != 0 {
		t.Errorf("credentials: %+v, %v", got, err)
	}
	if _, _, err := e.s.Session(e.ctx, sess, t0.Add(time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("a session from before the setup: %v", err)
	}
	if err := e.s.UseRecoveryCode(e.ctx, "kim", recovery[0], t0); err != nil {
		t.Errorf("a recovery code: %v", err)
	}
	for what, c := range map[string]topupd.KeyHash{"spent": recovery[0], "unknown": topupd.HashSecret("r3")} {
		if err := e.s.UseRecoveryCode(e.ctx, "kim", c, t0); topupd.CodeOf(err) != topupd.ENotFound {
			t.Errorf("a %s recovery code: %v", what, err)
		}
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "operator.setup", Limit: 10})
	if err != nil || len(acts) != 1 || acts[0].Target != "kim" || acts[0].After["totp"] != "enrolled" {
		t.Errorf("the action log: %+v, %v", acts, err)
	}
}

// testTOTPStepsOnce: each TOTP step is taken once, in order.
func testTOTPStepsOnce(t *testing.T, e *env) {
	e.operator("kim", topupd.RoleViewer)
	if err := e.s.UseTOTPStep(e.ctx, "kim", 100); err != nil {
		t.Fatal(err)
	}
	for _, step := range []int64{100, 99} {
		codeIs(t, e.s.UseTOTPStep(e.ctx, "kim", step), topupd.EConflict, "a step used or older")
	}
	if err := e.s.UseTOTPStep(e.ctx, "kim", 101); err != nil {
		t.Errorf("the next step: %v", err)
	}
}

// testLoginLockout: each attempt is counted before it is checked
// (ReserveLogin); the fifth in a row locks a name (one of no operator
// too) for 15 minutes, and is itself still let through; attempts while
// locked are refused and counted no further; once the lock runs out the
// count starts again; a success clears it. Every attempt recorded is in
// the login log.
func testLoginLockout(t *testing.T, e *env) {
	reserve := func(name string, at time.Time) (time.Time, bool) {
		t.Helper()
		until, ok, err := e.s.ReserveLogin(e.ctx, name, at)
		if err != nil {
			t.Fatal(err)
		}
		return until, ok
	}
	fail := func(name string, at time.Time) (time.Time, bool) {
		t.Helper()
		until, ok := reserve(name, at)
		if err := e.s.RecordLogin(e.ctx, topupd.LoginAttempt{Name: name, IP: "10.0.0.9", Reason: "bad password", At: at}); err != nil {
			t.Fatal(err)
		}
		return until, ok
	}
	for _, name := range []string{"kim", "nobody"} {
		for i := range topupd.MaxLoginFailures - 1 {
			if until, ok := fail(name, t0.Add(time.Duration(i)*time.Second)); !ok || !until.IsZero() {
				t.Fatalf("%s after %d failures: ok %v, locked until %v", name, i+1, ok, until)
			}
		}
		lockedAt := t0.Add(10 * time.Second)
		if until, ok := fail(name, lockedAt); !ok || !until.Equal(lockedAt.Add(topupd.LoginLockout)) {
			t.Errorf("%s, the fifth attempt: ok %v, locked until %v, want let through and locked until %v", name, ok, until, lockedAt.Add(topupd.LoginLockout))
		}
		for _, at := range []time.Duration{time.Minute, 14 * time.Minute} {
			if until, ok := reserve(name, lockedAt.Add(at)); ok || !until.Equal(lockedAt.Add(topupd.LoginLockout)) {
				t.Errorf("%s %v later: ok %v, until %v, want refused until the same lock", name, at, ok, until)
			}
		}
		after := lockedAt.Add(topupd.LoginLockout)
		if until, ok := fail(name, after); !ok || !until.IsZero() {
			t.Errorf("%s once the lock ran out: ok %v, locked until %v, want the count started again", name, ok, until)
		}
	}
	for i := range topupd.MaxLoginFailures - 1 {
		fail("lee", t0.Add(time.Duration(i)*time.Second))
	}
	if _, ok := reserve("lee", t0.Add(time.Minute)); !ok {
		t.Fatal("lee's fifth attempt was refused")
	}
	if err := e.s.RecordLogin(e.ctx, topupd.LoginAttempt{Name: "lee", IP: "10.0.0.9", OK: true, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if until, ok := fail("lee", t0.Add(2*time.Minute)); !ok || !until.IsZero() {
		t.Errorf("a failure after a success: ok %v, locked lee until %v", ok, until)
	}
	log, err := e.s.Logins(e.ctx, 100)
	if err != nil || len(log) != 2*(topupd.MaxLoginFailures+1)+topupd.MaxLoginFailures+1 {
		t.Fatalf("the login log: %d attempts, %v", len(log), err)
	}
	if last := log[0]; last.Name != "nobody" || last.OK || last.IP != "10.0.0.9" || last.Reason != "bad password" {
		t.Errorf("the newest attempt: %+v", last)
	}
}

// testLoginRace: attempts of one name reserved all at once let exactly
// MaxLoginFailures through, the last of them locking the name; the rest are
// refused, whatever the interleaving.
func testLoginRace(t *testing.T, e *env) {
	const attempts = 40
	var wg sync.WaitGroup
	var through, locking atomic.Int64
	start := make(chan struct{})
	for range attempts {
		wg.Go(func() {
			<-start
			until, ok, err := e.s.ReserveLogin(e.ctx, "kim", t0)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				through.Add(1)
				if !until.IsZero() {
					locking.Add(1)
				}
			} else if !until.Equal(t0.Add(topupd.LoginLockout)) {
				t.Errorf("a refused attempt: locked until %v", until)
			}
		})
	}
	close(start)
	wg.Wait()
	if through.Load() != topupd.MaxLoginFailures || locking.Load() != 1 {
		t.Errorf("%d of %d attempts let through, %d of them locking; want %d, 1", through.Load(), attempts, locking.Load(), topupd.MaxLoginFailures)
	}
}

// testSessions: a session lives while used within 12 hours, and its
// operator is live: an idle or ended session, or one of a disabled
// operator, is gone; a role change shows at once.
func testSessions(t *testing.T, e *env) {
	e.operator("kim", topupd.RoleSupport)
	_, id := topupd.NewSecret()
	if err := e.s.CreateSession(e.ctx, topupd.ConsoleSession{ID: id, Operator: "kim", CSRF: "tok", IP: "10.0.0.1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	at := t0
	for range 3 { // used every 11 hours, it lives on
		at = at.Add(11 * time.Hour)
		cs, o, err := e.s.Session(e.ctx, id, at)
		if err != nil || cs.CSRF != "tok" || o.Name != "kim" || o.Role != topupd.RoleSupport {
			t.Fatalf("session at %v: %+v %+v %v", at, cs, o, err)
		}
	}
	viewer := topupd.RoleViewer
	if _, err := e.s.UpdateOperator(e.ctx, nil, "kim", topupd.OperatorPatch{Role: &viewer}); err != nil {
		t.Fatal(err)
	}
	if _, o, err := e.s.Session(e.ctx, id, at); err != nil || o.Role != topupd.RoleViewer {
		t.Errorf("after a role change: %+v, %v", o, err)
	}
	if _, _, err := e.s.Session(e.ctx, id, at.Add(topupd.SessionIdle+time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("after 12 h idle: %v", err)
	}
	_, other := topupd.NewSecret()
	if err := e.s.CreateSession(e.ctx, topupd.ConsoleSession{ID: other, Operator: "kim", CSRF: "t2", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	disabled := true
	if _, err := e.s.UpdateOperator(e.ctx, nil, "kim", topupd.OperatorPatch{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.s.Session(e.ctx, other, t0.Add(time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("a disabled operator's session: %v", err)
	}
	disabled = false
	if _, err := e.s.UpdateOperator(e.ctx, nil, "kim", topupd.OperatorPatch{Disabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.EndSession(e.ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.s.Session(e.ctx, other, t0.Add(time.Minute)); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("an ended session: %v", err)
	}
}
