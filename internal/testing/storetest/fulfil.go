package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var fulfilTests = []test{
	{"ClaimDue", testClaimDue},
	{"ClaimDueLimit", testClaimDueLimit},
	{"NextDueAndReschedule", testNextDue},
	{"SettleCompleted", testSettleCompleted},
	{"SettleCancelledRefund", testSettleRefund},
	{"SettleCancelledNoRefund", testSettleNoRefund},
	{"SettleFinalChangesNothing", testSettleFinal},
	{"SettleLostLease", testSettleLostLease},
	{"MarkSubmitting", testMarkSubmitting},
	{"ReleaseLeases", testReleaseLeases},
}

// claimIDs claims due orders and returns their ids, sorted.
func claimIDs(t *testing.T, e *env, owner string, now time.Time, limit int) []string {
	t.Helper()
	got, err := e.s.ClaimDue(e.ctx, owner, now, now.Add(time.Minute), limit)
	if err != nil {
		t.Fatalf("ClaimDue %s: %v", owner, err)
	}
	out := ids(got)
	slices.Sort(out)
	return out
}

func sorted(s ...string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func testClaimDue(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	e.stock(pidKey, 2)
	due := e.place(a.ID, topup("T-DUE"), t0)
	e.place(a.ID, keys(pidKey, "T-DONE", 1), t0) // completed: never claimed
	later := e.place(a.ID, topup("T-LATER"), t0.Add(time.Hour))
	cancelled := e.place(a.ID, topup("T-CANCEL"), t0)
	e.settle(cancelled, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Now: t0})
	if got := claimIDs(t, e, "w1", t0.Add(-time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue before anything is due = %v, want none", got)
	}
	got, err := e.s.ClaimDue(e.ctx, "w1", t0, t0.Add(time.Minute), 10)
	if err != nil {
		t.Fatalf("ClaimDue: %v", err)
	}
	if diff := cmp.Diff([]topupd.Order{due}, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ClaimDue at t0 (-want +got):\n%s", diff)
	}
	if got := claimIDs(t, e, "w2", t0.Add(30*time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue while w1's lease holds = %v, want none", got)
	}
	if got := claimIDs(t, e, "w1", t0.Add(59*time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue by the holder itself while its lease holds = %v, want none", got)
	}
	// At t0+1h both the lapsed lease and the later order are due.
	if got, want := claimIDs(t, e, "w2", t0.Add(time.Hour), 10), sorted(due.ID, later.ID); !cmp.Equal(got, want) {
		t.Errorf("ClaimDue after the lease ran out = %v, want %v", got, want)
	}
	if got := claimIDs(t, e, "w3", t0.Add(time.Hour+time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue during w2's leases = %v, want none", got)
	}
}

func testClaimDueLimit(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	var all []string
	for i := range 5 {
		all = append(all, e.place(a.ID, topup(e.uniq("T")), t0.Add(time.Duration(i)*time.Second)).ID)
	}
	first := claimIDs(t, e, "w1", t0.Add(time.Minute), 2)
	second := claimIDs(t, e, "w2", t0.Add(time.Minute), 2)
	third := claimIDs(t, e, "w3", t0.Add(time.Minute), 2)
	if len(first) != 2 || len(second) != 2 || len(third) != 1 {
		t.Fatalf("claims of at most 2: %v, %v, %v; want 2, 2 and 1 orders", first, second, third)
	}
	got := sorted(append(append(first, second...), third...)...)
	if diff := cmp.Diff(sorted(all...), got); diff != "" {
		t.Errorf("orders claimed over three claims, each once (-want +got):\n%s", diff)
	}
	// The earliest due go first.
	if want := sorted(all[:2]...); !cmp.Equal(first, want) {
		t.Errorf("first claim = %v, want the two earliest due %v", first, want)
	}
}

func testNextDue(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	e.stock(pidKey, 1)
	e.place(a.ID, keys(pidKey, "T-K", 1), t0)
	if _, ok, err := e.s.NextDue(e.ctx, t0); err != nil || ok {
		t.Errorf("NextDue without processing orders: ok %v, err %v; want none", ok, err)
	}
	o1 := e.place(a.ID, topup("T-1"), t0.Add(time.Minute))
	o2 := e.place(a.ID, topup("T-2"), t0.Add(2*time.Minute))
	nextAt := func(now, want time.Time, what string) {
		t.Helper()
		got, ok, err := e.s.NextDue(e.ctx, now)
		if err != nil || !ok || !got.Equal(want) {
			t.Errorf("%s: NextDue = %v, %v, %v; want %v", what, got, ok, err, want)
		}
	}
	nextIs := func(want time.Time, what string) { t.Helper(); nextAt(t0.Add(10*time.Minute), want, what) }
	nextIs(t0.Add(time.Minute), "after placing")
	claimIDs(t, e, "w1", t0.Add(time.Minute), 1) // leased until t0 + 2m
	// While its lease holds, the claimed order is not due: its worker
	// settles it. Once the lease has run out, it is due again.
	nextAt(t0.Add(time.Minute+time.Second), t0.Add(2*time.Minute), "while the first is leased")
	nextAt(t0.Add(2*time.Minute), t0.Add(time.Minute), "once the first's lease has run out")
	retry := t0.Add(time.Hour)
	got, err := e.s.Settle(e.ctx, nil, o1.Seq, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: retry, Supplier: topupd.SupplierAccepted,
		Now: t0.Add(time.Minute), LeaseOwner: "w1"})
	if err != nil {
		t.Fatalf("Settle processing: %v", err)
	}
	if got.Status != topupd.StatusProcessing || got.Supplier != topupd.SupplierAccepted || got.Attempts != o1.Attempts+1 || !got.FinishedAt.IsZero() {
		t.Errorf("rescheduled order: status %s supplier %s attempts %d finished %v; want processing, accepted, %d, none",
			got.Status, got.Supplier, got.Attempts, got.FinishedAt, o1.Attempts+1)
	}
	nextIs(t0.Add(2*time.Minute), "after rescheduling the first to later than the second")
	if got := claimIDs(t, e, "w2", t0.Add(10*time.Minute), 10); !cmp.Equal(got, []string{o2.ID}) {
		t.Errorf("ClaimDue before the retry = %v, want only [%s] (the rescheduled order is not due)", got, o2.ID)
	}
	e.settle(o2, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0.Add(10 * time.Minute), LeaseOwner: "w2"})
	nextIs(retry, "with only the rescheduled order left")
	if got := claimIDs(t, e, "w3", retry, 10); !cmp.Equal(got, []string{o1.ID}) {
		t.Errorf("ClaimDue at the retry = %v, want [%s]", got, o1.ID)
	}
	if got := e.order(o1.ID); got.Supplier != topupd.SupplierAccepted {
		t.Errorf("Supplier after reschedule = %s, want accepted", got.Supplier)
	}
}

// processing places one topup and returns it with the account's balance after.
func processing(t *testing.T, e *env) (topupd.Account, topupd.Order) {
	t.Helper()
	e.catalog()
	a := e.account("a", topupd.USD(100))
	return a, e.place(a.ID, topup("T-P"), t0)
}

func testSettleCompleted(t *testing.T, e *env) {
	a, o := processing(t, e)
	e.stock(pidTopup, 2) // the pack's own stock is not the supplier's codes
	before := e.snapshot(a.ID)
	done := t0.Add(5 * time.Second)
	codes := []string{"SUP-1", "SUP-2", "SUP-3"}
	got, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Codes: codes, Supplier: topupd.SupplierAccepted, Now: done})
	if err != nil {
		t.Fatalf("Settle completed: %v", err)
	}
	want := o
	want.Status, want.Codes, want.FinishedAt, want.Supplier = topupd.StatusCompleted, codes, done, topupd.SupplierAccepted
	want.CodeCount, want.Cost = len(codes), nil // the pack has no cost: the order's is not known
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Settle returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, e.order(o.ID), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Order after Settle (-want +got):\n%s", diff)
	}
	before.Orders = e.allOrders() // the order changed; money and stock must not
	e.unchanged(before, "completing an order")
	if got := claimIDs(t, e, "w", done.Add(time.Hour), 10); len(got) != 0 {
		t.Errorf("ClaimDue after completion = %v, want none", got)
	}
}

