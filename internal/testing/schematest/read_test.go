package schematest_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/schematest"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/sqlite"
)

// TestDiffSeesChanges migrates a SQLite file, reads its schema, changes the
// schema by hand and reads it again: every change, and only the changes,
// comes out as a difference. The parity test can fail.
func TestDiffSeesChanges(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := sqlite.Open(t.Context(), path, storetest.NewVault(t))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	s.Close()
	before := readSQLite(t, path)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		`ALTER TABLE orders ADD COLUMN note TEXT NOT NULL DEFAULT 'x' CHECK (length(note) BETWEEN 1 AND 9)`,
		`CREATE INDEX orders_note ON orders (lower(note) DESC, seq) WHERE note <> ''`,
		`DROP INDEX orders_pack`,
		`CREATE TRIGGER orders_note_fixed BEFORE UPDATE OF note, alert ON orders BEGIN SELECT RAISE(ABORT, 'no'); END`,
		`DROP TRIGGER ledger_no_update`,
		`CREATE TABLE notes (id TEXT NOT NULL PRIMARY KEY, order_seq INTEGER REFERENCES orders (seq) ON DELETE CASCADE, UNIQUE (order_seq, id))`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var got []string
	for _, d := range schematest.Diff(before, readSQLite(t, path)) {
		got = append(got, d.String())
	}
	want := []string{
		`+ check orders: (length(note) >= 1) AND (length(note) <= 9)`,
		`+ column notes.id: text`,
		`+ column notes.id NOT NULL`,
		`+ column notes.order_seq: integer`,
		`+ column orders.note: text`,
		`+ column orders.note DEFAULT: 'x'`,
		`+ column orders.note NOT NULL`,
		`+ foreign key notes (order_seq): REFERENCES orders (seq) ON DELETE CASCADE`,
		`+ index orders_note: ON orders (lower(note) DESC, seq) WHERE note <> ''`,
		`- index orders_pack: ON orders (pid, created_at, seq)`,
		`+ primary key notes: (id)`,
		`+ table notes`,
		`- trigger ledger_no_update: BEFORE UPDATE ON ledger`,
		`+ trigger orders_note_fixed: BEFORE UPDATE OF alert, note ON orders`,
		`+ unique notes (order_seq, id)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("differences after changing the schema (-want +got):\n%s", diff)
	}
	if t.Failed() {
		t.Logf("all differences:\n%s", strings.Join(got, "\n"))
	}
}
