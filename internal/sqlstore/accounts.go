package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// scanAccount scans the accountColumns of an account.
func scanAccount(row scanner) (topupd.Account, error) {
	var a topupd.Account
	var restricted sql.NullInt64
	var created int64
	var tier sql.NullString
	var limits limitsRow
	if err := row.Scan(append([]any{&a.ID, &a.Name, &a.APIEnabled, &a.AdminDisabled, &a.Banned, &restricted, jsonColumn(&a.IPAllowlist),
		&a.IPAllowlistRequired, &created, &tier}, limits.dest()...)...); err != nil {
		return a, err
	}
	a.Tier, a.Limits = tier.String, limits.limits()
	if restricted.Valid {
		t := fromMS(restricted.Int64)
		a.RestrictedUntil = &t
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
	var tier any
	if a.Tier != "" {
		tier = a.Tier
	}
	return append([]any{a.ID, a.Name, boolInt(a.APIEnabled), boolInt(a.AdminDisabled), boolInt(a.Banned), restricted, jsonText(allow),
		boolInt(a.IPAllowlistRequired), ms(a.CreatedAt), tier}, limitArgs(a.Limits)...)
}

// nullMoney reads an optional amount.
func nullMoney(n sql.NullInt64) *topupd.Money {
	if !n.Valid {
		return nil
	}
	m := topupd.Money(n.Int64)
	return &m
}

// CreateAccount stores a new account.
func (s *Store) CreateAccount(ctx context.Context, ch *topupd.Change, a topupd.Account) (topupd.Account, error) {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := s.checkTier(ctx, tx, a.Tier); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO accounts (`+accountColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, accountArgs(a)...)
		noteChange(ctx, a.ID, map[string]any{}, a.LogFields())
		return err
	})
	if err != nil {
		return a, fmt.Errorf("store.CreateAccount %s: %w", a.ID, err)
	}
	return s.Account(ctx, a.ID)
}

// Account returns one live account (a sandbox is NOT_FOUND: it is its
// account's, reached through it).
func (s *Store) Account(ctx context.Context, id string) (topupd.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM accounts WHERE id = $1 AND sandbox_of IS NULL`, id))
	if isNoRows(err) {
		return a, topupd.Errorf(topupd.ENotFound, "account %s", id)
	}
	if err != nil {
		return a, fmt.Errorf("store.Account %s: %w", id, err)
	}
	return a, nil
}

// CountAccounts returns how many live accounts exist.
func (s *Store) CountAccounts(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE sandbox_of IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store.CountAccounts: %w", err)
	}
	return n, nil
}

// UpdateAccount applies a patch to an account, holding its row lock so that
// concurrent patches do not undo one another.
func (s *Store) UpdateAccount(ctx context.Context, ch *topupd.Change, id string, p topupd.AccountPatch) (topupd.Account, error) {
	ctx = withChange(ctx, ch)
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
		if err := s.checkTier(ctx, tx, out.Tier); err != nil {
			return err
		}
		args := accountArgs(out)
		args = append(args[:8], args[9:]...) // all but created_at
		if _, err = tx.ExecContext(ctx, `UPDATE accounts SET name = $2, api_enabled = $3, admin_disabled = $4, banned = $5,
			restricted_until = $6, ip_allowlist = $7, ip_allowlist_required = $8, tier = $9, `+limitAssignments(10)+`
			WHERE id = $1`, args...); err != nil {
			return err
		}
		if out.Tier != a.Tier {
			if err := s.tierMoved(ctx, tx, id); err != nil {
				return err
			}
		}
		if len(p.Limits) > 0 {
			// The audit holds the orders placed from now on to the new limits.
			if _, err = tx.ExecContext(ctx, `UPDATE accounts SET limits_from_seq = order_count WHERE id = $1`, id); err != nil {
				return err
			}
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

// AddKey stores the hash of a new API key, with its label and prefix; a
// sandbox key's account has its sandbox opened, if it was not, in the same
// transaction.
func (s *Store) AddKey(ctx context.Context, ch *topupd.Change, k topupd.APIKey, h topupd.KeyHash) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = $1 AND sandbox_of IS NULL`, k.AccountID).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "account %s", k.AccountID)
		} else if err != nil {
			return err
		}
		if k.Sandbox {
			if err := s.openSandbox(ctx, tx, k.AccountID, k.CreatedAt); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, account_id, hash, label, prefix, created_at, sandbox) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			k.ID, k.AccountID, h[:], k.Label, k.Prefix, ms(k.CreatedAt), boolInt(k.Sandbox))
		after := map[string]any{"keyId": k.ID, "label": k.Label, "prefix": k.Prefix}
		if k.Sandbox {
			after["sandbox"] = true
		}
		noteChange(ctx, k.AccountID, map[string]any{}, after)
		return err
	})
	if err != nil {
		return fmt.Errorf("store.AddKey %s: %w", k.AccountID, err)
	}
	return nil
}

// Keys lists an account's keys, newest first.
func (s *Store) Keys(ctx context.Context, accountID string) ([]topupd.APIKey, error) {
	keys, err := queryAll(ctx, s.read, scanKey, `SELECT id, account_id, label, prefix, created_at, last_used_at, revoked_at, sandbox FROM api_keys
		WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, accountID)
	if err != nil {
		return nil, fmt.Errorf("store.Keys %s: %w", accountID, err)
	}
	return keys, nil
}

