// Package postgres is the topupd store on PostgreSQL, for several nodes
// sharing one database. Its queries are sqlstore's, shared with the SQLite
// store; this package supplies the schema, the pool and the dialect.
//
// Isolation: write transactions run at READ COMMITTED and take explicit row
// locks (see package sqlstore): the account row serialises everything that
// touches one account's ledger and orders, the pack's stock_levels row
// serialises draws of its codes, the order row serialises settlements, and
// claims pass over locked orders with SKIP LOCKED. Unlike SERIALIZABLE,
// which would abort most of a burst of orders on one account and retry them,
// contenders queue on the lock and each sees the committed work of the one
// before. The schema's unique indexes and triggers stay the backstop: a
// transaction that trips a unique index where a repeat is possible, and one
// chosen as a deadlock victim (40P01) or failed for serialization (40001), is
// run again a bounded number of times.
package postgres

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a topupd.Store on a PostgreSQL database.
type Store struct {
	*sqlstore.Store
	pool   *pgxpool.Pool
	schema sqlstore.Schema
}

// Schema is what Open found and did to the database's schema.
func (s *Store) Schema() sqlstore.Schema { return s.schema }

// MigrationsDigest is a digest of the embedded migrations' text: two
// binaries with the same digest build the same schema. Tests key the
// template databases they clone by it (internal/testing/pgtest).
func MigrationsDigest() string {
	h := sha256.New()
	_ = fs.WalkDir(migrations, "migrations", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := migrations.ReadFile(path)
		h.Write([]byte(path + "\x00"))
		h.Write(b)
		return err
	})
	return hex.EncodeToString(h.Sum(nil))
}

// SchemaVersion is the schema version this binary migrates a PostgreSQL
// database to: its newest migration's number, the same as SQLite's.
func SchemaVersion() int64 {
	sub, _ := fs.Sub(migrations, "migrations")
	return sqlstore.SchemaVersion(sub)
}

var _ topupd.Store = (*Store)(nil)

// dialect is PostgreSQL's: READ COMMITTED plus row locks, GREATEST, and
// SQLSTATEs to tell a unique violation and a transient failure.
var dialect = sqlstore.Dialect{
	Bytewise:          ` COLLATE "C"`,
	Name:              "postgres",
	TxOptions:         &sql.TxOptions{Isolation: sql.LevelReadCommitted},
	LockRow:           " FOR NO KEY UPDATE",
	SkipLocked:        " FOR NO KEY UPDATE SKIP LOCKED",
	Greatest:          "GREATEST",
	StreamSettled:     " AND e.tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
	CatalogSyncPoint:  "SELECT catalog_sync_point()",
	CatalogStamp:      "catalog_stamp()",
	IsUniqueViolation: func(err error) bool { return sqlState(err) == "23505" },
	IsTransient: func(err error) bool {
		code := sqlState(err)
		return code == "40001" || code == "40P01" // serialization_failure, deadlock_detected
	},
}

// sqlState returns the SQLSTATE of a PostgreSQL error in err's chain, or "".
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// DefaultMaxConns is the pool size of a node when the URL sets no
// pool_max_conns: four connections per CPU, at least 8 and at most 32.
// Every write waiting on a row lock holds a connection, so the pool must
// hold a node's concurrent writes; the sum over the nodes must stay below
// the server's max_connections (100 by default).
func DefaultMaxConns() int32 {
	return int32(min(32, max(8, 4*runtime.GOMAXPROCS(0))))
}

// DefaultConnectTimeout bounds each connection attempt when the URL sets
// no connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// Open connects to the database at url (postgres://…), migrates it and
// returns the store. The URL's parameters are pgx's and pgxpool's: for
// example pool_max_conns (default DefaultMaxConns), pool_max_conn_lifetime
// (default 1h), search_path to keep topupd in its own schema, and
// default_query_exec_mode=simple_protocol behind PgBouncer in transaction
// mode (migrations then need a direct or session-pooled connection: their
// lock is a session advisory lock). Nodes opening one database at once
// apply each migration once.
func Open(ctx context.Context, url string, vault *topupd.Vault, opts ...sqlstore.Option) (*Store, error) {
	if vault == nil {
		return nil, errors.New("postgres.Open: a vault is required")
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres.Open: %w", err) // pgx redacts the password
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns()
	}
	if cfg.ConnConfig.ConnectTimeout == 0 { // an unreachable server fails start-up in seconds, not minutes
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	o := sqlstore.ApplyOptions(opts)
	db := sql.OpenDB(o.Wrap(stdlib.GetPoolConnector(pool)))
	// Callers queue for a connection in pgxpool, first come first served,
	// not in database/sql, which hands a freed connection to a random
	// waiter: with 64 callers on 8 connections that made the p99 four
	// times the mean. So database/sql keeps no connection of its own.
	db.SetMaxIdleConns(0)
	fail := func(err error) (*Store, error) {
		db.Close()
		pool.Close()
		return nil, fmt.Errorf("postgres.Open %s@%s/%s: %w", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Database, err)
	}
	schema, err := migrate(ctx, db)
	if err != nil {
		return fail(err)
	}
	st, err := sqlstore.New(db, db, vault, dialect, o)
	if err != nil {
		return fail(err)
	}
	if err := st.BackfillCodeFingerprints(ctx); err != nil {
		st.Close()
		pool.Close()
		return nil, fmt.Errorf("postgres.Open: %w", err)
	}
	return &Store{Store: st, pool: pool, schema: schema}, nil
}

// Close closes the pool.
func (s *Store) Close() error {
	err := s.Store.Close()
	s.pool.Close()
	return err
}

// migrate applies the embedded migrations under a session advisory lock, so
// that of several nodes starting at once one migrates and the others wait
// (polling each second, for up to five minutes) and then find nothing to do.
// The lock is the schema's own: a database holding several topupd schemas
// migrates them independently.
func migrate(ctx context.Context, db *sql.DB) (sqlstore.Schema, error) {
	var schema sql.NullString
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return sqlstore.Schema{}, fmt.Errorf("migrations: %w", err)
	}
	if !schema.Valid {
		return sqlstore.Schema{}, errors.New("migrations: the search_path names no existing schema")
	}
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID(schema.String)), lock.WithLockTimeout(1, 300))
	if err != nil {
		return sqlstore.Schema{}, fmt.Errorf("migrations: %w", err)
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return sqlstore.Schema{}, fmt.Errorf("migrations: %w", err)
	}
	s, err := sqlstore.Migrate(ctx, db, goose.DialectPostgres, sub, goose.WithSessionLocker(locker))
	if err != nil {
		return s, fmt.Errorf("schema %s: %w", schema.String, err)
	}
	return s, nil
}

// lockID is the advisory lock that migrations of one schema take.
func lockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("topupd migrations\x00" + schema))
	return int64(h.Sum64())
}
