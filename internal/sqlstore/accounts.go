package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

func scanAccount(row scanner) (topupd.Account, error) {
	var a topupd.Account
	var restricted sql.NullInt64
	var allow string
	var created int64
	if err := row.Scan(&a.ID, &a.Name, &a.APIEnabled, &a.AdminDisabled, &a.Banned, &restricted, &allow, &a.IPAllowlistRequired, &created); err != nil {
		return a, err
	}
	if restricted.Valid {
		t := fromMS(restricted.Int64)
		a.RestrictedUntil = &t
	}
	if err := json.Unmarshal([]byte(allow), &a.IPAllowlist); err != nil {
		return a, fmt.Errorf("account %s ip_allowlist: %w", a.ID, err)
	}
	a.CreatedAt = fromMS(created)
	return a, nil
}

func accountArgs(a topupd.Account) []any {
	var restricted any
	if a.RestrictedUntil != nil {
		restricted = ms(*a.RestrictedUntil)
	}
	allow := a.IPAllowlist
	if allow == nil {
		allow = []string{}
	}
	return []any{a.ID, a.Name, boolInt(a.APIEnabled), boolInt(a.AdminDisabled), boolInt(a.Banned), restricted, jsonText(allow), boolInt(a.IPAllowlistRequired), ms(a.CreatedAt)}
}

// CreateAccount stores a new account.
func (s *Store) CreateAccount(ctx context.Context, a topupd.Account) (topupd.Account, error) {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO accounts (`+accountColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, accountArgs(a)...)
		noteChange(ctx, a.ID, map[string]any{}, a.LogFields())
		return err
	})
	if err != nil {
		return a, fmt.Errorf("store.CreateAccount %s: %w", a.ID, err)
	}
	return s.Account(ctx, a.ID)
}

// Account returns one account.
func (s *Store) Account(ctx context.Context, id string) (topupd.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
	if isNoRows(err) {
		return a, topupd.Errorf(topupd.ENotFound, "account %s", id)
	}
	if err != nil {
		return a, fmt.Errorf("store.Account %s: %w", id, err)
	}
	return a, nil
}

// CountAccounts returns how many accounts exist.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM accounts`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store.CountAccounts: %w", err)
	}
	return n, nil
}

// UpdateAccount applies a patch to an account, holding its row lock so that
// concurrent patches do not undo one another.
func (s *Store) UpdateAccount(ctx context.Context, id string, p topupd.AccountPatch) (topupd.Account, error) {
	var out topupd.Account
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		a, err := scanAccount(tx.QueryRowContext(ctx, s.q.accountLocked, id))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "account %s", id)
		}
		if err != nil {
			return err
		}
		if out, err = p.Apply(a); err != nil {
			return err
		}
		args := accountArgs(out)
		if _, err = tx.ExecContext(ctx, `UPDATE accounts SET name = $2, api_enabled = $3, admin_disabled = $4, banned = $5,
			restricted_until = $6, ip_allowlist = $7, ip_allowlist_required = $8 WHERE id = $1`, args[:8]...); err != nil {
			return err
		}
		// Read it back, so that the answer is what is stored (times at the stored precision).
		out, err = scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1`, id))
		noteChange(ctx, id, a.LogFields(), out.LogFields())
		return err
	})
	if err != nil {
		return out, fmt.Errorf("store.UpdateAccount %s: %w", id, err)
	}
	return out, nil
}

// AddKey stores the hash of a new API key.
func (s *Store) AddKey(ctx context.Context, accountID, keyID string, h topupd.KeyHash, now time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1`, accountID).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "account %s", accountID)
		} else if err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, account_id, hash, created_at) VALUES ($1, $2, $3, $4)`, keyID, accountID, h[:], ms(now))
		noteChange(ctx, accountID, map[string]any{}, map[string]any{"keyId": keyID})
		return err
	})
	if err != nil {
		return fmt.Errorf("store.AddKey %s: %w", accountID, err)
	}
	return nil
}

// RevokeKey refuses a key from now on.
func (s *Store) RevokeKey(ctx context.Context, keyID string, now time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var account string
		var revoked sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT account_id, revoked_at FROM api_keys WHERE id = $1`, keyID).Scan(&account, &revoked)
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "key %s", keyID)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, keyID, ms(now)); err != nil {
			return err
		}
		noteChange(ctx, account, map[string]any{"revoked": revoked.Valid}, map[string]any{"revoked": true})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RevokeKey %s: %w", keyID, err)
	}
	return nil
}

// AccountByKey returns the account of a live key.
func (s *Store) AccountByKey(ctx context.Context, h topupd.KeyHash) (topupd.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, s.q.accountByKey, h[:]))
	if isNoRows(err) {
		return a, topupd.Fail(topupd.EInvalidKey)
	}
	if err != nil {
		return a, fmt.Errorf("store.AccountByKey: %w", err)
	}
	return a, nil
}
