package sqlite

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/sqlstore"
)

func openTest(t testing.TB) *Store {
	t.Helper()
	secret := make([]byte, topupd.SecretKeySize)
	rand.Read(secret)
	v, err := topupd.NewVault(secret)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"), v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestHotQueriesUseIndexes asks SQLite how it runs each hot query: every
// table must be reached through an index (no full scan, no sort), so that a
// query costs the same whatever the size of the tables, and a page of a
// list must seek to its cursor, so that it costs the same at any depth.
func TestHotQueriesUseIndexes(t *testing.T) {
	s := openTest(t)
	hot := sqlstore.HotQueries(dialect)
	if len(hot) < 10 {
		t.Fatalf("only %d hot queries to check", len(hot))
	}
	for _, q := range hot {
		rows, err := s.write.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q.SQL, q.Args...)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, step := range plan {
			full := strings.HasPrefix(step, "SCAN ") && !strings.Contains(step, " USING ") && step != "SCAN CONSTANT ROW"
			if full || strings.Contains(step, "TEMP B-TREE") {
				t.Errorf("%s is not served by an index:\n  %s", q.Name, strings.Join(plan, "\n  "))
				break
			}
		}
		if q.Cursor != "" && !seeksCursor(plan, q.Cursor) {
			t.Errorf("%s does not seek to its cursor on %s:\n  %s", q.Name, q.Cursor, strings.Join(plan, "\n  "))
		}
		if q.After != "" && !seeksAfter(plan, q.After) {
			t.Errorf("%s does not seek to its position on %s:\n  %s", q.Name, q.After, strings.Join(plan, "\n  "))
		}
	}
}

// seeksCursor reports whether a plan's index search bounds col from above
// (col<? or, as a row value, (col,…)<(…)): a page then starts at its
// cursor rather than reading every row before it.
func seeksCursor(plan []string, col string) bool {
	for _, step := range plan {
		if i := strings.Index(step, " USING "); strings.HasPrefix(step, "SEARCH ") && i > 0 {
			cond := step[i:]
			if strings.Contains(cond, " "+col+"<?") || strings.Contains(cond, "("+col+"<?") || strings.Contains(cond, "("+col+",") {
				return true
			}
		}
	}
	return false
}

// seeksAfter reports whether a plan's index search bounds col from below
// (col>?): a read of a stream then starts at its position, where a search
// on the index's first column alone ((tx>?) for the row value (tx, seq) >
// (…), tx being 0 on SQLite) reads every event before it too.
func seeksAfter(plan []string, col string) bool {
	for _, step := range plan {
		if i := strings.Index(step, " USING "); strings.HasPrefix(step, "SEARCH ") && i > 0 && strings.Contains(step[i:], col+">?") {
			return true
		}
	}
	return false
}

// BenchmarkHistoryPage reads the first and a deep page of one account's
// history at 1,000, 100,000 and 1,000,000 orders; the cost per page
// should not grow with the size.
func BenchmarkHistoryPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		s := openTest(b)
		seedOrders(b, s, "acc_big", n)
		for _, offset := range []int{0, n / 2} {
			b.Run(fmt.Sprintf("orders=%d/offset=%d", n, offset), func(b *testing.B) {
				for b.Loop() {
					orders, total, err := s.History(context.Background(), "acc_big", topupd.HistoryQuery{Offset: offset, Limit: 50})
					if err != nil || len(orders) != 50 || total != n {
						b.Fatalf("%d orders of %d: %v", len(orders), total, err)
					}
				}
			})
		}
	}
}

// seedOrders writes n completed orders for one account straight into the
// tables; fast, for read benchmarks only.
func seedOrders(b *testing.B, s *Store, account string, n int) {
	b.Helper()
	ctx := context.Background()
	now := time.Now()
	if _, err := s.CreateAccount(ctx, nil, topupd.Account{ID: account, Name: "big", APIEnabled: true, CreatedAt: now}); err != nil {
		b.Fatal(err)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind,
		pack_name, provider, quantity, amount, status, created_at, finished_at, deadline_at, cost)
		VALUES ($1, $2, $3, $4, $4, 'f', 'p', 's', 'g', 'topup', 'pack', 'sim', 1, 10000, 'completed', $5, $5, $5, 8000)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := stmt.ExecContext(ctx, fmt.Sprintf("ord_%d", i), account, i, fmt.Sprintf("t-%d", i), now.UnixMilli()); err != nil {
			b.Fatal(err)
		}
	}
	stmt.Close()
	if _, err := tx.ExecContext(ctx, `UPDATE accounts SET order_count = $2 WHERE id = $1`, account, n); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
