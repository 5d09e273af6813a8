package httpapi_test

import (
	"encoding/csv"
	"encoding/json"
	"maps"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestSalesReport, on SQLite and PostgreSQL: three days of orders on a clock the test moves, of two
// accounts over sim, manual and key packs, completed, refused and refunded,
// cancelled without a refund and left processing. Over whole days, over
// periods that start and end inside a day and inside one day, every
// grouping sums what a count of the admin order list does; the CSV holds
// the JSON's rows; bad parameters are 400 naming the parameter.
func TestSalesReport(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		testSalesReport(t, clock, topupdtest.New(t, append(db, topupdtest.WithClock(clock))...))
	})
}

// testSalesReport is TestSalesReport on one store.
func testSalesReport(t *testing.T, clock *topupdtest.Clock, h *topupdtest.T) {
	h.LoadCatalog()
	h.AddStock(topupdtest.PIDKey, 40)
	accounts := []topupdtest.Account{h.NewAccount("500", nil), h.NewAccount("500", nil)}
	costs := map[string]string{topupdtest.PIDPubg: "0.61", topupdtest.PIDPubgManual: "0.7", topupdtest.PIDKey: "1.0001"}
	for pid, cost := range costs {
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+pid, map[string]any{"costUsd": json.Number(cost)})
	}
	start := clock.Now()
	rng := mrand.New(mrand.NewPCG(3, 4))
	var waits []func()
	for i := range 40 {
		clock.Advance(time.Duration(20+rng.IntN(200)) * time.Minute)
		a := accounts[i%2]
		switch rng.IntN(5) {
		case 0, 1: // sim: completes, or refuses the player and refunds
			user := []string{"5123", "99990001"}[rng.IntN(2)]
			id := h.Place(a, order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": user}).Str("orderId")
			waits = append(waits, func() { h.WaitOrder(a, id) })
		case 2: // manual: completed, cancelled without a refund, or left processing
			id := h.Place(a, order{"pid": topupdtest.PIDPubgManual, "trxid": h.Trx(), "userId": "5123"}).Str("orderId")
			switch rng.IntN(3) {
			case 0:
				h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/complete", map[string]any{})
			case 1:
				h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/cancel", map[string]any{"error": "x", "refund": false})
			}
		default:
			h.Place(a, order{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1 + rng.IntN(2)})
		}
	}
	for _, wait := range waits {
		wait()
	}
	end := clock.Now().Add(time.Minute)
	orders, slugs := allAdminOrders(t, h), map[string]string{}
	for _, o := range orders {
		// Each completed order cost its pack's cost per unit, and nothing
		// else has a cost.
		var want *client.Money
		if o.Status == client.StatusCompleted {
			unit, _ := client.ParseMoney(costs[o.PID])
			c := unit * client.Money(max(o.Quantity, 1))
			want = &c
		}
		if diff := cmp.Diff(want, o.CostUSD); diff != "" {
			t.Errorf("order %s (%s, %s): cost (-want +got):\n%s", o.OrderID, o.PID, o.Status, diff)
		}
	}
	// A cost fixed on an order stays: a new pack cost changes no report.
	for pid := range costs {
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+pid, map[string]any{"costUsd": json.Number("0.01")})
	}
	products, err := h.AdminClient.Products(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range products {
		slugs[p.PID] = p.Slug
	}
	day := start.UTC().Truncate(24 * time.Hour)
	spans := [][2]time.Time{
		{start, end},
		{day, day.Add(96 * time.Hour)},
		{day.Add(24 * time.Hour), day.Add(48 * time.Hour)},
		{start.Add(5 * time.Hour), end.Add(-7 * time.Hour)},
		{day.Add(24*time.Hour + 3*time.Hour), day.Add(24*time.Hour + 15*time.Hour)},
		{day.Add(-72 * time.Hour), day.Add(-24 * time.Hour)},
	}
	for _, span := range spans {
		for _, by := range []string{"day", "line", "pack", "account", "provider"} {
			got, err := h.AdminClient.SalesReport(t.Context(), span[0], span[1], by)
			if err != nil {
				t.Fatalf("report by %s: %v", by, err)
			}
			want := countAdminSales(orders, span[0], span[1], func(o client.AdminOrder) string {
				return map[string]string{"day": o.CreatedAt.UTC().Format(time.DateOnly), "line": slugs[o.PID], "pack": o.PID,
					"account": o.AccountID, "provider": o.Provider}[by]
			})
			if diff := cmp.Diff(want, got.Rows); diff != "" {
				t.Errorf("report by %s of [%v, %v) (-counted +reported):\n%s", by, span[0], span[1], diff)
			}
			var total client.SalesRow
			for _, r := range want {
				total.Orders += r.Orders
				total.NetUSD += r.NetUSD
			}
			if got.Total.Orders != total.Orders || got.Total.NetUSD != total.NetUSD || got.Total.Key != "total" {
				t.Errorf("report by %s: total %+v, rows sum to %d orders, net %v", by, got.Total, total.Orders, total.NetUSD)
			}
		}
	}
	q := url.Values{"from": {start.Format(time.RFC3339Nano)}, "to": {end.Format(time.RFC3339Nano)}, "groupBy": {"account"}}
	report, err := h.AdminClient.SalesReport(t.Context(), start, end, "account")
	if err != nil {
		t.Fatal(err)
	}
	_, body := h.AdminText("/admin/reports/sales?"+q.Encode()+"&format=csv", h.Token)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantCSV := [][]string{salesCSVHeader}
	for _, r := range append(report.Rows, report.Total) {
		wantCSV = append(wantCSV, salesCSVRow(r))
	}
	if diff := cmp.Diff(wantCSV, rows); diff != "" {
		t.Errorf("CSV (-JSON's rows +CSV):\n%s", diff)
	}
	for q, param := range map[string]string{
		"": "from", "?from=2026-01-01T00:00:00Z": "from", "?from=x&to=2026-01-01T00:00:00Z": "from",
		"?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z":                          "from",
		"?from=2025-01-01T00:00:00Z&to=2026-02-01T00:00:00Z":                          "to",
		"?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&groupBy=week":             "groupBy",
		"?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&format=xml":               "format",
		"?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&limit=5":                  "limit",
		"?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&groupBy=day&groupBy=pack": "groupBy",
	} {
		r := h.AdminDo("GET", "/admin/reports/sales"+q, nil)
		if r.Status != 400 || r.Str("code") != "INVALID_REQUEST" || !strings.Contains(r.Str("detail"), param) {
			t.Errorf("report%s: %v, want 400 naming %s", q, r, param)
		}
	}
}

