package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Backup writes a consistent copy of the database at path to out while
// servers keep writing to it: SQLite's VACUUM INTO, run in one read
// transaction on a read-only connection, copies the database as it stood
// when the transaction began, every commit before it and none after; in
// WAL mode it holds up no writer. out must not exist; it is made with
// mode 0600, and checked (PRAGMA quick_check) before Backup returns.
// Nothing at path is created or changed.
func Backup(ctx context.Context, path, out string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("the database %s: %w", path, err)
	}
	if strings.ContainsAny(out, "'?#") {
		return fmt.Errorf("the backup's name %q may not hold ' ? or #", out)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // VACUUM INTO fills an empty file
	if err != nil {
		return fmt.Errorf("the backup: %w", err)
	}
	f.Close()
	if err := vacuumInto(ctx, path, out); err != nil {
		os.Remove(out)
		return err
	}
	return nil
}

// vacuumInto copies path into the empty file out and checks the copy.
func vacuumInto(ctx context.Context, path, out string) error {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(10000)")
	src, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, `VACUUM INTO '`+out+`'`); err != nil {
		return fmt.Errorf("copying %s: %w", path, err)
	}
	dst, err := sql.Open("sqlite", "file:"+out+"?mode=ro")
	if err != nil {
		return err
	}
	defer dst.Close()
	var check string
	if err := dst.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&check); err != nil {
		return fmt.Errorf("checking the copy: %w", err)
	}
	if check != "ok" {
		return errors.New("checking the copy: " + check)
	}
	return nil
}

// KeyFingerprint reads the secret key's fingerprint that the database at
// path remembers (see sqlstore.KeyFingerprint); ok is false when it
// remembers none (a database from before fingerprints, or one that was
// never opened with a key).
func KeyFingerprint(ctx context.Context, path string) (fp []byte, ok bool, err error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, false, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'secret_key'`).Scan(&n); err != nil || n == 0 {
		return nil, false, err
	}
	err = db.QueryRowContext(ctx, `SELECT fingerprint FROM secret_key WHERE id = 1`).Scan(&fp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	return fp, err == nil, err
}
