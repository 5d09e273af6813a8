package schematest_test

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/sqlite"
)

// triggerBudget is the most triggers a freshly migrated schema may have
// (issue 35): a trigger is kept only where no constraint and no code in
// the transaction of the change can say the rule. What the catalog's
// changes tell (terms_version, catalog_marks, packs.changed, stock_alerts)
// is written by the store's code since 00031.
const triggerBudget = 40

// TestTriggerBudget counts the triggers of a freshly migrated SQLite file
// and, with TOPUPD_TEST_POSTGRES, PostgreSQL schema.
func TestTriggerBudget(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budget.db")
	s, err := sqlite.Open(t.Context(), path, storetest.NewVault(t))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	s.Close()
	schemas := map[string]func() map[string]struct{}{
		"SQLite": func() map[string]struct{} { return names(readSQLite(t, path).Triggers) },
	}
	if url, ok := topupdtest.PostgresSchema(t); ok {
		schemas["PostgreSQL"] = func() map[string]struct{} {
			_, pg := migrate(t, url)
			return names(pg.Triggers)
		}
	}
	for db, read := range schemas {
		got := read()
		if len(got) > triggerBudget {
			list := make([]string, 0, len(got))
			for n := range got {
				list = append(list, n)
			}
			sort.Strings(list)
			t.Errorf("%s: %d triggers, over the budget of %d: %v", db, len(got), triggerBudget, list)
		}
		t.Logf("%s: %d triggers", db, len(got))
	}
}

// names is the set of a map's keys.
func names[V any](m map[string]V) map[string]struct{} {
	out := make(map[string]struct{}, len(m))
	for k := range m {
		out[k] = struct{}{}
	}
	return out
}