func testSettleRefund(t *testing.T, e *env) {
	a, o := processing(t, e)
	got, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0.Add(time.Second)})
	if err != nil {
		t.Fatalf("Settle cancelled: %v", err)
	}
	if got.Status != topupd.StatusCancelled || !got.Refunded || got.Error != "INVALID PLAYER" || !got.FinishedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("cancelled order: status %s refunded %v error %q finished %v", got.Status, got.Refunded, got.Error, got.FinishedAt)
	}
	if diff := cmp.Diff(got, e.order(o.ID), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Order after Settle (-settled +read):\n%s", diff)
	}
	if b := e.balance(a.ID); b != topupd.USD(100) {
		t.Errorf("balance after refund = %v, want 100", b)
	}
	refunds := ofKind(e.ledger(a.ID), topupd.EntryRefund)
	want := []topupd.LedgerEntry{{AccountID: a.ID, Kind: topupd.EntryRefund, Amount: priceTopup, BalanceAfter: topupd.USD(100), OrderID: o.ID, CreatedAt: t0.Add(time.Second)}}
	if diff := cmp.Diff(want, refunds, cmpopts.IgnoreFields(topupd.LedgerEntry{}, "ID")); diff != "" {
		t.Errorf("refund entries (-want +got):\n%s", diff)
	}
}

