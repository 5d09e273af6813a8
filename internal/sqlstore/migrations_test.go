package sqlstore

import (
	"fmt"
	"os"
	"slices"
	"testing"
)

// migrationDirs are the two stores' migrations, from this package's folder.
var migrationDirs = []string{"../../sqlite/migrations", "../../postgres/migrations"}

// TestMigrationsNumberedWithoutGaps: each store's migrations are numbered
// 1, 2, 3, … with no gap and no number twice, and the two stores have the
// same migrations under the same names, so that a schema version means one
// thing on both databases and a database of any earlier version migrates
// to the newest through every step.
func TestMigrationsNumberedWithoutGaps(t *testing.T) {
	var names [][]string
	for _, dir := range migrationDirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, e := range entries {
			v, ok := migrationVersion(e.Name())
			if !ok || e.IsDir() {
				t.Errorf("%s/%s: not a migration named NNNNN_name.sql", dir, e.Name())
				continue
			}
			if want := int64(i + 1); v != want {
				t.Errorf("%s: migration %d is %s, numbered %d: migrations are numbered without gaps", dir, i+1, e.Name(), v)
			}
			if e.Name() != fmt.Sprintf("%05d_%s", v, e.Name()[6:]) {
				t.Errorf("%s/%s: want five digits, an underscore and a name", dir, e.Name())
			}
			got = append(got, e.Name())
		}
		if top := SchemaVersion(os.DirFS(dir)); top != int64(len(got)) {
			t.Errorf("%s: SchemaVersion %d, want %d", dir, top, len(got))
		}
		names = append(names, got)
	}
	if !slices.Equal(names[0], names[1]) {
		t.Errorf("the stores' migrations differ:\nsqlite:   %v\npostgres: %v", names[0], names[1])
	}
}
