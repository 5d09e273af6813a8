package topupdtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for test schemas
)

// PostgresSchema creates a schema of the test's own on this machine's
// PostgreSQL (TOPUPD_TEST_POSTGRES) and returns a URL whose connections use
// it, dropped when the test ends; ok is false when the variable is unset.
func PostgresSchema(tb testing.TB) (dsn string, ok bool) {
	tb.Helper()
	pg := os.Getenv("TOPUPD_TEST_POSTGRES")
	if pg == "" {
		return "", false
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	db, err := sql.Open("pgx", pg)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	u, err := url.Parse(pg)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), true
}

// EachStore runs a test on SQLite and, when TOPUPD_TEST_POSTGRES is set, on
// PostgreSQL too, in parallel, each with a server of its own made with opts.
func EachStore(t *testing.T, run func(t *testing.T, h *T), opts ...Option) {
	EachDB(t, func(t *testing.T, db ...Option) { run(t, New(t, append(db, opts...)...)) })
}

// EachDB is EachStore for a test that makes its own server: db holds the
// option choosing the store (none for SQLite).
func EachDB(t *testing.T, run func(t *testing.T, db ...Option)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		run(t)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn, ok := PostgresSchema(t)
		if !ok {
			t.Skip("TOPUPD_TEST_POSTGRES not set: SQLite only")
		}
		run(t, WithDB(dsn))
	})
}