// allAdminOrders reads every order of the admin order list, page by page.
func allAdminOrders(t *testing.T, h *topupdtest.T) []client.AdminOrder {
	t.Helper()
	var all []client.AdminOrder
	q := client.AdminOrdersQuery{Limit: 500}
	for {
		page, err := h.AdminClient.Orders(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Orders...)
		if page.NextCursor == "" {
			return all
		}
		q.Cursor = page.NextCursor
	}
}

// countAdminSales is a sales report by brute force over the orders created
// in [from, to), keyed by key: a completed order's charge is in the margin
// with its cost when it has one, else in the revenue without cost.
func countAdminSales(orders []client.AdminOrder, from, to time.Time, key func(client.AdminOrder) string) []client.SalesRow {
	rows := map[string]*client.SalesRow{}
	for _, o := range orders {
		if o.CreatedAt.Before(from) || !o.CreatedAt.Before(to) {
			continue
		}
		k := key(o)
		r := rows[k]
		if r == nil {
			r = &client.SalesRow{Key: k}
			rows[k] = r
		}
		r.Orders++
		r.NetUSD += o.AmountUSD
		switch o.Status {
		case client.StatusCompleted:
			r.Completed++
			r.RevenueUSD += o.AmountUSD
			if o.CostUSD != nil {
				r.CostUSD += *o.CostUSD
				r.MarginUSD += o.AmountUSD - *o.CostUSD
			} else {
				r.RevenueWithoutCostUSD += o.AmountUSD
			}
		case client.StatusCancelled:
			r.Cancelled++
		default:
			r.Processing++
		}
		if o.Refunded {
			r.RefundsUSD += o.AmountUSD
			r.NetUSD -= o.AmountUSD
		}
	}
	out := []client.SalesRow{}
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		out = append(out, *rows[k])
	}
	return out
}
