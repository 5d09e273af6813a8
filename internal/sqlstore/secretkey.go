package sqlstore

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// KeyState is how the store's secret key stands to its database.
type KeyState int

// The states of a secret key (see SecretKeyState).
const (
	// KeyFresh: the database remembers no key and holds nothing sealed,
	// so any key may become its key.
	KeyFresh KeyState = iota + 1
	// KeyMatches: the key is the database's: it matches the fingerprint
	// remembered, or (a database from before fingerprints) it opens every
	// kind of sealed value the database holds.
	KeyMatches
	// KeyMismatch: the database was sealed with another key.
	KeyMismatch
)

// keyCheckContext is the context of the key's fingerprint: no pack's PID,
// upstream or operator name can be it.
const keyCheckContext = "\x00secret-key-check"

// KeyFingerprint is a key's fingerprint as the database keeps it: a keyed
// digest of a constant, from which nothing of the key can be learned.
func KeyFingerprint(v *topupd.Vault) []byte {
	return v.Fingerprint(keyCheckContext, "topupd")
}

// keyFingerprint is the store's key's fingerprint.
func (s *Store) keyFingerprint() []byte { return KeyFingerprint(s.vault) }

// SecretKeyState tells whether the store's key is its database's. It
// changes nothing: a key generated for a database that turns out not to be
// fresh must be thrown away, not remembered.
func (s *Store) SecretKeyState(ctx context.Context) (KeyState, error) {
	var fp []byte
	err := s.read.QueryRowContext(ctx, `SELECT fingerprint FROM secret_key WHERE id = 1`).Scan(&fp)
	switch {
	case err == nil:
		if subtle.ConstantTimeCompare(fp, s.keyFingerprint()) == 1 {
			return KeyMatches, nil
		}
		return KeyMismatch, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("store.SecretKeyState: %w", err)
	}
	// No fingerprint yet: a database from before they were kept, or a new
	// one. Try the newest sealed value of each kind.
	sealed := 0
	for _, probe := range []struct {
		query   string
		context func(string) string
	}{
		{`SELECT pid, sealed FROM codes ORDER BY id DESC LIMIT 1`, func(pid string) string { return pid }},
		{`SELECT name, api_key FROM upstreams ORDER BY name LIMIT 1`, sealContext},
		{`SELECT name, totp_sealed FROM operators WHERE totp_sealed IS NOT NULL ORDER BY name LIMIT 1`, topupd.TOTPSealContext},
	} {
		var name string
		var value []byte
		err := s.read.QueryRowContext(ctx, probe.query).Scan(&name, &value)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("store.SecretKeyState: %w", err)
		}
		sealed++
		if _, err := s.vault.Open(probe.context(name), value); err != nil {
			return KeyMismatch, nil
		}
	}
	if sealed > 0 {
		return KeyMatches, nil
	}
	return KeyFresh, nil
}

// RememberSecretKey records the key's fingerprint, once: a database that
// already remembers another key (a node with another key got there first)
// is ErrKeyMismatch, and nothing changes.
func (s *Store) RememberSecretKey(ctx context.Context, now time.Time) error {
	fp := s.keyFingerprint()
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO secret_key (id, fingerprint, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING`,
			fp, ms(now)); err != nil {
			return err
		}
		var got []byte
		if err := tx.QueryRowContext(ctx, `SELECT fingerprint FROM secret_key WHERE id = 1`).Scan(&got); err != nil {
			return err
		}
		if subtle.ConstantTimeCompare(got, fp) != 1 {
			return ErrKeyMismatch
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RememberSecretKey: %w", err)
	}
	return nil
}

// ErrKeyMismatch reports a database that remembers another secret key.
var ErrKeyMismatch = errors.New("the database remembers another secret key")
