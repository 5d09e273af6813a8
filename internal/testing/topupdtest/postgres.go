package topupdtest

import (
	"testing"

	"github.com/topupd/topupd/internal/testing/pgtest"
)

// PostgresSchema creates an empty schema of the test's own on this
// machine's PostgreSQL (TOPUPD_TEST_POSTGRES) and returns a URL whose
// connections use it, dropped when the test ends; ok is false when the
// variable is unset. For a test of start-up itself, migrations included.
func PostgresSchema(tb testing.TB) (dsn string, ok bool) {
	tb.Helper()
	return pgtest.Schema(tb)
}

// PostgresDB creates a database of the test's own, already migrated (a
// copy of pgtest's template), and returns its URL, dropped when the test
// ends; ok is false when TOPUPD_TEST_POSTGRES is unset.
func PostgresDB(tb testing.TB) (dsn string, ok bool) {
	tb.Helper()
	return pgtest.Migrated(tb)
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
		dsn, ok := PostgresDB(t)
		if !ok {
			t.Skip("TOPUPD_TEST_POSTGRES not set: SQLite only")
		}
		run(t, WithDB(dsn))
	})
}
