package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// Operator returns one operator, or ENotFound.
func (s *Store) Operator(ctx context.Context, name string) (topupd.Operator, error) {
	o, err := scanOperator(s.read.QueryRowContext(ctx, `SELECT `+operatorColumns+` FROM operators WHERE name = $1`, name))
	if isNoRows(err) {
		return o, topupd.Errorf(topupd.ENotFound, "operator %s", name)
	} else if err != nil {
		return o, fmt.Errorf("store.Operator %s: %w", name, err)
	}
	return o, nil
}

// CreateSetupLink stores a setup link and retires the operator's earlier
// unused ones.
func (s *Store) CreateSetupLink(ctx context.Context, ch *topupd.Change, name string, link topupd.KeyHash, now, expires time.Time) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM operators WHERE name = $1`+s.d.LockRow, name).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "operator %s", name)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE operator_setup_links SET expires_at = $2 WHERE operator = $1 AND used_at IS NULL AND expires_at > $2`,
			name, ms(now)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO operator_setup_links (hash, operator, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			link[:], name, ms(now), ms(expires)); err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{}, map[string]any{"setupLinkExpiresAt": fromMS(ms(expires)).Format(time.RFC3339)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.CreateSetupLink %s: %w", name, err)
	}
	return nil
}

// SetupLinkOperator returns the operator of a live setup link.
func (s *Store) SetupLinkOperator(ctx context.Context, link topupd.KeyHash, now time.Time) (topupd.Operator, error) {
	o, err := scanOperator(s.read.QueryRowContext(ctx, `SELECT o.name, o.role, o.disabled, o.created_at, o.last_seen_at
		FROM operator_setup_links l JOIN operators o ON o.name = l.operator
		WHERE l.hash = $1 AND l.used_at IS NULL AND l.expires_at > $2`, link[:], ms(now)))
	if isNoRows(err) {
		return o, topupd.Errorf(topupd.ENotFound, "this setup link is unknown, used or expired")
	} else if err != nil {
		return o, fmt.Errorf("store.SetupLinkOperator: %w", err)
	}
	return o, nil
}

// CompleteSetup spends a setup link and sets the operator's credentials.
func (s *Store) CompleteSetup(ctx context.Context, ch *topupd.Change, link topupd.KeyHash, c topupd.ConsoleCredentials, now time.Time) (topupd.Operator, error) {
	ctx = withChange(ctx, ch)
	var o topupd.Operator
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var name string
		err := tx.QueryRowContext(ctx, `UPDATE operator_setup_links SET used_at = $2
			WHERE hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING operator`, link[:], ms(now)).Scan(&name)
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "this setup link is unknown, used or expired")
		} else if err != nil {
			return err
		}
		if o, err = scanOperator(tx.QueryRowContext(ctx, `SELECT `+operatorColumns+` FROM operators WHERE name = $1`+s.d.LockRow, name)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE operators SET password_hash = $2, totp_sealed = $3, totp_last_step = 0 WHERE name = $1`,
			name, c.PasswordHash, c.TOTPSealed); err != nil {
			return err
		}
		for _, stmt := range []string{`DELETE FROM operator_recovery_codes WHERE operator = $1`, `DELETE FROM console_sessions WHERE operator = $1`} {
			if _, err := tx.ExecContext(ctx, stmt, name); err != nil {
				return err
			}
		}
		for _, h := range c.RecoveryCodes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO operator_recovery_codes (operator, hash) VALUES ($1, $2)`, name, h[:]); err != nil {
				return err
			}
		}
		if ch := changeOf(ctx); ch != nil {
			ch.Target = name
		}
		noteChange(ctx, "", map[string]any{}, map[string]any{"consolePassword": "set", "totp": "enrolled", "recoveryCodes": len(c.RecoveryCodes)})
		return nil
	})
	if err != nil {
		return o, fmt.Errorf("store.CompleteSetup: %w", err)
	}
	return o, nil
}

// ConsoleCredentials returns an operator's console credentials.
func (s *Store) ConsoleCredentials(ctx context.Context, name string) (topupd.ConsoleCredentials, error) {
	var c topupd.ConsoleCredentials
	var hash sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT password_hash, totp_sealed, totp_last_step FROM operators WHERE name = $1`, name).
		Scan(&hash, &c.TOTPSealed, &c.TOTPLastStep)
	switch {
	case isNoRows(err), err == nil && !hash.Valid:
		return c, topupd.Errorf(topupd.ENotFound, "operator %s has no console password", name)
	case err != nil:
		return c, fmt.Errorf("store.ConsoleCredentials %s: %w", name, err)
	}
	c.PasswordHash = hash.String
	return c, nil
}

// UseTOTPStep records the TOTP step used, refusing one not after the last.
func (s *Store) UseTOTPStep(ctx context.Context, name string, step int64) error {
	n, err := s.retryExec(ctx, `UPDATE operators SET totp_last_step = $2 WHERE name = $1 AND totp_last_step < $2`, name, step)
	if err == nil && n == 0 {
		return topupd.Errorf(topupd.EConflict, "this code was used already")
	}
	return err
}

// UseRecoveryCode spends one recovery code.
func (s *Store) UseRecoveryCode(ctx context.Context, name string, code topupd.KeyHash, now time.Time) error {
	n, err := s.retryExec(ctx, `UPDATE operator_recovery_codes SET used_at = $3 WHERE operator = $1 AND hash = $2 AND used_at IS NULL`,
		name, code[:], ms(now))
	if err == nil && n == 0 {
		return topupd.Errorf(topupd.ENotFound, "unknown or used recovery code")
	}
	return err
}

// RecordLogin logs an attempt; a success clears its name's count.
func (s *Store) RecordLogin(ctx context.Context, a topupd.LoginAttempt) error {
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO logins (at, name, ip, ok, reason) VALUES ($1, $2, $3, $4, $5)`,
			ms(a.At), a.Name, a.IP, boolInt(a.OK), a.Reason); err != nil {
			return err
		}
		if a.OK {
			_, err := tx.ExecContext(ctx, `DELETE FROM login_locks WHERE name = $1`, a.Name)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RecordLogin %s: %w", a.Name, err)
	}
	return nil
}

