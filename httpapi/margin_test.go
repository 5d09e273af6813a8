package httpapi_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// salesGroupings are the groupings of a sales report, as the contract
// names them.
var salesGroupings = []string{"day", "line", "pack", "account", "provider"}

// salesCSVHeader is the header of a sales report's CSV: the names of its
// JSON rows' fields, in their order.
var salesCSVHeader = []string{"key", "orders", "completed", "cancelled", "processing", "revenueUsd", "refundsUsd", "netUsd", "costUsd",
	"marginUsd", "revenueWithoutCostUsd"}

// salesCSVRow is a JSON row of a sales report as its CSV spells it.
func salesCSVRow(r client.SalesRow) []string {
	return []string{r.Key, fmt.Sprint(r.Orders), fmt.Sprint(r.Completed), fmt.Sprint(r.Cancelled), fmt.Sprint(r.Processing),
		r.RevenueUSD.String(), r.RefundsUSD.String(), r.NetUSD.String(), r.CostUSD.String(), r.MarginUSD.String(),
		r.RevenueWithoutCostUSD.String()}
}

// checkSales reads the sales report of [from, to) by every grouping, as
// JSON and as CSV, and checks what every report must hold: each row's
// margin is its revenue less its revenue without cost less its cost; the
// total row's every count and amount is the sum of the rows'; the CSV has
// the JSON's rows, columns and numbers, the total row last. It returns
// the reports by grouping.
func checkSales(t *testing.T, h *topupdtest.T, from, to time.Time) map[string]client.SalesReport {
	t.Helper()
	out := map[string]client.SalesReport{}
	for _, by := range salesGroupings {
		rep, err := h.AdminClient.SalesReport(t.Context(), from, to, by)
		if err != nil {
			t.Fatalf("report by %s: %v", by, err)
		}
		sum := client.SalesRow{Key: "total"}
		for _, r := range append(rep.Rows, rep.Total) {
			if r.MarginUSD != r.RevenueUSD-r.RevenueWithoutCostUSD-r.CostUSD {
				t.Errorf("report by %s, row %s: margin %v, but revenue %v − without cost %v − cost %v is %v", by, r.Key, r.MarginUSD,
					r.RevenueUSD, r.RevenueWithoutCostUSD, r.CostUSD, r.RevenueUSD-r.RevenueWithoutCostUSD-r.CostUSD)
			}
		}
		for _, r := range rep.Rows {
			sum.Add(r)
		}
		if diff := cmp.Diff(sum, rep.Total); diff != "" {
			t.Errorf("report by %s of [%v, %v): the total is not the sum of the rows (-sum +total):\n%s", by, from, to, diff)
		}
		q := url.Values{"from": {from.Format(time.RFC3339Nano)}, "to": {to.Format(time.RFC3339Nano)}, "groupBy": {by}, "format": {"csv"}}
		status, body := h.AdminText("/admin/reports/sales?"+q.Encode(), h.Token)
		if status != http.StatusOK {
			t.Fatalf("report by %s as CSV: %d %s", by, status, body)
		}
		got, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("report by %s as CSV: %v", by, err)
		}
		want := [][]string{salesCSVHeader}
		for _, r := range append(rep.Rows, rep.Total) {
			want = append(want, salesCSVRow(r))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("report by %s: the CSV is not the JSON (-JSON +CSV):\n%s", by, diff)
		}
		out[by] = rep
	}
	return out
}

// salesKeyOf names the row of a grouping an order counts in.
func salesKeyOf(by string, slugs map[string]string) func(client.AdminOrder) string {
	return func(o client.AdminOrder) string {
		return map[string]string{"day": o.CreatedAt.UTC().Format(time.DateOnly), "line": slugs[o.PID], "pack": o.PID,
			"account": o.AccountID, "provider": o.Provider}[by]
	}
}

