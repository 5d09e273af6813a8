package app

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/topupd/topupd"
)

// loadSecret returns the key that seals codes at rest: TOPUPD_SECRET_KEY when
// set; otherwise (SQLite only) the key file beside the database, created
// once with mode 0600.
func loadSecret(cfg Config) ([]byte, error) {
	if cfg.SecretKey != "" {
		return decodeSecret(cfg.SecretKey, "TOPUPD_SECRET_KEY")
	}
	if IsPostgres(cfg.DB) {
		return nil, errors.New("TOPUPD_SECRET_KEY is required with PostgreSQL: every node must seal and open codes with the same key")
	}
	path := cfg.DB + ".key"
	b, err := os.ReadFile(path)
	if err == nil {
		return decodeSecret(strings.TrimSpace(string(b)), path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	key := make([]byte, topupd.SecretKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, fmt.Errorf("secret key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("secret key: %w", err)
	}
	return key, f.Close()
}

func decodeSecret(s, from string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(key) != topupd.SecretKeySize {
		return nil, fmt.Errorf("secret key from %s: want %d bytes in base64", from, topupd.SecretKeySize)
	}
	return key, nil
}
