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
