package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// OpUnlockLogin forgets a name's failed sign-ins and lifts its lock
// (the console's owner view of lockouts).
const OpUnlockLogin Op = "operator.unlock"

// loginStore is what the lockout operations need of the database.
type loginStore interface {
	LoginLocks(ctx context.Context, now time.Time) ([]topupd.LoginLock, error)
	ClearLoginLock(ctx context.Context, ch *topupd.Change, name string, now time.Time) error
}

// LoginLocks lists the sign-in names locked now, or with failures counted
// towards a lock, by name. It needs the operators permission, as an unlock does.
func (s *Service) LoginLocks(ctx context.Context, a Actor) ([]topupd.LoginLock, error) {
	if err := Allowed(a, OpUnlockLogin); err != nil {
		return nil, err
	}
	return s.d.Store.LoginLocks(ctx, s.d.Now())
}

// UnlockLogin lifts a name's sign-in lock and forgets its failures; a
// name neither locked nor with failures is NOT_FOUND.
func (s *Service) UnlockLogin(ctx context.Context, a Actor, name string) error {
	if err := Allowed(a, OpUnlockLogin); err != nil {
		return err
	}
	return s.d.Store.ClearLoginLock(ctx, change(a, OpUnlockLogin, name), name, s.d.Now())
}
