package sqlite_test

import (
	"testing"

	"github.com/topupd/topupd/sqlite"
)

// TestAuditCatchesDamage: the audit finds damage made behind the store's
// back where the schema has no guard (the stock counter), and names it.
func TestAuditCatchesDamage(t *testing.T) {
	f := newFixture(t)
	db := rawDB(t, f.path)
	if _, err := db.Exec(`UPDATE stock_levels SET available = available + 5 WHERE pid = 'key-1'`); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(t.Context(), f.path, f.vault)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	au, err := s.Audit(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range au.Checks {
		got[c.Name] = c.Violations
	}
	if got["stock-levels-match-codes"] != 1 || got["orders-final"] != 2 || got["ledger-sums-to-balance"] != 0 {
		t.Errorf("audit after damage: %v", got)
	}
	if au.OK() {
		t.Error("audit OK after damage")
	}
}
