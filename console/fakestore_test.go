package console

import (
	"context"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// fakeStore is the console's Store in memory, for the unit tests that
// need neither a database nor a browser. It keeps the rules the store
// suite checks of the real stores only as far as these tests lean on
// them: sessions, the login lock, TOTP steps used once.
type fakeStore struct {
	mu       sync.Mutex
	ops      map[string]topupd.Operator
	creds    map[string]topupd.ConsoleCredentials
	sessions map[topupd.KeyHash]topupd.ConsoleSession
	logins   []topupd.LoginAttempt
	failures map[string]int       // failures in a row, by name
	locked   map[string]time.Time // locked until, by name
}

var _ Store = (*fakeStore)(nil)

func newFakeStore() *fakeStore {
	return &fakeStore{ops: map[string]topupd.Operator{}, creds: map[string]topupd.ConsoleCredentials{},
		sessions: map[topupd.KeyHash]topupd.ConsoleSession{}, failures: map[string]int{}, locked: map[string]time.Time{}}
}

func (f *fakeStore) Operator(_ context.Context, name string) (topupd.Operator, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	op, ok := f.ops[name]
	if !ok {
		return op, topupd.Fail(topupd.ENotFound)
	}
	return op, nil
}

func (f *fakeStore) ConsoleCredentials(_ context.Context, name string) (topupd.ConsoleCredentials, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.creds[name]
	if !ok {
		return c, topupd.Fail(topupd.ENotFound)
	}
	return c, nil
}

func (f *fakeStore) ReserveLogin(_ context.Context, name string, now time.Time) (time.Time, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if until, ok := f.locked[name]; ok {
		if now.Before(until) {
			return until, false, nil
		}
		delete(f.locked, name)
		f.failures[name] = 0
	}
	f.failures[name]++
	if f.failures[name] >= topupd.MaxLoginFailures {
		f.locked[name] = now.Add(topupd.LoginLockout)
		return f.locked[name], true, nil
	}
	return time.Time{}, true, nil
}

func (f *fakeStore) RecordLogin(_ context.Context, a topupd.LoginAttempt) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logins = append(f.logins, a)
	if a.OK {
		f.failures[a.Name] = 0
	}
	return nil
}

func (f *fakeStore) UseTOTPStep(_ context.Context, name string, step int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.creds[name]
	if step <= c.TOTPLastStep {
		return topupd.Fail(topupd.EConflict)
	}
	c.TOTPLastStep = step
	f.creds[name] = c
	return nil
}

func (f *fakeStore) UseRecoveryCode(context.Context, string, topupd.KeyHash, time.Time) error {
	return topupd.Fail(topupd.ENotFound)
}

func (f *fakeStore) SetupLinkOperator(context.Context, topupd.KeyHash, time.Time) (topupd.Operator, error) {
	return topupd.Operator{}, topupd.Fail(topupd.ENotFound)
}

func (f *fakeStore) CompleteSetup(context.Context, *topupd.Change, topupd.KeyHash, topupd.ConsoleCredentials, time.Time) (topupd.Operator, error) {
	return topupd.Operator{}, topupd.Fail(topupd.ENotFound)
}

func (f *fakeStore) CreateSession(_ context.Context, s topupd.ConsoleSession) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions[s.ID] = s
	return nil
}

func (f *fakeStore) Session(_ context.Context, id topupd.KeyHash, _ time.Time) (topupd.ConsoleSession, topupd.Operator, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.sessions[id]
	op, known := f.ops[s.Operator]
	if !ok || !known || op.Disabled {
		return topupd.ConsoleSession{}, topupd.Operator{}, topupd.Fail(topupd.ENotFound)
	}
	return s, op, nil
}

func (f *fakeStore) EndSession(_ context.Context, id topupd.KeyHash) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, id)
	return nil
}

func (f *fakeStore) SeeOperator(context.Context, string, time.Time) error { return nil }

func (f *fakeStore) Gauges(context.Context) (topupd.Gauges, error) { return topupd.Gauges{}, nil }

func (f *fakeStore) LowStock(context.Context) (map[string]bool, error) { return nil, nil }

func (f *fakeStore) OpenMismatches(context.Context) (map[string]int, error) { return nil, nil }

func (f *fakeStore) OpenDeposits(context.Context) (map[string]int, error) { return nil, nil }

func (f *fakeStore) OpenDisputes(context.Context, time.Time) (int, int, error) { return 0, 0, nil }

// sessionsOf counts the live sessions of an operator.
func (f *fakeStore) sessionsOf(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.sessions {
		if s.Operator == name {
			n++
		}
	}
	return n
}

func (f *fakeStore) ChangeConsolePassword(ctx context.Context, ch *topupd.Change, name, hash string, keep topupd.KeyHash) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.creds[name]
	if !ok {
		return topupd.Errorf(topupd.ENotFound, "no console password")
	}
	c.PasswordHash = hash
	f.creds[name] = c
	return nil
}

func (f *fakeStore) RenewSecondFactor(ctx context.Context, ch *topupd.Change, name string, totpSealed []byte, step int64, recovery []topupd.KeyHash) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.creds[name]
	if !ok {
		return topupd.Errorf(topupd.ENotFound, "no console password")
	}
	if totpSealed != nil {
		c.TOTPSealed, c.TOTPLastStep = totpSealed, step
	}
	c.RecoveryCodes = recovery
	f.creds[name] = c
	return nil
}
