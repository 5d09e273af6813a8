package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/benchdata"
)

// BenchmarkSalesReport reads a 30-day sales report, starting and ending
// in the middle of a day, over 1,000,000 orders of 60 days, by each
// grouping; "orders-only" sums the same 30 days straight from the orders,
// as a report without daily roll-ups would.
func BenchmarkSalesReport(b *testing.B) {
	s := openTest(b)
	end := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)
	seedSales(b, s, 1_000_000, end.Add(-60*24*time.Hour), end)
	from, to := end.Add(-45*24*time.Hour+13*time.Hour), end.Add(-15*24*time.Hour+13*time.Hour)
	for _, by := range topupd.SalesGroups {
		b.Run("by="+string(by), func(b *testing.B) {
			for b.Loop() {
				rows, err := s.SalesReport(context.Background(), from, to, by)
				if err != nil || len(rows) == 0 {
					b.Fatalf("%d rows: %v", len(rows), err)
				}
			}
		})
	}
	b.Run("orders-only", func(b *testing.B) {
		for b.Loop() {
			var n int64
			err := s.read.QueryRow(`SELECT COUNT(*) FROM (SELECT account_id, COUNT(*), SUM(amount) FROM orders
				WHERE created_at >= $1 AND created_at < $2 GROUP BY account_id)`, from.UnixMilli(), to.UnixMilli()).Scan(&n)
			if err != nil || n == 0 {
				b.Fatalf("%d rows: %v", n, err)
			}
		}
	})
}

// BenchmarkDurations reads the 30-day report of time to final per line
// over 1,000,000 orders of 60 days, from the daily roll-ups;
// "orders-only" reads the same days' final orders' durations per line,
// sorted, as percentiles without roll-ups would need.
func BenchmarkDurations(b *testing.B) {
	s := openTest(b)
	end := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)
	seedSales(b, s, 1_000_000, end.Add(-60*24*time.Hour), end)
	from, to := end.Add(-45*24*time.Hour+13*time.Hour), end.Add(-15*24*time.Hour+13*time.Hour)
	b.Run("roll-ups", func(b *testing.B) {
		for b.Loop() {
			rows, err := s.Durations(context.Background(), from, to)
			if err != nil || len(rows) != 4 {
				b.Fatalf("%d rows: %v", len(rows), err)
			}
		}
	})
	b.Run("orders-only", func(b *testing.B) {
		first, end := topupd.WholeDays(from, to)
		for b.Loop() {
			var n int64
			err := s.read.QueryRow(`SELECT COUNT(*) FROM (SELECT slug, finished_at - created_at AS d FROM orders
				WHERE created_at >= $1 AND created_at < $2 AND status <> 'processing' ORDER BY slug, d)`,
				first.UnixMilli(), end.UnixMilli()).Scan(&n)
			if err != nil || n == 0 {
				b.Fatalf("%d rows: %v", n, err)
			}
		}
	})
}

// seedSales writes n orders of 50 accounts over 20 packs of 4 lines and 3
// providers, spread evenly over [from, to), completed, cancelled (half of
// them refunded) and processing, final within 0 to 10 minutes, straight
// into the tables (internal/testing/benchdata), and rolls them up as the migrations that made
// sales_daily and durations_daily do; fast, for read benchmarks only.
func seedSales(b *testing.B, s *Store, n int, from, to time.Time) {
	b.Helper()
	ctx := context.Background()
	accounts := make([]string, 50)
	for a := range accounts {
		accounts[a] = fmt.Sprintf("acc_%02d", a)
		if _, err := s.CreateAccount(ctx, nil, topupd.Account{ID: accounts[a], Name: "shop", APIEnabled: true, CreatedAt: from}); err != nil {
			b.Fatal(err)
		}
	}
	if err := benchdata.Seed(ctx, s.write, benchdata.Orders{N: n, From: from, To: to, Accounts: accounts}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOrderListPage reads a page of 50 of the admin order list over
// 1,000,000 orders: the first page, and a page deep in the list (page
// 10,000 of the whole list; 90% of the way down a filtered one), with no
// filter, each filter, and within a period.
func BenchmarkOrderListPage(b *testing.B) {
	s := openTest(b)
	end := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)
	seedSales(b, s, 1_000_000, end.Add(-60*24*time.Hour), end)
	for _, c := range []struct {
		name string
		q    topupd.OrdersQuery
	}{
		{"all", topupd.OrdersQuery{}},
		{"status", topupd.OrdersQuery{Status: topupd.StatusCompleted}},
		{"account", topupd.OrdersQuery{AccountID: "acc_07"}},
		{"pack", topupd.OrdersQuery{PID: "pack-03"}},
		{"line", topupd.OrdersQuery{Slug: "line-1"}},
		{"provider", topupd.OrdersQuery{Provider: "manual"}},
		{"period", topupd.OrdersQuery{From: end.Add(-40 * 24 * time.Hour), To: end.Add(-10 * 24 * time.Hour)}},
		{"pack-in-period", topupd.OrdersQuery{PID: "pack-03", From: end.Add(-40 * 24 * time.Hour), To: end.Add(-10 * 24 * time.Hour)}},
	} {
		all, err := s.Orders(context.Background(), topupd.OrdersQuery{Status: c.q.Status, AccountID: c.q.AccountID, PID: c.q.PID,
			Slug: c.q.Slug, Provider: c.q.Provider, From: c.q.From, To: c.q.To, Limit: 1_000_000})
		if err != nil {
			b.Fatal(err)
		}
		page := min(10_000, len(all)*9/10/50)
		last := all[page*50-1]
		for _, p := range []struct {
			n      int
			cursor *topupd.ListKey
		}{{1, nil}, {page + 1, &topupd.ListKey{At: last.CreatedAt, Seq: last.Seq}}} {
			b.Run(fmt.Sprintf("%s/page=%d", c.name, p.n), func(b *testing.B) {
				q := c.q
				q.Before, q.Limit = p.cursor, 50
				for b.Loop() {
					orders, err := s.Orders(context.Background(), q)
					if err != nil || len(orders) != 50 {
						b.Fatalf("%d orders: %v", len(orders), err)
					}
				}
			})
		}
	}
}
