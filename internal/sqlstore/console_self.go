package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// LoginLocks lists the names locked now or with failures counted, by name.
func (s *Store) LoginLocks(ctx context.Context, now time.Time) ([]topupd.LoginLock, error) {
	out, err := queryAll(ctx, s.read, func(r scanner) (topupd.LoginLock, error) {
		var l topupd.LoginLock
		var until sql.NullInt64
		err := r.Scan(&l.Name, &l.Failures, &until)
		if until.Valid {
			l.LockedUntil = fromMS(until.Int64)
		}
		return l, err
	}, `SELECT name, failures, CASE WHEN locked_until > $1 THEN locked_until END FROM login_locks
		WHERE locked_until > $1 OR (locked_until IS NULL AND failures > 0) ORDER BY name`, ms(now))
	if err != nil {
		return nil, fmt.Errorf("store.LoginLocks: %w", err)
	}
	return out, nil
}

// ClearLoginLock forgets a name's failures and lock.
func (s *Store) ClearLoginLock(ctx context.Context, ch *topupd.Change, name string, now time.Time) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var failures int
		var until sql.NullInt64
		err := tx.QueryRowContext(ctx, `DELETE FROM login_locks WHERE name = $1 AND (locked_until > $2 OR (locked_until IS NULL AND failures > 0))
			RETURNING failures, locked_until`, name, ms(now)).Scan(&failures, &until)
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "%s is not locked and has no failed sign-ins counted", name)
		} else if err != nil {
			return err
		}
		before := map[string]any{"failures": failures}
		if until.Valid {
			before["lockedUntil"] = fromMS(until.Int64).Format(time.RFC3339)
		}
		noteChange(ctx, "", before, map[string]any{"failures": 0})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.ClearLoginLock %s: %w", name, err)
	}
	return nil
}

// ChangeConsolePassword replaces an operator's password hash and ends
// their other sessions.
func (s *Store) ChangeConsolePassword(ctx context.Context, ch *topupd.Change, name, hash string, keep topupd.KeyHash) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE operators SET password_hash = $2 WHERE name = $1 AND password_hash IS NOT NULL`, name, hash)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return topupd.Errorf(topupd.ENotFound, "operator %s has no console password", name)
		}
		res, err = tx.ExecContext(ctx, `DELETE FROM console_sessions WHERE operator = $1 AND hash <> $2`, name, keep[:])
		if err != nil {
			return err
		}
		ended, _ := res.RowsAffected()
		noteChange(ctx, "", map[string]any{}, map[string]any{"consolePassword": "changed", "otherSessionsEnded": ended})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.ChangeConsolePassword %s: %w", name, err)
	}
	return nil
}

// RenewSecondFactor replaces an operator's recovery codes and, given one,
// their TOTP secret.
func (s *Store) RenewSecondFactor(ctx context.Context, ch *topupd.Change, name string, totpSealed []byte, step int64, recovery []topupd.KeyHash) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM operators WHERE name = $1 AND password_hash IS NOT NULL`+s.d.LockRow, name).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "operator %s has no console password", name)
		} else if err != nil {
			return err
		}
		after := map[string]any{"recoveryCodes": len(recovery)}
		if totpSealed != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE operators SET totp_sealed = $2, totp_last_step = $3 WHERE name = $1`, name, totpSealed, step); err != nil {
				return err
			}
			after["totp"] = "renewed"
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM operator_recovery_codes WHERE operator = $1`, name); err != nil {
			return err
		}
		for _, h := range recovery {
			if _, err := tx.ExecContext(ctx, `INSERT INTO operator_recovery_codes (operator, hash) VALUES ($1, $2)`, name, h[:]); err != nil {
				return err
			}
		}
		noteChange(ctx, "", map[string]any{}, after)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RenewSecondFactor %s: %w", name, err)
	}
	return nil
}
