package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// eventTests check the history of an order.
var eventTests = []test{
	{"OrderEvents", testOrderEvents},
	{"OrderEntries", testOrderEntries},
	{"StuckCounts", testStuckCounts},
}

// testStuckCounts: a processing order with an alert is stuck at once, one
// past its deadline from then on; final orders never are; each supplier's
// count is what the stuck list holds.
func testStuckCounts(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	alerted := e.place(a.ID, topup("SC-1"), t0)
	e.place(a.ID, topup("SC-2"), t0)
	done := e.place(a.ID, topup("SC-3"), t0)
	e.settle(alerted, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Hour), Now: t0,
		Alert: topupd.AlertPastDeadline})
	e.settle(done, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0})
	for _, c := range []struct {
		now  time.Time
		want int
	}{{t0, 1}, {t0.Add(deadline + time.Millisecond), 2}} {
		got, err := e.s.StuckCounts(e.ctx, c.now)
		if err != nil {
			t.Fatal(err)
		}
		listed, err := e.s.Orders(e.ctx, topupd.OrdersQuery{Stuck: true, Now: c.now, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		want := []topupd.StuckCount{{Provider: alerted.Provider, Upstream: alerted.Upstream, Orders: c.want}}
		if diff := cmp.Diff(want, got); diff != "" || len(listed) != c.want {
			t.Errorf("at %v: %d listed; counts (-want +got):\n%s", c.now, len(listed), diff)
		}
	}
}

// testOrderEntries: an order's ledger entries are its charge and, once it
// is refunded, its refund, oldest first, and no other order's or credit's.
func testOrderEntries(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	o := e.place(a.ID, topup("LE-1"), t0)
	other := e.place(a.ID, topup("LE-2"), t0)
	entries := func(seq int64) []topupd.LedgerEntry {
		t.Helper()
		got, err := e.s.OrderEntries(e.ctx, seq)
		if err != nil {
			t.Fatalf("OrderEntries %d: %v", seq, err)
		}
		return got
	}
	if got := entries(o.Seq); len(got) != 1 || got[0].Kind != topupd.EntryCharge || got[0].Amount != -o.Amount || got[0].OrderID != o.ID {
		t.Errorf("a new order's entries: %+v", got)
	}
	e.settle(o, topupd.Settlement{Status: topupd.StatusCancelled, Error: "no", Refund: true, Now: t0.Add(time.Minute)})
	got := entries(o.Seq)
	if len(got) != 2 || got[0].Kind != topupd.EntryCharge || got[1].Kind != topupd.EntryRefund || got[1].Amount != o.Amount ||
		got[1].BalanceAfter != got[0].BalanceAfter-other.Amount+o.Amount { // the other order was charged in between
		t.Errorf("a refunded order's entries: %+v", got)
	}
	if got := entries(other.Seq); len(got) != 1 || got[0].OrderID != other.ID {
		t.Errorf("the other order's entries: %+v", got)
	}
	if got := entries(1 << 40); got == nil || len(got) != 0 {
		t.Errorf("an unknown order's entries: %#v, want an empty list", got)
	}
}

// testOrderEvents: an order driven through a submit, a retry with a note,
// an operator's retry, an alert and its completion has each step in its
// history, oldest first, written with the step; a refused step writes
// none; a cancellation carries its error; an order completed from stock
// when placed, and an unknown one, have none.
func testOrderEvents(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	o := e.place(a.ID, topup("EV-1"), t0)
	events := func(seq int64) []topupd.OrderEvent {
		t.Helper()
		got, err := e.s.OrderEvents(e.ctx, seq)
		if err != nil {
			t.Fatalf("OrderEvents %d: %v", seq, err)
		}
		return got
	}
	if got := events(o.Seq); got == nil || len(got) != 0 {
		t.Errorf("a new order's events: %#v, want an empty list", got)
	}
	claimIDs(t, e, "w1", t0, 10)
	before := time.Now().Truncate(time.Millisecond)
	if err := e.s.MarkSubmitting(e.ctx, o.Seq, "w1"); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	codeIs(t, e.s.MarkSubmitting(e.ctx, o.Seq, "w2"), topupd.EConflict, "MarkSubmitting by a non-holder")
	settle := func(st topupd.Settlement) {
		t.Helper()
		if _, err := e.s.Settle(e.ctx, nil, o.Seq, st); err != nil {
			t.Fatalf("Settle %s at %v: %v", st.Status, st.Now, err)
		}
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	settle(topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: at(60), Now: at(10), LeaseOwner: "w1", Note: "supplier timeout"})
	// A settlement refused for a lost lease writes no event.
	_, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: at(60), Now: at(11), LeaseOwner: "w1", Note: "lost"})
	codeIs(t, err, topupd.EConflict, "Settle by a lost lease")
	if _, err := e.s.RetryOrder(e.ctx, nil, o.Seq, at(20), at(20).Add(deadline)); err != nil {
		t.Fatal(err)
	}
	settle(topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: at(90), Now: at(30), Alert: topupd.AlertPastDeadline, Note: "still working"})
	settle(topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: at(90), Now: at(35), Alert: topupd.AlertCodeUsed})
	settle(topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{"EV-CODE"}, Now: at(40)})
	_, err = e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCancelled, Error: "late", Now: at(50)})
	codeIs(t, err, topupd.EOrderFinal, "Settle of a final order")
	_, err = e.s.RetryOrder(e.ctx, nil, o.Seq, at(50), at(50))
	codeIs(t, err, topupd.EOrderFinal, "RetryOrder of a final order")

	got := events(o.Seq)
	if len(got) == 0 || got[0].At.Before(before) || got[0].At.After(after) {
		t.Errorf("submitting at %v, want within [%v, %v] (the store's time.Now)", got, before, after)
	} else {
		got[0].At = time.Time{}
	}
	want := []topupd.OrderEvent{
		{Kind: topupd.EventSubmitting, Note: "sim"},
		{At: at(10), Kind: topupd.EventRetry, Note: "supplier timeout"},
		{At: at(20), Kind: topupd.EventRetried},
		{At: at(30), Kind: topupd.EventRetry, Note: topupd.AlertPastDeadline + ": still working"},
		{At: at(35), Kind: topupd.EventRetry, Note: topupd.AlertCodeUsed},
		{At: at(40), Kind: topupd.EventCompleted, Note: "by the supplier sim"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// A final state says who settled it (here the supplier: no operator's
	// change); a cancellation carries the order's error; a long note is cut.
	c := e.place(a.ID, topup("EV-2"), t0)
	long := fmt.Sprintf("%0*d", 2*topupd.MaxEventNote, 7)
	e.settle(c, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: at(5), Now: at(1), Note: long})
	e.settle(c, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: at(2)})
	want = []topupd.OrderEvent{
		{At: at(1), Kind: topupd.EventRetry, Note: long[:topupd.MaxEventNote]},
		{At: at(2), Kind: topupd.EventCancelled, Note: "by the supplier sim: INVALID PLAYER"},
	}
	if diff := cmp.Diff(want, events(c.Seq)); diff != "" {
		t.Errorf("cancelled order's events (-want +got):\n%s", diff)
	}

	e.stock(pidKey, 1)
	k := e.place(a.ID, keys(pidKey, "EV-3", 1), t0)
	if got := events(k.Seq); len(got) != 0 {
		t.Errorf("an order completed from stock: events %v, want none", got)
	}
	if got := events(k.Seq + 1000); len(got) != 0 {
		t.Errorf("no such order: events %v, want none", got)
	}
}
