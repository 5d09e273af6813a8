package dbfault

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// pgBusy is the error PostgreSQL sends for a transaction it rolled back
// as a deadlock victim, or for a serialization failure.
func pgBusy(deadlock bool) error {
	if deadlock {
		return &pgconn.PgError{Severity: "ERROR", Code: "40P01", Message: "deadlock detected",
			Detail: "Process 4242 waits for ShareLock on transaction 1001; blocked by process 4243."}
	}
	return &pgconn.PgError{Severity: "ERROR", Code: "40001", Message: "could not serialize access due to concurrent update"}
}

var (
	busyOnce sync.Once
	busyErr  error
)

// sqliteBusy is the error modernc.org/sqlite answers when the database
// stays locked past busy_timeout: a *sqlite.Error of code SQLITE_BUSY.
// Its fields are the driver's own, so it is made the way the driver makes
// it: by a second writer asking for a database another one holds, with no
// patience, once per process.
func sqliteBusy() error {
	busyOnce.Do(func() { busyErr = makeBusy() })
	return busyErr
}

// makeBusy locks a scratch database from one connection and begins a
// write on it from another.
func makeBusy() error {
	dir, err := os.MkdirTemp("", "dbfault-")
	if err != nil {
		panic("dbfault: " + err.Error())
	}
	defer os.RemoveAll(dir)
	dsn := "file:" + filepath.Join(dir, "busy.db") + "?_pragma=busy_timeout(0)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		panic("dbfault: " + err.Error())
	}
	defer db.Close()
	ctx := context.Background()
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		panic("dbfault: " + err.Error())
	}
	defer holder.Rollback()
	_, err = db.BeginTx(ctx, nil)
	var e *msqlite.Error
	if !errors.As(err, &e) || e.Code() != sqlite3.SQLITE_BUSY {
		panic("dbfault: a second writer was not refused as busy: " + errString(err))
	}
	return e
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// IsInjected reports whether err is, or wraps, one of the errors the
// injector answers with: a way for a trace to name it the same way on
// both stores (Describe).
func IsInjected(err error) bool { return Describe(err) != "" }

// Describe names the fault an error comes from, the same on both stores
// ("database busy", "connection lost", "commit answer lost"), or "".
func Describe(err error) string {
	var se *msqlite.Error
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrAnswerLost):
		return "commit answer lost"
	case errors.Is(err, driver.ErrBadConn):
		return "connection lost"
	case errors.As(err, &se) && se.Code() == sqlite3.SQLITE_BUSY,
		errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01"):
		return "database busy"
	}
	return ""
}
