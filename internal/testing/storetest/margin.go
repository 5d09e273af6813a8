package storetest

import (
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// UnknownCostsMigration checks migration 00042 (one margin) on a store's
// database. open opens the store on it (migrating it up to the newest
// version; the check closes what it opens), down takes it back to 00041,
// and db reads it with plain SQL.
//
// Orders completed through the store, each as the new code fixes its cost:
// a top-up of a pack without a cost and a gift card of a batch without one
// (no known cost), a key of a batch that cost 0 (a known 0), and a top-up
// of a pack with a cost. Down makes the database what the code before
// 00042 wrote: every completed order has a cost, 0 for the unknown ones,
// and sales_daily has no revenue without cost. Up again must tell the two
// zeros apart as the new code did (the unknown ones NULL, the batch's 0
// kept), refill the roll-up so that every report reads as before, and
// leave the audit clean.
func UnknownCostsMigration(t *testing.T, open func(t *testing.T) topupd.Store, down func(t *testing.T), db *sql.DB) {
	e := newEnv(t, open)
	first, closed := e.s, false
	t.Cleanup(func() {
		if !closed {
			first.Close()
		}
	})
	e.catalog()
	if _, err := e.s.UpdatePack(e.ctx, nil, pidZone, func(p *topupd.Pack) error { p.Cost = 4_000; return nil }); err != nil {
		t.Fatal(err)
	}
	e.upload(pidKey, []string{"MIG-KEY-1", "MIG-KEY-2"}, topupd.StockUpload{Cost: money(0)})
	e.upload(pidCard, []string{"MIG-CARD-1"}, topupd.StockUpload{})
	a := e.account("a", topupd.USD(1000))
	day := t0.Truncate(24 * time.Hour)
	complete := func(o topupd.Order) topupd.Order {
		return e.settle(o, topupd.Settlement{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, Now: o.CreatedAt.Add(time.Minute)})
	}
	orders := []topupd.Order{
		complete(e.place(a.ID, topup("MIG-1"), day.Add(time.Hour))),
		e.place(a.ID, keys(pidKey, "MIG-2", 2), day.Add(2*time.Hour)),
		e.place(a.ID, keys(pidCard, "MIG-3", 1), day.Add(25*time.Hour)),
		complete(e.place(a.ID, topupd.OrderRequest{PID: pidZone, TrxID: "MIG-4", Fields: topupd.AccountFields{UserID: userID, ZoneID: "1"}},
			day.Add(26*time.Hour))),
		e.place(a.ID, topup("MIG-5"), day.Add(27*time.Hour)), // still processing
	}
	zero, four := topupd.Money(0), topupd.Money(4_000)
	want := map[string]*topupd.Money{orders[0].ID: nil, orders[1].ID: &zero, orders[2].ID: nil, orders[3].ID: &four, orders[4].ID: nil}
	costs := func(when string) {
		t.Helper()
		got := map[string]*topupd.Money{}
		for _, o := range orders {
			got[o.ID] = e.order(o.ID).Cost
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the orders' costs (-want +got):\n%s", when, diff)
		}
	}
	costs("before the migration's down")
	span := [2]time.Time{day, day.Add(72 * time.Hour)}
	reports := func() map[topupd.SalesGroup][]topupd.SalesRow {
		t.Helper()
		out := map[topupd.SalesGroup][]topupd.SalesRow{}
		for _, by := range topupd.SalesGroups {
			rows, err := e.s.SalesReport(e.ctx, span[0], span[1], by)
			if err != nil {
				t.Fatalf("SalesReport by %s: %v", by, err)
			}
			out[by] = rows
		}
		return out
	}
	before := reports()
	if got := before[topupd.ByDay]; len(got) != 2 || got[0].RevenueWithoutCost != priceTopup || got[1].RevenueWithoutCost != priceCard {
		t.Errorf("the report by day: %+v; want a revenue without cost of %v, then %v", got, priceTopup, priceCard)
	}
	closed = true
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	down(t)
	var unknown, zeros int
	if err := db.QueryRow(`SELECT COUNT(*) FILTER (WHERE cost IS NULL), COUNT(*) FILTER (WHERE cost = 0) FROM orders WHERE status = 'completed'`).
		Scan(&unknown, &zeros); err != nil || unknown != 0 || zeros != 3 {
		t.Fatalf("at 00041: %d completed orders without a cost, %d costing 0 (%v); want 0 and 3, as the code before wrote them", unknown, zeros, err)
	}
	if _, err := db.Exec(`SELECT revenue_without_cost FROM sales_daily`); err == nil {
		t.Fatal("at 00041, sales_daily still has revenue_without_cost")
	}

	e = newEnv(t, open)
	again := e.s
	t.Cleanup(func() { again.Close() })
	costs("after the migration, again")
	if diff := cmp.Diff(before, reports()); diff != "" {
		t.Errorf("the reports after the migration (-before +after):\n%s", diff)
	}
	e.auditClean()
}