// ReserveLogin counts an attempt of a name that is not locked, in one
// conditional upsert: the row of a locked name is not updated (and its
// lock is read instead), so simultaneous attempts are counted one after
// another by the database, never all checked against the same count.
func (s *Store) ReserveLogin(ctx context.Context, name string, now time.Time) (time.Time, bool, error) {
	var locked sql.NullInt64
	ok := true
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ok = true
		// A lock that ran out starts the count again.
		err := tx.QueryRowContext(ctx, `INSERT INTO login_locks (name, failures, locked_until)
			VALUES ($1, 1, CASE WHEN 1 >= $3 THEN CAST($4 AS BIGINT) ELSE NULL END)
			ON CONFLICT (name) DO UPDATE SET
				failures = CASE WHEN login_locks.locked_until IS NOT NULL THEN 1 ELSE login_locks.failures + 1 END,
				locked_until = CASE
					WHEN (CASE WHEN login_locks.locked_until IS NOT NULL THEN 1 ELSE login_locks.failures + 1 END) >= $3 THEN CAST($4 AS BIGINT)
					ELSE NULL END
			WHERE login_locks.locked_until IS NULL OR login_locks.locked_until <= $2
			RETURNING locked_until`, name, ms(now), topupd.MaxLoginFailures, ms(now.Add(topupd.LoginLockout))).Scan(&locked)
		if !isNoRows(err) {
			return err
		}
		ok = false // locked: nothing counted
		return tx.QueryRowContext(ctx, `SELECT locked_until FROM login_locks WHERE name = $1`, name).Scan(&locked)
	})
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store.ReserveLogin %s: %w", name, err)
	}
	if locked.Valid && locked.Int64 > ms(now) {
		return fromMS(locked.Int64), ok, nil
	}
	return time.Time{}, ok, nil
}

// Logins reads the login log, newest first.
func (s *Store) Logins(ctx context.Context, limit int) ([]topupd.LoginAttempt, error) {
	out, err := queryAll(ctx, s.read, func(r scanner) (topupd.LoginAttempt, error) {
		var a topupd.LoginAttempt
		var at int64
		err := r.Scan(&at, &a.Name, &a.IP, &a.OK, &a.Reason)
		a.At = fromMS(at)
		return a, err
	}, `SELECT at, name, ip, ok, reason FROM logins ORDER BY at DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store.Logins: %w", err)
	}
	return out, nil
}

// CreateSession stores a new console session.
func (s *Store) CreateSession(ctx context.Context, cs topupd.ConsoleSession) error {
	_, err := s.retryExec(ctx, `INSERT INTO console_sessions (hash, operator, csrf, ip, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $5)`,
		cs.ID[:], cs.Operator, cs.CSRF, cs.IP, ms(cs.CreatedAt))
	if err != nil {
		return fmt.Errorf("store.CreateSession %s: %w", cs.Operator, err)
	}
	return nil
}

// Session returns a live session and its operator, and records its use.
func (s *Store) Session(ctx context.Context, id topupd.KeyHash, now time.Time) (topupd.ConsoleSession, topupd.Operator, error) {
	cs := topupd.ConsoleSession{ID: id}
	var created, seen int64
	var o topupd.Operator
	var role string
	var opCreated int64
	var opSeen sql.NullInt64
	err := s.read.QueryRowContext(ctx, `SELECT c.operator, c.csrf, c.ip, c.created_at, c.last_seen_at, o.role, o.disabled, o.created_at, o.last_seen_at
		FROM console_sessions c JOIN operators o ON o.name = c.operator WHERE c.hash = $1`, id[:]).
		Scan(&cs.Operator, &cs.CSRF, &cs.IP, &created, &seen, &role, &o.Disabled, &opCreated, &opSeen)
	gone := topupd.Errorf(topupd.ENotFound, "no such session")
	switch {
	case isNoRows(err):
		return cs, o, gone
	case err != nil:
		return cs, o, fmt.Errorf("store.Session: %w", err)
	}
	cs.CreatedAt, cs.LastSeenAt = fromMS(created), fromMS(seen)
	o.Name, o.Role, o.CreatedAt = cs.Operator, topupd.Role(role), fromMS(opCreated)
	if opSeen.Valid {
		t := fromMS(opSeen.Int64)
		o.LastSeenAt = &t
	}
	if o.Disabled || !now.Before(cs.LastSeenAt.Add(topupd.SessionIdle)) {
		return cs, o, gone
	}
	if minute := now.Truncate(time.Minute); cs.LastSeenAt.Before(minute) {
		if err := s.seenAt(ctx, "console_sessions", "hash", "last_seen_at", id[:], minute); err != nil {
			return cs, o, fmt.Errorf("store.Session: %w", err)
		}
		cs.LastSeenAt = minute
	}
	return cs, o, nil
}

// EndSession ends a console session.
func (s *Store) EndSession(ctx context.Context, id topupd.KeyHash) error {
	_, err := s.retryExec(ctx, `DELETE FROM console_sessions WHERE hash = $1`, id[:])
	if err != nil {
		return fmt.Errorf("store.EndSession: %w", err)
	}
	return nil
}
