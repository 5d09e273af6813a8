package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

var reportTests = []test{
	{"SalesReport", testSalesReport},
}

// testSalesReport: five days of orders of three accounts over four packs,
// completed, cancelled with and without a refund, and still processing; the
// report of every grouping, over whole days, over ranges that start and end
// in the middle of a day, inside one day and outside the orders, sums
// exactly what a plain count of the orders does.
func testSalesReport(t *testing.T, e *env) {
	e.catalog()
	e.stock(pidKey, 30)
	e.stock(pidCard, 20)
	day0 := t0.Truncate(24 * time.Hour)
	accounts := []string{e.account("a", topupd.USD(1000)).ID, e.account("b", topupd.USD(1000)).ID, e.account("c", topupd.USD(1000)).ID}
	var orders []topupd.Order
	for i := range 40 {
		at := day0.Add(time.Duration(i) * (3*time.Hour + 7*time.Minute + 11*time.Second)) // about 5 days
		var req topupd.OrderRequest
		switch i % 4 {
		case 0, 1:
			req = topup(fmt.Sprintf("SR-%d", i))
		case 2:
			req = keys(pidKey, fmt.Sprintf("SR-%d", i), 1+i%3)
		case 3:
			req = keys(pidCard, fmt.Sprintf("SR-%d", i), 1)
		}
		o := e.place(accounts[i%3], req, at)
		if o.Status == topupd.StatusProcessing {
			st := topupd.Settlement{Now: at.Add(time.Minute)}
			switch i % 5 {
			case 0:
				st.Status = topupd.StatusCompleted
			case 1:
				st.Status, st.Error, st.Refund = topupd.StatusCancelled, "x", true
			case 2:
				st.Status, st.Error = topupd.StatusCancelled, "x"
			}
			if st.Status != "" {
				o = e.settle(o, st)
			}
		}
		orders = append(orders, o)
	}
	h := func(hours float64) time.Time { return day0.Add(time.Duration(hours * float64(time.Hour))) }
	spans := [][2]time.Time{
		{h(0), h(24 * 6)},         // whole days around every order
		{h(24), h(72)},            // whole days
		{h(13.5), h(24*3 + 5.25)}, // partial days at both ends
		{h(30), h(40)},            // inside one day
		{h(7.1), h(24 + 0.2)},     // partial, crossing one midnight
		{h(-48), h(-24)},          // before every order
		{h(24 * 10), h(24 * 11)},  // after every order
	}
	for _, span := range spans {
		for _, by := range topupd.SalesGroups {
			got, err := e.s.SalesReport(e.ctx, span[0], span[1], by)
			if err != nil {
				t.Fatalf("report by %s of %v: %v", by, span, err)
			}
			if diff := cmp.Diff(countSales(orders, span[0], span[1], by), got); diff != "" {
				t.Errorf("report by %s of [%v, %v) (-counted +reported):\n%s", by, span[0], span[1], diff)
			}
		}
	}
	au, err := e.s.Audit(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range au.Checks {
		if c.Name != "orders-final" && c.Violations != 0 {
			t.Errorf("check %s: %d violations %v", c.Name, c.Violations, c.Examples)
		}
	}
}

// countSales is the sales report by brute force: every order created in
// [from, to), one at a time.
func countSales(orders []topupd.Order, from, to time.Time, by topupd.SalesGroup) []topupd.SalesRow {
	rows := map[string]*topupd.SalesRow{}
	var keys []string
	for _, o := range orders {
		if o.CreatedAt.Before(from) || !o.CreatedAt.Before(to) {
			continue
		}
		key := map[topupd.SalesGroup]string{topupd.ByDay: topupd.Day(o.CreatedAt), topupd.ByLine: o.Slug, topupd.ByPack: o.PID,
			topupd.ByAccount: o.AccountID, topupd.ByProvider: o.Provider}[by]
		r := rows[key]
		if r == nil {
			r = &topupd.SalesRow{Key: key}
			rows[key] = r
			keys = append(keys, key)
		}
		r.Orders++
		r.Charged += o.Amount
		switch o.Status {
		case topupd.StatusCompleted:
			r.Completed++
			r.Revenue += o.Amount
		case topupd.StatusCancelled:
			r.Cancelled++
		default:
			r.Processing++
		}
		if o.Refunded {
			r.Refunds += o.Amount
		}
	}
	slices.Sort(keys)
	out := []topupd.SalesRow{}
	for _, k := range keys {
		out = append(out, *rows[k])
	}
	return out
}