// packSlugs maps each pid to its line's slug.
func packSlugs(t *testing.T, h *topupdtest.T) map[string]string {
	t.Helper()
	products, err := h.AdminClient.Products(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slugs := map[string]string{}
	for _, p := range products {
		slugs[p.PID] = p.Slug
	}
	return slugs
}

// TestOneMargin (back-office.md 4 (f)), on SQLite and PostgreSQL: over
// three days, orders with a known cost (a pack's, a supplier's in the
// pack's list, a stock batch's, the pack's for a code of a batch without
// one), orders without (a pack without a cost; gift cards of codes from
// before batches had costs, the operators' "Cost 0.00, Margin 20.40"; a
// draw that mixes a costed batch's code with one of none), refunded,
// cancelled and processing ones:
//   - the admin order view has costUsd and marginUsd (the charge less the
//     cost) exactly when the cost is known, never 0 for an unknown one;
//   - every grouping's report, over whole days (the roll-ups) and over a
//     span that starts and ends inside days (the orders), sums what a
//     count of the orders does, its total the sum of its rows, its margin
//     revenue − revenueWithoutCost − cost in every row, its CSV its JSON;
//   - the totals are the orders' own sums: margin 3.55 = 0.45 + 1.40 +
//     1.20 + 0.50, whatever the grouping (the by-day Total once said
//     $21.20 against its rows' $133,602.42).
func TestOneMargin(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		testOneMargin(t, clock, topupdtest.New(t, append(db, topupdtest.WithClock(clock))...))
	})
}

