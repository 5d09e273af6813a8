package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
)

// secret is the key that seals codes, upstream keys and TOTP secrets at
// rest, and where it came from.
type secret struct {
	key []byte
	// source names it in messages: TOPUPD_SECRET_KEY, or the key file.
	source string
	// newFile, when set, is the key file a new key is to be written to,
	// once the database turns out to hold nothing sealed yet.
	newFile string
}

// KeyFile is the path of the key file beside a SQLite database.
func KeyFile(db string) string { return db + ".key" }

// loadSecret finds the key: TOPUPD_SECRET_KEY when set; otherwise (SQLite
// only) the key file beside the database. When there is no key file, a new
// key is made but not written (see keepSecret).
func loadSecret(cfg Config) (secret, error) {
	if cfg.SecretKey != "" {
		key, err := decodeSecret(cfg.SecretKey, "TOPUPD_SECRET_KEY")
		return secret{key: key, source: "TOPUPD_SECRET_KEY"}, err
	}
	if IsPostgres(cfg.DB) {
		return secret{}, errors.New("TOPUPD_SECRET_KEY is required with PostgreSQL: every node must seal and open codes with the same key")
	}
	path := KeyFile(cfg.DB)
	b, err := os.ReadFile(path)
	if err == nil {
		key, err := decodeSecret(strings.TrimSpace(string(b)), path)
		return secret{key: key, source: "the key file " + path}, err
	}
	if !errors.Is(err, os.ErrNotExist) {
		return secret{}, fmt.Errorf("secret key: %w", err)
	}
	key := make([]byte, topupd.SecretKeySize)
	if _, err := rand.Read(key); err != nil {
		return secret{}, err
	}
	return secret{key: key, source: "a new key file " + path, newFile: path}, nil
}

// keyStore is what the secret key check needs of a store.
type keyStore interface {
	SecretKeyState(ctx context.Context) (sqlstore.KeyState, error)
	RememberSecretKey(ctx context.Context, now time.Time) error
}

// keepSecret holds the database to its key: a key that is not the one its
// values were sealed with is refused, naming the key's source; a new key is
// written to its key file only for a database that holds nothing sealed,
// and then remembered by the database.
func keepSecret(ctx context.Context, s keyStore, sec secret, now time.Time) error {
	state, err := s.SecretKeyState(ctx)
	if err != nil {
		return err
	}
	switch {
	case state == sqlstore.KeyMismatch && sec.newFile != "":
		return fmt.Errorf("the key file %s is missing, but this database holds values sealed with a key: restore the key file "+
			"(topupd backup writes it beside the copy as <copy>.key) or set TOPUPD_SECRET_KEY; no new key was made", sec.newFile)
	case state == sqlstore.KeyMismatch:
		return fmt.Errorf("the secret key from %s is not the key this database was sealed with: start with the key that sealed it "+
			"(the key file kept beside the database or its backup, or the TOPUPD_SECRET_KEY it ran with)", sec.source)
	case sec.newFile != "" && state != sqlstore.KeyFresh:
		return fmt.Errorf("the key file %s is missing, but this database holds sealed values: restore the key file or set TOPUPD_SECRET_KEY", sec.newFile)
	}
	if sec.newFile != "" {
		if err := writeKeyFile(sec.newFile, sec.key); err != nil {
			return err
		}
	}
	if err := s.RememberSecretKey(ctx, now); errors.Is(err, sqlstore.ErrKeyMismatch) {
		return fmt.Errorf("the secret key from %s is not the key another node gave this database: every node needs the same TOPUPD_SECRET_KEY", sec.source)
	} else if err != nil {
		return err
	}
	return nil
}

// writeKeyFile writes a key file, readable by its owner alone, and never
// over an existing one.
func writeKeyFile(path string, key []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("secret key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("secret key: %w", err)
	}
	return f.Close()
}

func decodeSecret(s, from string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(key) != topupd.SecretKeySize {
		return nil, fmt.Errorf("secret key from %s: want %d bytes in base64", from, topupd.SecretKeySize)
	}
	return key, nil
}
