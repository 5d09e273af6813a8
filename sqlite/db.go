// Package sqlite is the topupd store on an embedded SQLite file: WAL mode,
// durable commits, one writer connection and a pool of readers, migrations
// embedded and applied at open. The queries are sqlstore's, shared with the
// PostgreSQL store.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"

	"github.com/pressly/goose/v3"
	msqlite "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a topupd.Store on one SQLite file.
type Store struct {
	*sqlstore.Store
	write  *sql.DB // exactly one connection: SQLite has one writer
	read   *sql.DB
	ckpt   *checkpointer
	schema sqlstore.Schema
}

// Schema is what Open found and did to the database's schema.
func (s *Store) Schema() sqlstore.Schema { return s.schema }

// SchemaVersion is the schema version this binary migrates a SQLite
// database to: its newest migration's number.
func SchemaVersion() int64 {
	sub, _ := fs.Sub(migrations, "migrations")
	return sqlstore.SchemaVersion(sub)
}

// Close closes the store's connections and stops its checkpointer; SQLite
// checkpoints the WAL into the database file as the last connection closes.
func (s *Store) Close() error {
	err := s.Store.Close()
	if cerr := s.ckpt.close(); err == nil {
		err = cerr
	}
	return err
}

var _ topupd.Store = (*Store)(nil)

// dialect is SQLite's: its one writer connection runs write transactions
// (BEGIN IMMEDIATE) one at a time, so no row is ever locked explicitly and
// no transaction fails for a concurrent one.
var dialect = sqlstore.Dialect{
	Name:              "sqlite",
	StreamAfter:       "e.tx = $1 AND e.seq > $2",
	Greatest:          "MAX",
	IndexedBy:         " INDEXED BY ",
	IsUniqueViolation: isUniqueViolation,
	// One writer, and each durable commit costs an fsync: concurrent write
	// transactions share one commit, each in a savepoint of its own.
	GroupCommit: true,
	OneWriter:   true,
	// Read behind every writer: the one write connection commits in order.
	CatalogSyncPoint: "SELECT " + sqliteClock,
	CatalogStamp:     sqliteClock,
}

// sqliteClock is SQLite's clock in ms.
const sqliteClock = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)"

// isUniqueViolation reports an error raised by a UNIQUE constraint or a
// primary key.
func isUniqueViolation(err error) bool {
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// dsn builds a connection string whose pragmas every pooled connection gets.
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
		// The writer keeps each savepoint's journal (group commit gives
		// every caller one) in memory rather than in a temp file, and leaves
		// checkpoints to the checkpointer.
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", fallbackCheckpoint))
	}
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if need be) the database file at path and migrates it.
func Open(ctx context.Context, path string, vault *topupd.Vault, opts ...sqlstore.Option) (*Store, error) {
	o := sqlstore.ApplyOptions(opts)
	if vault == nil {
		return nil, errors.New("sqlite.Open: a vault is required")
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	write, err := openDB(dsn(path, false), o)
	if err != nil {
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	schema, err := migrate(ctx, write)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	read, err := openDB(dsn(path, true), o)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxIdleTime(0)
	st, err := sqlstore.New(write, read, vault, dialect, o)
	if err != nil {
		read.Close()
		write.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	if err := st.BackfillCodeFingerprints(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	ckpt, err := startCheckpointer(path)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("sqlite.Open %s: %w", path, err)
	}
	return &Store{Store: st, write: write, read: read, ckpt: ckpt, schema: schema}, nil
}

// migrate applies the embedded migrations (see sqlstore.Migrate).
func migrate(ctx context.Context, db *sql.DB) (sqlstore.Schema, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return sqlstore.Schema{}, err
	}
	return sqlstore.Migrate(ctx, db, goose.DialectSQLite3, sub)
}

// openDB opens a pool whose connections cache their prepared statements.
func openDB(dsn string, o sqlstore.Options) (*sql.DB, error) {
	c, err := msqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(o.Wrap(cachingConnector{base: c})), nil
}