func scanKey(row scanner) (topupd.APIKey, error) {
	var k topupd.APIKey
	var created int64
	var used, revoked sql.NullInt64
	err := row.Scan(&k.ID, &k.AccountID, &k.Label, &k.Prefix, &created, &used, &revoked, &k.Sandbox)
	k.CreatedAt = fromMS(created)
	for _, t := range []struct {
		v   sql.NullInt64
		dst **time.Time
	}{{used, &k.LastUsedAt}, {revoked, &k.RevokedAt}} {
		if t.v.Valid {
			at := fromMS(t.v.Int64)
			*t.dst = &at
		}
	}
	return k, err
}

// UseKey records that a key was used in the minute that starts at minute;
// a key already seen in that minute is not written again.
func (s *Store) UseKey(ctx context.Context, h topupd.KeyHash, minute time.Time) error {
	if err := s.seenAt(ctx, "api_keys", "hash", "last_used_at", h[:], minute); err != nil {
		return fmt.Errorf("store.UseKey: %w", err)
	}
	return nil
}

// Accounts lists accounts newest first, by (created_at, id) down the
// accounts_created index: a page starts after the account the query names,
// so every page costs the same.
func (s *Store) Accounts(ctx context.Context, q topupd.AccountsQuery) ([]topupd.Account, error) {
	query, args := accountsPage(q)
	return readAll(ctx, s, "store.Accounts", scanAccount, query, args...)
}

// accountsPage renders the query of a page of the account list, and its
// arguments. A search matches the id or a part of the name, so it reads
// every account; without one, a page is one range of accounts_created.
func accountsPage(q topupd.AccountsQuery) (string, []any) {
	var w conds
	if q.Search != "" {
		// Case does not matter, on either database.
		w.add("(id = ? OR LOWER(name) LIKE ? ESCAPE '\\')", q.Search, "%"+likeEscape(strings.ToLower(q.Search))+"%")
	}
	if q.After != nil {
		w.add("(created_at, id) < (?, ?)", ms(q.After.CreatedAt), q.After.ID)
	}
	w.add("sandbox_of IS NULL") // a sandbox is its account's, not listed apart
	return `SELECT ` + accountColumns + ` FROM accounts ` + w.tail("created_at DESC, id DESC", q.Limit), w.args
}

// likeEscape escapes LIKE's wildcards in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// revokeKey sets a key's revocation time, the earliest asked for.
const revokeKey = `UPDATE api_keys SET revoked_at = CASE WHEN revoked_at IS NULL OR revoked_at > $2 THEN $2 ELSE revoked_at END WHERE id = $1`

// RotateKey adds k to the old key's account and revokes the old key at
// revokeAt, in one transaction. k is a sandbox key if and only if the old
// key is one (else CONFLICT).
func (s *Store) RotateKey(ctx context.Context, ch *topupd.Change, oldKeyID string, k topupd.APIKey, h topupd.KeyHash, revokeAt time.Time) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var revoked sql.NullInt64
		var sandbox bool
		err := tx.QueryRowContext(ctx, `SELECT revoked_at, sandbox FROM api_keys WHERE id = $1 AND account_id = $2`, oldKeyID, k.AccountID).Scan(&revoked, &sandbox)
		if isNoRows(err) || (err == nil && revoked.Valid && revoked.Int64 <= ms(k.CreatedAt)) {
			return topupd.Errorf(topupd.ENotFound, "key %s of account %s", oldKeyID, k.AccountID)
		} else if err != nil {
			return err
		}
		if sandbox != k.Sandbox {
			return topupd.Errorf(topupd.EConflict, "key %s: a sandbox key is rotated into a sandbox key, a live key into a live key", oldKeyID)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO api_keys (id, account_id, hash, label, prefix, created_at, sandbox) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			k.ID, k.AccountID, h[:], k.Label, k.Prefix, ms(k.CreatedAt), boolInt(k.Sandbox)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, revokeKey, oldKeyID, ms(revokeAt)); err != nil {
			return err
		}
		noteChange(ctx, k.AccountID, map[string]any{}, map[string]any{"keyId": k.ID, "label": k.Label, "prefix": k.Prefix,
			"rotatedFrom": oldKeyID, "oldKeyRevokedAt": revokeAt.UTC().Format(time.RFC3339)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RotateKey %s: %w", oldKeyID, err)
	}
	return nil
}

// RevokeKey refuses a key from now on.
func (s *Store) RevokeKey(ctx context.Context, ch *topupd.Change, keyID string, now time.Time) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var account string
		var revoked sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT account_id, revoked_at FROM api_keys WHERE id = $1`, keyID).Scan(&account, &revoked)
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "key %s", keyID)
		} else if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, revokeKey, keyID, ms(now)); err != nil {
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

// AccountByKey returns the account of a key not revoked, with Sandbox set
// for a sandbox key.
func (s *Store) AccountByKey(ctx context.Context, h topupd.KeyHash, now time.Time) (topupd.Account, error) {
	var sandbox bool
	a, err := scanAccount(withExtra(s.read.QueryRowContext(ctx, s.q.accountByKey, h[:], ms(now)), &sandbox))
	a.Sandbox = sandbox
	if isNoRows(err) {
		return a, topupd.Fail(topupd.EInvalidKey)
	}
	if err != nil {
		return a, fmt.Errorf("store.AccountByKey: %w", err)
	}
	return a, nil
}
