package storetest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Guard is a statement the schema itself must refuse, and what its error
// must say: each store's tests list theirs in their own SQL dialect.
type Guard struct {
	Name string
	SQL  string
	Args []any
	Want string // in the error
}

// Control is the same kind of statement done right, which must pass.
type Control struct {
	Name string
	SQL  string
	Args []any
}

// Refused is a Guard: name, the statement and its arguments, and what the
// refusal must say.
func Refused(name, sql string, args []any, want string) Guard {
	return Guard{Name: name, SQL: sql, Args: args, Want: want}
}

// Accepted is a Control: name, and the statement and its arguments.
func Accepted(name, sql string, args []any) Control {
	return Control{Name: name, SQL: sql, Args: args}
}

// RunGuards checks, on a connection straight to the database, that each
// guard is refused for its own reason and changes nothing that money,
// stock or orders depend on (what the dump queries read), then that each
// control passes: the guards refuse only what is wrong.
func RunGuards(t *testing.T, db *sql.DB, dump []string, guards []Guard, controls []Control) {
	t.Helper()
	for _, g := range guards {
		t.Run(g.Name, func(t *testing.T) {
			before := Dump(t, db, dump)
			_, err := db.Exec(g.SQL, g.Args...)
			if err == nil {
				t.Fatalf("the database accepted it")
			}
			if !strings.Contains(err.Error(), g.Want) {
				t.Errorf("refused for another reason: %v; want %q", err, g.Want)
			}
			if diff := cmp.Diff(before, Dump(t, db, dump)); diff != "" {
				t.Errorf("a refused statement changed the data (-before +after):\n%s", diff)
			}
		})
	}
	for _, c := range controls {
		if _, err := db.Exec(c.SQL, c.Args...); err != nil {
			t.Errorf("control %q refused: %v", c.Name, err)
		}
	}
}

// Dump renders every row the queries read, one line a row.
func Dump(t *testing.T, db *sql.DB, queries []string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range queries {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("dump: %v", err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("dump: %v", err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}