func testSettleNoRefund(t *testing.T, e *env) {
	a, o := processing(t, e)
	got, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCancelled, Error: "kept", Now: t0})
	if err != nil {
		t.Fatalf("Settle: %v", err)
	}
	if got.Status != topupd.StatusCancelled || got.Refunded {
		t.Errorf("status %s refunded %v, want cancelled without refund", got.Status, got.Refunded)
	}
	if b := e.balance(a.ID); b != topupd.USD(100)-priceTopup {
		t.Errorf("balance = %v, want still charged", b)
	}
	if n := len(ofKind(e.ledger(a.ID), topupd.EntryRefund)); n != 0 {
		t.Errorf("%d refund entries, want 0", n)
	}
}

func testSettleFinal(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	e.stock(pidKey, 1)
	refunded := e.place(a.ID, topup("T-R"), t0)
	e.settle(refunded, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0})
	kept := e.place(a.ID, topup("T-K"), t0)
	e.settle(kept, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Now: t0})
	completed := e.place(a.ID, topup("T-C"), t0)
	if _, err := e.s.Settle(e.ctx, nil, completed.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{"C1"}, Now: t0}); err != nil {
		t.Fatalf("Settle: %v", err)
	}
	stock := e.place(a.ID, keys(pidKey, "T-S", 1), t0)
	later := t0.Add(time.Hour)
	settlements := []struct {
		name string
		s    topupd.Settlement
	}{
		{"cancel and refund again", topupd.Settlement{Status: topupd.StatusCancelled, Error: "again", Refund: true, Now: later}},
		{"complete", topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{"NEW"}, Now: later}},
		{"reschedule", topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: later, Now: later}},
	}
	for _, o := range []topupd.Order{refunded, kept, completed, stock} {
		for _, st := range settlements {
			before := e.snapshot(a.ID)
			_, err := e.s.Settle(e.ctx, nil, o.Seq, st.s)
			codeIs(t, err, topupd.EOrderFinal, o.TrxID+": "+st.name)
			e.unchanged(before, o.TrxID+": "+st.name+" of a final order")
		}
	}
	if n := len(ofKind(e.ledger(a.ID), topupd.EntryRefund)); n != 1 {
		t.Errorf("%d refund entries, want exactly 1", n)
	}
	_, err := e.s.Settle(e.ctx, nil, 1_000_000, topupd.Settlement{Status: topupd.StatusCompleted, Now: later})
	codeIs(t, err, topupd.EOrderNotFound, "Settle of an unknown order")
}

