package pgtest

import (
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd/postgres"
)

// TestMigratedDatabases: each test's database is its own, at this binary's
// schema version, with no secret key recorded, and gone once the test ends.
func TestMigratedDatabases(t *testing.T) {
	if _, ok := Base(); !ok {
		t.Skip("TOPUPD_TEST_POSTGRES is not set: no PostgreSQL to test against")
	}
	var names [2]string
	t.Run("two", func(t *testing.T) {
		for i := range names {
			dsn, _ := Migrated(t)
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			names[i] = strings.TrimPrefix(u.Path, "/")
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var version, keys, accounts int64
			if err := db.QueryRow(`SELECT max(version_id) FROM goose_db_version`).Scan(&version); err != nil {
				t.Fatal(err)
			}
			if version != postgres.SchemaVersion() {
				t.Errorf("database %d is at version %d, the binary's is %d", i, version, postgres.SchemaVersion())
			}
			if err := db.QueryRow(`SELECT count(*) FROM secret_key`).Scan(&keys); err != nil || keys != 0 {
				t.Errorf("database %d remembers %d secret keys (%v)", i, keys, err)
			}
			if err := db.QueryRow(`SELECT count(*) FROM accounts`).Scan(&accounts); err != nil || accounts != 0 {
				t.Errorf("database %d holds %d accounts (%v): another test's write", i, accounts, err)
			}
			if _, err := db.Exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acc_pgtest', 'pgtest', 0)`); err != nil {
				t.Fatal(err)
			}
		}
	})
	if names[0] == names[1] {
		t.Fatalf("two tests share database %s", names[0])
	}
	base, _ := Base()
	admin, err := adminDB(base)
	if err != nil {
		t.Fatal(err)
	}
	var left int
	if err := admin.QueryRow(`SELECT count(*) FROM pg_database WHERE datname = ANY($1)`, names[:]).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d of the tests' databases are left after the tests (%v)", left, err)
	}
}
