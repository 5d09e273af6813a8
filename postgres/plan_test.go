package postgres_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/postgres"
)

// TestHotQueriesUseIndexes asks PostgreSQL how it would run each hot query
// with sequential scans and sorts priced out: a query that still needs one
// has no index to serve it, and would cost more as the tables grow. A page
// of a list must seek to its cursor, so that it costs the same at any depth.
func TestHotQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	dbURL := newDB(t)
	openStore(t, dbURL, storetest.NewVault(t)) // migrates
	conn, err := rawDB(t, dbURL).Conn(t.Context())
	must(t, err)
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), `SET enable_seqscan = off; SET enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	if len(postgres.HotQueries) < 10 {
		t.Fatalf("only %d hot queries to check", len(postgres.HotQueries))
	}
	for _, q := range postgres.HotQueries {
		var out string
		if err := conn.QueryRowContext(t.Context(), "EXPLAIN (FORMAT JSON) "+q.SQL, q.Args...).Scan(&out); err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		var plans []struct{ Plan node }
		if err := json.Unmarshal([]byte(out), &plans); err != nil || len(plans) != 1 {
			t.Fatalf("%s: plan %s: %v", q.Name, out, err)
		}
		var steps []string
		plans[0].Plan.walk(func(n node) { steps = append(steps, n.Type+" "+n.Index) })
		for _, s := range steps {
			if strings.HasPrefix(s, "Seq Scan") || strings.HasPrefix(s, "Sort") {
				t.Errorf("%s is not served by an index:\n  %s", q.Name, strings.Join(steps, "\n  "))
				break
			}
		}
		if q.Cursor != "" {
			seeks := false
			plans[0].Plan.walk(func(n node) { seeks = seeks || strings.Contains(n.Cond, "ROW("+q.Cursor+", ") })
			if !seeks {
				t.Errorf("%s does not seek to its cursor on %s: %s", q.Name, q.Cursor, out)
			}
		}
	}
}

// node is one step of a JSON query plan.
type node struct {
	Type  string `json:"Node Type"`
	Index string `json:"Index Name"`
	// Cond is the condition the index seeks by (not a filter of its rows).
	Cond  string `json:"Index Cond"`
	Plans []node `json:"Plans"`
}

// walk calls fn on n and every step below it.
func (n node) walk(fn func(node)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}
