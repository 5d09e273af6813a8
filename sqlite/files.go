package sqlite

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked reports a database file that another server has open.
var ErrLocked = errors.New("another topupd server has this SQLite database open: one server per file (run several nodes on PostgreSQL instead)")

// createPrivate creates an empty database file at path, readable and
// writable by its owner alone, unless it exists. SQLite gives the files it
// makes beside it (the -wal and -shm files) the same mode.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return f.Close()
}
