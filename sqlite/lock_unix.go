//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock takes the exclusive lock of a server on the database file at path,
// creating the file (mode 0600) if need be: of two servers on one file, the
// second gets ErrLocked at once. The lock is an flock(2) on the file, which
// SQLite's own (fcntl) locks do not touch, so tools such as topupd backup
// and topupd operator still open the file; it goes with the process, so a
// crashed server leaves none behind. Unlock lets it go: call it after the
// store is closed.
func Lock(path string) (unlock func() error, err error) {
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("sqlite.Lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("sqlite.Lock %s: %w", path, err)
	}
	return f.Close, nil
}
