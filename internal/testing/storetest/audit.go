package storetest

import (
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// auditTests check the audit on books built through the store.
var auditTests = []test{
	{"CleanBooks", testAuditCleanBooks},
	{"Gauges", testGauges},
}

// testGauges: the metrics' totals count the orders processing and sum
// every account's balance, on an empty store too.
func testGauges(t *testing.T, e *env) {
	g, err := e.s.Gauges(e.ctx)
	if err != nil || g != (topupd.Gauges{}) {
		t.Fatalf("Gauges of an empty store: %+v, %v", g, err)
	}
	e.catalog()
	a := e.account("a", topupd.USD(100))
	b := e.account("b", topupd.USD(7))
	e.stock(pidKey, 2)
	e.place(a.ID, topup("G-1"), t0)
	e.place(a.ID, topup("G-2"), t0)
	e.place(b.ID, keys(pidKey, "G-3", 1), t0)
	g, err = e.s.Gauges(e.ctx)
	want := topupd.Gauges{Processing: 2, Balances: topupd.USD(107) - 2*priceTopup - priceKey}
	if err != nil || g != want {
		t.Errorf("Gauges: %+v, %v; want %+v", g, err, want)
	}
}

// testAuditCleanBooks: books built through the store pass every check.
// An order still processing breaks nothing within its deadline and
// FinalGrace (a live server always has some); past them, orders-final
// names it.
func testAuditCleanBooks(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	e.stock(pidKey, 5)
	e.place(a.ID, topupd.OrderRequest{PID: pidKey, TrxID: "T-K", Quantity: 3}, t0)
	ok := e.place(a.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-OK", Fields: topupd.AccountFields{UserID: userID}}, t0)
	bad := e.place(a.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-BAD", Fields: topupd.AccountFields{UserID: userID}}, t0)
	open := e.place(a.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-OPEN", Fields: topupd.AccountFields{UserID: userID}}, t0)
	e.settle(ok, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0.Add(time.Second)})
	e.settle(bad, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0.Add(time.Second)})
	for _, at := range []struct {
		name string
		now  time.Time
		late bool // T-OPEN is past its deadline and the grace
	}{
		{"within the deadline", t0.Add(time.Second), false},
		{"past the deadline, within the grace", open.DeadlineAt.Add(topupd.FinalGrace - time.Second), false},
		{"past the deadline and the grace", open.DeadlineAt.Add(topupd.FinalGrace + time.Second), true},
	} {
		au, err := e.s.Audit(e.ctx, at.now)
		if err != nil {
			t.Fatal(err)
		}
		if au.Accounts != 1 || au.Orders != 4 || au.LedgerEntries != 6 {
			t.Errorf("%s: audit counts: %d accounts, %d orders, %d entries; want 1, 4, 6", at.name, au.Accounts, au.Orders, au.LedgerEntries)
		}
		for _, c := range au.Checks {
			want := 0
			if c.Name == "orders-final" && at.late {
				want = 1
				if len(c.Examples) != 1 || c.Examples[0] != open.ID {
					t.Errorf("%s: orders-final names %v, want %s", at.name, c.Examples, open.ID)
				}
			}
			if c.Violations != want {
				t.Errorf("%s: check %s: %d violations %v, want %d", at.name, c.Name, c.Violations, c.Examples, want)
			}
		}
		if au.OK() == at.late {
			t.Errorf("%s: audit OK is %v", at.name, au.OK())
		}
	}
}
