package topupd

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"
)

// The console's sign-in rules.
const (
	// SetupLinkTTL is how long an operator's setup link works.
	SetupLinkTTL = 24 * time.Hour
	// SessionIdle ends a console session left unused this long.
	SessionIdle = 12 * time.Hour
	// MaxLoginFailures failed logins in a row lock a name.
	MaxLoginFailures = 5
	// LoginLockout is how long a locked name stays locked.
	LoginLockout = 15 * time.Minute
)

// ConsoleCredentials are what an operator signs into the console with:
// the password's argon2id hash (encoded), the TOTP secret sealed by the
// vault, and the last TOTP time step used (a code works once).
type ConsoleCredentials struct {
	PasswordHash string
	TOTPSealed   []byte
	TOTPLastStep int64
	// RecoveryCodes are the hashes of the one-time recovery codes, set at
	// setup only.
	RecoveryCodes []KeyHash
}

// LoginAttempt is one try to sign into the console, as the login log keeps it.
type LoginAttempt struct {
	Name   string
	IP     string
	OK     bool
	Reason string
	At     time.Time
}

// LoginLock is a name's count of sign-in failures in a row, and its lock.
type LoginLock struct {
	Name     string
	Failures int
	// LockedUntil is when the lock ends; zero when the name is not locked.
	LockedUntil time.Time
}

// ConsoleSession is a signed-in operator's console session. ID is the hash
// of the cookie's value; CSRF is the token every form of the session carries.
type ConsoleSession struct {
	ID         KeyHash
	Operator   string
	CSRF       string
	IP         string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// NewSecret returns a fresh random secret (32 bytes, base64url) and its
// SHA-256 hash, which is all the store keeps of it.
func NewSecret() (string, KeyHash) {
	var b [32]byte
	rand.Read(b[:])
	s := base64.RawURLEncoding.EncodeToString(b[:])
	return s, HashSecret(s)
}

// HashSecret is the hash a store keeps of a secret.
func HashSecret(s string) KeyHash { return sha256.Sum256([]byte(s)) }

// ConsoleStore keeps what the operator console signs in with.
type ConsoleStore interface {
	// Operator returns one operator, or ENotFound.
	Operator(ctx context.Context, name string) (Operator, error)
	// CreateSetupLink stores a one-time setup link (its hash) for an
	// operator, valid until expires; the operator's earlier unused links
	// stop working. An unknown operator is ENotFound.
	CreateSetupLink(ctx context.Context, ch *Change, name string, link KeyHash, now, expires time.Time) error
	// SetupLinkOperator returns the operator of an unused, unexpired
	// link; any other link is ENotFound.
	SetupLinkOperator(ctx context.Context, link KeyHash, now time.Time) (Operator, error)
	// CompleteSetup spends a setup link: it sets the operator's password,
	// TOTP secret and recovery codes, replacing any before, and ends the
	// operator's sessions. A used, expired or unknown link is ENotFound.
	CompleteSetup(ctx context.Context, ch *Change, link KeyHash, c ConsoleCredentials, now time.Time) (Operator, error)
	// ConsoleCredentials returns an operator's credentials; ENotFound when
	// the operator has none (or does not exist).
	ConsoleCredentials(ctx context.Context, name string) (ConsoleCredentials, error)
	// UseTOTPStep records that the operator used the TOTP code of step: a
	// step not after the last one used is EConflict (a replayed code).
	UseTOTPStep(ctx context.Context, name string, step int64) error
	// UseRecoveryCode spends one of the operator's recovery codes; an
	// unknown or spent one is ENotFound.
	UseRecoveryCode(ctx context.Context, name string, code KeyHash, now time.Time) error
	// ReserveLogin is the first step of a sign-in attempt, taken before
	// any password or code is checked. In one atomic step: while name is
	// locked, it counts nothing and answers ok false with until when;
	// otherwise it counts the attempt as a failure of name in advance
	// (whether or not an operator has it; a lock that ran out starts the
	// count again), the MaxLoginFailures-th in a row locking the name for
	// LoginLockout, and answers ok true, with lockedUntil set when this
	// attempt locked it. So however many attempts run at once, at most
	// MaxLoginFailures in a row are let through to be checked. A success
	// then clears the count (RecordLogin).
	ReserveLogin(ctx context.Context, name string, now time.Time) (lockedUntil time.Time, ok bool, err error)
	// RecordLogin adds an attempt to the login log; a successful one
	// clears its name's count of failures (ReserveLogin counted each
	// attempt in advance, so a failure counts nothing more).
	RecordLogin(ctx context.Context, a LoginAttempt) error
	// Logins reads the login log, newest first, at most limit attempts.
	Logins(ctx context.Context, limit int) ([]LoginAttempt, error)
	// LoginLocks lists the names whose sign-in failures are counted now:
	// locked (LockedUntil after now), or with failures in a row not yet
	// locked; by name.
	LoginLocks(ctx context.Context, now time.Time) ([]LoginLock, error)
	// ClearLoginLock forgets a name's count of failures and its lock, as a
	// success would; a name with neither is ENotFound.
	ClearLoginLock(ctx context.Context, ch *Change, name string, now time.Time) error
	// ChangeConsolePassword replaces the password hash of an operator who
	// has a console sign-in (ENotFound otherwise) and ends their sessions
	// but keep.
	ChangeConsolePassword(ctx context.Context, ch *Change, name, hash string, keep KeyHash) error
	// RenewSecondFactor replaces an operator's recovery codes and, when
	// totpSealed is not nil, their TOTP secret, whose step step is then the
	// last one used; ENotFound for an operator with no console sign-in.
	RenewSecondFactor(ctx context.Context, ch *Change, name string, totpSealed []byte, step int64, recovery []KeyHash) error
	// CreateSession stores a new session.
	CreateSession(ctx context.Context, s ConsoleSession) error
	// Session returns a live session and its operator, and records its
	// use (to the minute). A session unknown, unused for SessionIdle, or
	// of a disabled operator is ENotFound.
	Session(ctx context.Context, id KeyHash, now time.Time) (ConsoleSession, Operator, error)
	// EndSession ends a session; an unknown one is no error.
	EndSession(ctx context.Context, id KeyHash) error
}
