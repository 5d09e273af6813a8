package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/sqlite"
)

// migrationCheck is a storetest migration check: a store opener, a step
// back to an earlier version, and the raw database.
type migrationCheck func(t *testing.T, open func(t *testing.T) topupd.Store, down func(t *testing.T), db *sql.DB)

// runMigrationCheck runs check on a file of its own, whose down takes it
// back to version.
func runMigrationCheck(t *testing.T, version int64, check migrationCheck) {
	t.Parallel()
	path, v := filepath.Join(t.TempDir(), "migrate.db"), storetest.NewVault(t)
	db := rawDB(t, path)
	down := func(t *testing.T) {
		p, err := goose.NewProvider(goose.DialectSQLite3, db, sqlite.Migrations(), goose.WithAllowOutofOrder(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.DownTo(t.Context(), version); err != nil {
			t.Fatalf("down to %05d: %v", version, err)
		}
	}
	check(t, func(t *testing.T) topupd.Store {
		s, err := sqlite.Open(t.Context(), path, v)
		if err != nil {
			t.Fatalf("sqlite.Open: %v", err)
		}
		return s
	}, down, db)
}

// TestUnknownCostsMigration: 00042 tells the costs that were set from the
// zeros written for none, on a file taken back to 00041 (see
// storetest.UnknownCostsMigration).
func TestUnknownCostsMigration(t *testing.T) {
	runMigrationCheck(t, 41, storetest.UnknownCostsMigration)
}

// TestWholeCentsMigration: 00041 rounds stored prices up to the cent, on a
// file taken back to 00040 (see storetest.WholeCentsMigration).
func TestWholeCentsMigration(t *testing.T) { runMigrationCheck(t, 40, storetest.WholeCentsMigration) }

// TestFinalOrdersGuardEveryColumn: orders_final_is_final, which 00042
// made again around its rewrite of unknown costs, names every column of
// orders but cost (SQLite has no row comparison: a column it leaves out
// could be changed on a final order). A migration that adds a column to
// orders, or makes the trigger again from an older text, fails here.
func TestFinalOrdersGuardEveryColumn(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "final.db")
	s, err := sqlite.Open(t.Context(), path, storetest.NewVault(t))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	s.Close()
	db := rawDB(t, path)
	var trigger string
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'orders_final_is_final'`).Scan(&trigger); err != nil {
		t.Fatal(err)
	}
	trigger = strings.Join(strings.Fields(trigger), " ")
	rows, err := db.Query(`SELECT name FROM pragma_table_info('orders')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatal(err)
		}
		n++
		if col != "cost" && !strings.Contains(trigger, "NEW."+col+" IS NOT OLD."+col+" ") {
			t.Errorf("orders_final_is_final does not guard orders.%s", col)
		}
	}
	if err := rows.Err(); err != nil || n < 30 {
		t.Fatalf("read %d columns of orders: %v", n, err)
	}
}
