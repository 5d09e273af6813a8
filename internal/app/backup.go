package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
	"github.com/topupd/topupd/sqlite"
)

// Backup copies cfg's SQLite database to out while servers may be writing
// to it (see sqlite.Backup), and writes its key beside the copy as
// KeyFile(out), mode 0600, so that a server started on the copy opens it.
// The key (TOPUPD_SECRET_KEY, or the key file beside the database) must be
// the database's own; nothing is written over an existing file, and a
// failed backup leaves neither file behind.
func Backup(ctx context.Context, cfg Config, out string) error {
	if IsPostgres(cfg.DB) {
		return errors.New("backup copies a SQLite database; back PostgreSQL up with pg_dump (docs/operations.md)")
	}
	if _, err := os.Stat(cfg.DB); err != nil {
		return fmt.Errorf("no database to back up: %w", err)
	}
	sec, err := loadSecret(cfg)
	if err != nil {
		return err
	}
	if sec.newFile != "" {
		return fmt.Errorf("the key file %s is missing and TOPUPD_SECRET_KEY is empty: a copy without its key cannot be opened", sec.newFile)
	}
	vault, err := topupd.NewVault(sec.key)
	if err != nil {
		return err
	}
	keyOut := KeyFile(out)
	if _, err := os.Stat(keyOut); err == nil {
		return fmt.Errorf("%s exists: a backup is never written over another", keyOut)
	}
	if err := sqlite.Backup(ctx, cfg.DB, out); err != nil {
		return err
	}
	fp, ok, err := sqlite.KeyFingerprint(ctx, out)
	if err == nil && ok && subtle.ConstantTimeCompare(fp, sqlstore.KeyFingerprint(vault)) != 1 {
		err = fmt.Errorf("the secret key from %s is not the key this database was sealed with: no backup was kept", sec.source)
	}
	if err == nil {
		err = writeKeyFile(keyOut, sec.key)
	}
	if err != nil {
		os.Remove(out)
		return err
	}
	return nil
}