// testOneMargin is TestOneMargin on one store.
func testOneMargin(t *testing.T, clock *topupdtest.Clock, h *topupdtest.T) {
	h.LoadCatalog()
	a, b := h.NewAccount("500", nil), h.NewAccount("500", nil)
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgBig, map[string]any{"costUsd": topupdtest.USD("4")})
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgManual, map[string]any{
		"suppliers": []any{map[string]any{"provider": "manual", "costUsd": topupdtest.USD("1.5")}}})
	batch := func(n int, cost string) {
		t.Helper()
		codes := make([]string, n)
		for i := range codes {
			codes[i] = fmt.Sprintf("MARGIN-%s-%d-%d", cost, i, clock.Now().UnixNano())
		}
		u := client.StockUpload{}
		if cost != "" {
			c := topupdtest.ParseClientUSD(t, cost)
			u.CostUSD = &c
		}
		if _, err := h.AdminClient.AddStockBatch(t.Context(), topupdtest.PIDGift, codes, u); err != nil {
			t.Fatalf("uploading %d codes at %q: %v", n, cost, err)
		}
	}
	var waits []func()
	place := func(acc topupdtest.Account, body map[string]any) string {
		t.Helper()
		body["trxid"] = h.Trx()
		id := h.Place(acc, body).Str("orderId")
		waits = append(waits, func() { h.WaitOrder(acc, id) })
		clock.Advance(17 * time.Minute)
		return id
	}
	day := clock.Now().UTC().Truncate(24 * time.Hour)
	start := clock.Now()

	// Day 1.
	o1 := place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123"})     // completed, no cost: 0.89
	o2 := place(a, map[string]any{"pid": topupdtest.PIDPubgBig, "userId": "5123"})  // completed at the pack's 4.00: 4.45
	o3 := place(b, map[string]any{"pid": topupdtest.PIDPubg, "userId": "99990001"}) // refused and refunded: 0.89
	o4 := place(a, map[string]any{"pid": topupdtest.PIDGift, "quantity": 2})        // codes of no cost: 20.40
	// Day 2: three codes at 9.50, behind the three left of no cost.
	clock.Advance(24 * time.Hour)
	batch(3, "9.5")
	o5 := place(b, map[string]any{"pid": topupdtest.PIDGift, "quantity": 3}) // the last of no cost: 30.60
	o6 := place(a, map[string]any{"pid": topupdtest.PIDGift, "quantity": 2}) // 2 × 9.50 = 19.00: 20.40
	// Day 3: two codes of a batch without a cost; then the pack costs 9.
	clock.Advance(24 * time.Hour)
	batch(2, "")
	o7 := place(b, map[string]any{"pid": topupdtest.PIDGift, "quantity": 2}) // 9.50 and none: no cost, 20.40
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDGift, map[string]any{"costUsd": topupdtest.USD("9")})
	o8 := place(a, map[string]any{"pid": topupdtest.PIDGift, "quantity": 1})           // a batch of none, the pack's 9.00: 10.20
	o9 := place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123"})  // completed at its supplier's 1.50: 2.00
	o10 := place(b, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123"}) // cancelled and refunded: 2.00
	place(b, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123"})        // left processing: 2.00
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o9+"/complete", map[string]any{})
	h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+o10+"/cancel", map[string]any{"error": "x", "refund": true})
	for _, w := range waits[:3] {
		w()
	}
	end := clock.Now()

	// The order view: a cost and a margin exactly when the cost is known.
	known := map[string][2]string{o2: {"4", "0.45"}, o6: {"19", "1.4"}, o8: {"9", "1.2"}, o9: {"1.5", "0.5"}}
	for _, id := range []string{o1, o2, o3, o4, o5, o6, o7, o8, o9, o10} {
		r := h.AdminDo("GET", "/admin/orders/"+id, nil)
		want, ok := known[id]
		switch {
		case r.Status != http.StatusOK:
			t.Fatalf("GET /admin/orders/%s: %v", id, r)
		case ok && (r.Num("costUsd") != want[0] || r.Num("marginUsd") != want[1]):
			t.Errorf("order %s (%s): costUsd %q, marginUsd %q; want %s, %s", id, r.Str("pid"), r.Num("costUsd"), r.Num("marginUsd"), want[0], want[1])
		case !ok && (r.Has("costUsd") || r.Has("marginUsd")):
			t.Errorf("order %s (%s, %s) has no known cost, yet shows costUsd %q, marginUsd %q", id, r.Str("pid"), r.Str("status"),
				r.Num("costUsd"), r.Num("marginUsd"))
		}
	}
	if got := h.AdminOrder(o4); got.Status != client.StatusCompleted || got.CostUSD != nil || got.MarginUSD != nil {
		t.Errorf("the gift-card order of codes without a cost: %s, cost %v, margin %v; want completed, neither", got.Status, got.CostUSD, got.MarginUSD)
	}

	orders, slugs := allAdminOrders(t, h), packSlugs(t, h)
	want := client.SalesRow{Key: "total", Orders: 11, Completed: 8, Cancelled: 2, Processing: 1, RevenueUSD: usdc(t, "109.34"),
		RefundsUSD: usdc(t, "2.89"), NetUSD: usdc(t, "109.34") + usdc(t, "2"), CostUSD: usdc(t, "33.5"), MarginUSD: usdc(t, "3.55"),
		RevenueWithoutCostUSD: usdc(t, "72.29")}
	for _, span := range [][2]time.Time{{day, day.Add(72 * time.Hour)}, {day.Add(-48 * time.Hour), day.Add(96 * time.Hour)}, {start, end},
		{start.Add(30 * time.Minute), end.Add(-time.Hour)}, {day.Add(24 * time.Hour), day.Add(48 * time.Hour)}} {
		reports := checkSales(t, h, span[0], span[1])
		for _, by := range salesGroupings {
			rep := reports[by]
			if diff := cmp.Diff(countAdminSales(orders, span[0], span[1], salesKeyOf(by, slugs)), rep.Rows); diff != "" {
				t.Errorf("report by %s of [%v, %v) (-counted +reported):\n%s", by, span[0], span[1], diff)
			}
			if span[0].After(start) || span[1].Before(end) {
				continue
			}
			if diff := cmp.Diff(want, rep.Total); diff != "" {
				t.Errorf("report by %s of every order: the total (-want +got):\n%s", by, diff)
			}
		}
		if got := reports["day"]; span == [2]time.Time{day, day.Add(72 * time.Hour)} && len(got.Rows) != 3 {
			t.Errorf("report by day of three days: %d rows, want 3", len(got.Rows))
		}
	}
}

// usdc reads an amount of USD as the client holds it.
func usdc(t *testing.T, s string) client.Money { return topupdtest.ParseClientUSD(t, s) }