func testSettleLostLease(t *testing.T, e *env) {
	a, o := processing(t, e)
	claimIDs(t, e, "w1", t0, 10)
	claimIDs(t, e, "w2", t0.Add(2*time.Minute), 10) // w1's lease ran out; w2 holds it now
	before := e.snapshot(a.ID)
	for _, st := range []topupd.Settlement{
		{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0.Add(3 * time.Minute), LeaseOwner: "w1"},
		{Status: topupd.StatusCompleted, Codes: []string{"C"}, Now: t0.Add(3 * time.Minute), LeaseOwner: "w1"},
		{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Hour), Now: t0.Add(3 * time.Minute), LeaseOwner: "w1"},
	} {
		_, err := e.s.Settle(e.ctx, nil, o.Seq, st)
		codeIs(t, err, topupd.EConflict, "Settle "+string(st.Status)+" by a lost lease")
		e.unchanged(before, "Settle by a lost lease")
	}
	if _, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0.Add(3 * time.Minute), LeaseOwner: "w2"}); err != nil {
		t.Errorf("Settle by the holder: %v", err)
	}
	if b := e.balance(a.ID); b != topupd.USD(100) {
		t.Errorf("balance = %v, want 100 after the holder's refund", b)
	}
}

func testMarkSubmitting(t *testing.T, e *env) {
	_, o := processing(t, e)
	codeIs(t, e.s.MarkSubmitting(e.ctx, o.Seq, "w1"), topupd.EConflict, "MarkSubmitting of an unleased order")
	claimIDs(t, e, "w1", t0, 10)
	codeIs(t, e.s.MarkSubmitting(e.ctx, o.Seq, "w2"), topupd.EConflict, "MarkSubmitting by a non-holder")
	if got := e.order(o.ID); got.Supplier != topupd.SupplierNew {
		t.Errorf("Supplier = %s after refused MarkSubmitting, want new", got.Supplier)
	}
	if err := e.s.MarkSubmitting(e.ctx, o.Seq, "w1"); err != nil {
		t.Fatalf("MarkSubmitting by the holder: %v", err)
	}
	if got := e.order(o.ID); got.Supplier != topupd.SupplierSubmitting {
		t.Errorf("Supplier = %s, want submitting", got.Supplier)
	}
	// A settlement that names no supplier state keeps the recorded one.
	got, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Minute), Now: t0, LeaseOwner: "w1"})
	if err != nil || got.Supplier != topupd.SupplierSubmitting {
		t.Errorf("Settle without supplier state: supplier %s, err %v; want submitting kept", got.Supplier, err)
	}
}

func testReleaseLeases(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	o1 := e.place(a.ID, topup("T-1"), t0)
	o2 := e.place(a.ID, topup("T-2"), t0)
	if _, err := e.s.ClaimDue(e.ctx, "w1", t0, t0.Add(time.Hour), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.ClaimDue(e.ctx, "w2", t0, t0.Add(time.Hour), 1); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ReleaseLeases(e.ctx, "w1"); err != nil {
		t.Fatalf("ReleaseLeases: %v", err)
	}
	got := claimIDs(t, e, "w3", t0.Add(time.Second), 10)
	if len(got) != 1 || !(got[0] == o1.ID || got[0] == o2.ID) {
		t.Fatalf("ClaimDue after w1 released = %v, want exactly w1's order", got)
	}
	// The released lease is w1's no more.
	_, err := e.s.Settle(e.ctx, nil, e.order(got[0]).Seq, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0, LeaseOwner: "w1"})
	codeIs(t, err, topupd.EConflict, "Settle by w1 after its release")
	if err := e.s.ReleaseLeases(e.ctx, "nobody"); err != nil {
		t.Errorf("ReleaseLeases of an owner without leases: %v", err)
	}
	if got := claimIDs(t, e, "w4", t0.Add(time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue while w2 and w3 hold the orders = %v, want none", got)
	}
}
