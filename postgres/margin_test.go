package postgres_test

import (
	"database/sql"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/postgres"
)

// migrationCheck is a storetest migration check: a store opener, a step
// back to an earlier version, and the raw database.
type migrationCheck func(t *testing.T, open func(t *testing.T) topupd.Store, down func(t *testing.T), db *sql.DB)

// runMigrationCheck runs check on a database of its own, whose down takes
// it back to version.
func runMigrationCheck(t *testing.T, version int64, check migrationCheck) {
	t.Parallel()
	url, v := newDB(t), storetest.NewVault(t)
	db := rawDB(t, url)
	down := func(t *testing.T) {
		p, err := goose.NewProvider(goose.DialectPostgres, db, postgres.Migrations(), goose.WithAllowOutofOrder(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(t.Context(), version); err != nil {
			t.Fatalf("down to %05d: %v", version, err)
		}
	}
	check(t, func(t *testing.T) topupd.Store {
		s, err := postgres.Open(t.Context(), url, v)
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		return s
	}, down, db)
}

// TestUnknownCostsMigration: 00042 tells the costs that were set from the
// zeros written for none, on a database taken back to 00041 (see
// storetest.UnknownCostsMigration).
func TestUnknownCostsMigration(t *testing.T) {
	runMigrationCheck(t, 41, storetest.UnknownCostsMigration)
}

// TestWholeCentsMigration: 00041 rounds stored prices up to the cent, on a
// database taken back to 00040 (see storetest.WholeCentsMigration).
func TestWholeCentsMigration(t *testing.T) { runMigrationCheck(t, 40, storetest.WholeCentsMigration) }
