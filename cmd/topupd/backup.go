package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/topupd/topupd/internal/app"
)

const backupUsage = `usage: topupd backup [--db PATH] OUT.db

Writes a consistent copy of a SQLite database to OUT.db while a server runs
on it: every order, balance and code committed before the backup began, and
nothing after. Its secret key (TOPUPD_SECRET_KEY, or the key file beside
the database) is checked against the database and written beside the copy
as OUT.db.key, mode 0600: keep the two together, somewhere the server's
host is not. To restore: stop the server; move the database aside with its
-wal, -shm and .key files (a -wal file left beside a restored copy would
be read into it); copy OUT.db and OUT.db.key in their place; start the
server. Nothing is written over an existing file. For PostgreSQL, use
pg_dump (see docs/operations.md).

flags:
`

// runBackup runs topupd backup.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fe := newCommandFlags("backup", backupUsage)
	var cfg app.Config
	fe.String(&cfg.DB, "db", "TOPUPD_DB", "topupd.db", "the SQLite database to copy")
	if err := fe.parse(args, getenv, stdout, stderr); err != nil {
		return err
	}
	if fe.fs.NArg() != 1 {
		return errors.New("backup: name the copy to write: topupd backup --db PATH OUT.db")
	}
	cfg.SecretKey = getenv("TOPUPD_SECRET_KEY")
	dst := fe.fs.Arg(0)
	if err := app.Backup(ctx, cfg, dst); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	size := int64(0)
	if fi, err := os.Stat(dst); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(stdout, "backup of %s written to %s (%d bytes), its key to %s: keep them together, away from this host\n",
		cfg.DB, dst, size, app.KeyFile(dst))
	return nil
}
