package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

var fundsTests = []test{
	{"KnownBalance", testKnownBalance},
	{"OperatorEvents", testOperatorEvents},
	{"ParkAndResume", testParkAndResume},
	{"ParkedToTheDeadline", testParkedToTheDeadline},
}

// upstreams stores the upstreams b and c of pidListed.
func (e *env) upstreams() {
	e.t.Helper()
	for _, name := range []string{"b", "c"} {
		if err := e.s.PutUpstream(e.ctx, nil, topupd.Upstream{Name: name, BaseURL: "https://" + name + ".example", APIKey: "k", UpdatedAt: t0}); err != nil {
			e.t.Fatal(err)
		}
	}
}

// read records a read of our balance at an upstream.
func (e *env) read(name string, bal topupd.Money, at time.Time) topupd.Upstream {
	e.t.Helper()
	u, err := e.s.RecordSupplierRead(e.ctx, topupd.SupplierRead{Upstream: name, Balance: bal, At: at})
	if err != nil {
		e.t.Fatalf("RecordSupplierRead %s: %v", name, err)
	}
	return u
}

// upstream reads one upstream.
func (e *env) upstream(name string) topupd.Upstream {
	e.t.Helper()
	u, err := e.s.Upstream(e.ctx, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// balanceIs fails the test unless an upstream's known balance is want.
func (e *env) balanceIs(name string, want topupd.Money, when string) {
	e.t.Helper()
	if u := e.upstream(name); u.Balance == nil || *u.Balance != want {
		e.t.Errorf("%s: the known balance at %s is %v, want %v", when, name, u.Balance, want)
	}
}

// testKnownBalance: a read sets the balance; the cost of an order the
// upstream accepts comes off it once; a completed order counts in the
// day's burn; an INSUFFICIENT BALANCE answer makes it 0 (critical).
func testKnownBalance(t *testing.T, e *env) {
	e.listedPack()
	e.upstreams()
	if u := e.read("b", topupd.USD(10), t0); u.State != topupd.UpstreamOK || u.BalanceAlert != topupd.BalanceAlertNone {
		t.Errorf("after a read: %+v", u)
	}
	a := e.account("a", topupd.USD(100))
	o := e.leased(a.ID, "T-1", "w1")
	pending := topupd.Settlement{Status: topupd.StatusProcessing, Supplier: topupd.SupplierAccepted, SupplierRef: "up-1",
		RetryAt: t0.Add(time.Second), Now: t0, LeaseOwner: "w1"}
	e.settle(o, pending)
	e.balanceIs("b", topupd.USD(10)-9_000, "accepted at b's own cost of 0.90")
	o = e.claim(o, t0.Add(2*time.Second))
	e.settle(o, topupd.Settlement{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, SupplierRef: "up-1",
		Now: t0.Add(time.Second), LeaseOwner: "w1"})
	e.balanceIs("b", topupd.USD(10)-9_000, "completed after it was accepted: taken off once")
	if u := e.upstream("b"); u.Day != 9_000 {
		t.Errorf("the day's cost at b is %v, want 0.90", u.Day)
	}
	if err := e.s.RecordSupplierDry(e.ctx, "b", t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	e.balanceIs("b", 0, "dry")
	if u := e.upstream("b"); u.BalanceAlert != topupd.BalanceAlertCritical || u.BalanceAt == nil || !u.BalanceAt.Equal(t0.Add(2*time.Second)) {
		t.Errorf("dry: alert %s at %v, want critical", u.BalanceAlert, u.BalanceAt)
	}
	// An order at c, whose balance is unknown, leaves it unknown.
	o2 := e.leased(a.ID, "T-2", "w1")
	o2 = e.refused(o2, 2)
	e.settle(o2, topupd.Settlement{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, SupplierRef: "up-2", Now: t0, LeaseOwner: "w1"})
	if u := e.upstream("c"); u.Balance != nil {
		t.Errorf("an unknown balance became %v", *u.Balance)
	}
	checkAuditClean(t, e)
}

// testOperatorEvents: each change of a balance alert is one operator
// event, read in order after an id; a top-up lets it fall at once.
func testOperatorEvents(t *testing.T, e *env) {
	e.upstreams()
	e.read("b", topupd.USD(10), t0)
	if err := e.s.RecordSupplierDry(e.ctx, "b", t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := e.s.RecordSupplierDry(e.ctx, "b", t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	e.read("b", topupd.USD(50), t0.Add(3*time.Second)) // a top-up, and no burn: none
	if err := e.s.EvaluateBalanceAlerts(e.ctx, t0.Add(4*time.Second)); err != nil {
		t.Fatal(err)
	}
	// On PostgreSQL events show once every transaction older is done
	// (the stream's order): the suite's others may hold them back a while.
	var all []topupd.Event
	for deadline := time.Now().Add(30 * time.Second); len(all) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var more bool
		var err error
		if all, more, err = e.s.OperatorEvents(e.ctx, "", 100, time.Time{}); err != nil || more {
			t.Fatalf("OperatorEvents: more %v, %v", more, err)
		}
	}
	var got []string
	for _, ev := range all {
		d := ev.Data.(*topupd.SupplierBalanceData)
		got = append(got, string(ev.Type)+" "+d.Supplier+" "+d.Level+" "+d.Balance.String())
	}
	want := []string{"supplier.balance.critical b critical 0", "supplier.balance.recovered b none 50"}
	if !cmp.Equal(got, want) {
		t.Fatalf("operator events %v, want %v", got, want)
	}
	page, more, err := e.s.OperatorEvents(e.ctx, "", 1, time.Time{})
	if err != nil || !more || len(page) != 1 || page[0].ID != all[0].ID {
		t.Errorf("a page of 1: %d events, more %v, %v", len(page), more, err)
	}
	if rest, more, err := e.s.OperatorEvents(e.ctx, all[0].ID, 10, time.Time{}); err != nil || more || len(rest) != 1 || rest[0].ID != all[1].ID {
		t.Errorf("after the first: %d events, more %v, %v", len(rest), more, err)
	}
	if late, _, err := e.s.OperatorEvents(e.ctx, "", 10, t0.Add(3*time.Second)); err != nil || len(late) != 1 {
		t.Errorf("since the top-up: %d events, %v", len(late), err)
	}
	_, _, err = e.s.OperatorEvents(e.ctx, "evt_nosuchevent", 10, time.Time{})
	codeIs(t, err, topupd.EInvalidRequest, "OperatorEvents(unknown after)")
}

// packByHand makes pidListed a pack of the manual supplier alone.
func (e *env) packByHand() {
	e.t.Helper()
	p := topupd.Pack{PID: pidListed, Slug: "freefire", Name: "100 Diamonds (by hand)", Price: priceTopup, Status: topupd.StatusActive,
		Cost: 10_000, Provider: topupd.ProviderManual}
	if err := e.s.PutPack(e.ctx, nil, p); err != nil {
		e.t.Fatal(err)
	}
}

// claim claims an order due at at for w1.
func (e *env) claim(o topupd.Order, at time.Time) topupd.Order {
	e.t.Helper()
	due, err := e.s.ClaimDue(e.ctx, "w1", at, at.Add(time.Minute), 100)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range due {
		if c.ID == o.ID {
			return c
		}
	}
	e.t.Fatalf("order %s is not due at %v", o.ID, at)
	return o
}

// park parks an order leased to w1 from its attempt from.
func (e *env) park(o topupd.Order, from int, outcome topupd.AttemptOutcome, why string, until time.Time) topupd.Order {
	e.t.Helper()
	p, err := e.s.ParkOrder(e.ctx, o.Seq, topupd.Park{LeaseOwner: "w1", From: from, Outcome: outcome, Why: why, Until: until, Now: t0})
	if err != nil {
		e.t.Fatalf("ParkOrder %s: %v", o.ID, err)
	}
	return p
}

// testParkAndResume: a parked order holds no supplier, carries the alert
// and a waiting step, is woken by a read, and goes back only to a
// supplier it left for the money, once.
func testParkAndResume(t *testing.T, e *env) {
	e.listedPack()
	e.upstreams()
	a := e.account("a", topupd.USD(100))
	o := e.leased(a.ID, "T-1", "w1")
	o = e.refused(o, 2) // b refused it for another reason
	until := t0.Add(time.Hour)
	p := e.park(o, 2, topupd.AttemptRefused, topupd.WhyInsufficient, until)
	if p.Alert != topupd.AlertWaitingFunds || p.Supplier != topupd.SupplierNew || p.Status != topupd.StatusProcessing {
		t.Fatalf("parked: %+v", p)
	}
	if got, want := e.attempts(p), []string{"b:refused", "c:refused", "manual:skipped"}; !cmp.Equal(got, want) {
		t.Errorf("parked attempts %v, want %v", got, want)
	}
	events, err := e.s.OrderEvents(e.ctx, p.Seq)
	waiting := 0
	for _, ev := range events {
		if ev.Kind == topupd.EventWaiting && ev.Note == topupd.NoteWaitingFunds {
			waiting++
		}
	}
	if err != nil || waiting != 1 {
		t.Errorf("the history has %d waiting steps: %+v, %v", waiting, events, err)
	}
	if n, err := e.s.WaitingFunds(e.ctx); err != nil || n != 1 {
		t.Errorf("WaitingFunds = %d, %v", n, err)
	}
	checkAuditClean(t, e)
	// While it waits, b, which refused it for good, is not in use once no
	// pack names it.
	e.packByHand()
	if err := e.s.DeleteUpstream(e.ctx, nil, "b"); err != nil {
		t.Errorf("DeleteUpstream(b), which refused the order for good: %v", err)
	}
	// A read wakes it.
	e.read("c", topupd.USD(5), t0.Add(time.Second))
	due, err := e.s.ClaimDue(e.ctx, "w1", t0.Add(2*time.Second), t0.Add(time.Minute), 10)
	if err != nil || len(due) != 1 || due[0].ID != o.ID {
		t.Fatalf("after a read, due: %d orders, %v", len(due), err)
	}
	resume := func(to int) (topupd.Order, error) {
		return e.s.ResumeOrder(e.ctx, o.Seq, topupd.Resume{LeaseOwner: "w1", LeaseUntil: t0.Add(time.Minute), To: to, Now: t0.Add(2 * time.Second)})
	}
	_, err = resume(1)
	codeIs(t, err, topupd.EConflict, "ResumeOrder to a supplier refused for another reason")
	if _, err = e.s.ResumeOrder(e.ctx, o.Seq, topupd.Resume{LeaseOwner: "w2", LeaseUntil: t0.Add(time.Minute), To: 2, Now: t0}); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("ResumeOrder by another worker: %v", err)
	}
	r, err := resume(2)
	if err != nil || r.Upstream != "c" || r.Alert != "" || r.Supplier != topupd.SupplierNew {
		t.Fatalf("ResumeOrder to c: %+v, %v", r, err)
	}
	_, err = resume(2)
	codeIs(t, err, topupd.EConflict, "ResumeOrder twice")
	if got, want := e.attempts(r), []string{"b:refused", "c:trying", "manual:skipped"}; !cmp.Equal(got, want) {
		t.Errorf("resumed attempts %v, want %v", got, want)
	}
	e.settle(r, topupd.Settlement{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, SupplierRef: "c-1", Now: t0.Add(3 * time.Second), LeaseOwner: "w1"})
	e.balanceIs("c", topupd.USD(5)-10_000, "completed at c at the pack's cost")
	checkAuditClean(t, e)
}

// testParkedToTheDeadline: an order that waited to its deadline is
// cancelled and refunded once, holding no supplier; the audit accepts it.
func testParkedToTheDeadline(t *testing.T, e *env) {
	e.listedPack()
	e.upstreams()
	a := e.account("a", topupd.USD(100))
	o := e.leased(a.ID, "T-1", "w1")
	e.park(o, 1, topupd.AttemptSkipped, topupd.WhyBalance, t0.Add(time.Minute))
	// While it waits, c (which it may go to) is in use, even once no pack
	// names it and the order was last on b.
	e.packByHand()
	codeIs(t, e.s.DeleteUpstream(e.ctx, nil, "c"), topupd.EUpstreamInUse, "DeleteUpstream(c) while an order may go to it")
	due, err := e.s.ClaimDue(e.ctx, "w1", t0.Add(2*time.Minute), t0.Add(3*time.Minute), 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("at the deadline, due: %d orders, %v", len(due), err)
	}
	done := e.settle(due[0], topupd.Settlement{Status: topupd.StatusCancelled, Error: "DEADLINE EXCEEDED", Refund: true,
		Now: t0.Add(2 * time.Minute), LeaseOwner: "w1"})
	if !done.Refunded {
		t.Errorf("cancelled at the deadline: %+v", done)
	}
	if got, want := e.attempts(done), []string{"b:skipped", "c:skipped", "manual:skipped"}; !cmp.Equal(got, want) {
		t.Errorf("attempts %v, want %v", got, want)
	}
	if bal, err := e.s.Balance(e.ctx, a.ID); err != nil || bal != topupd.USD(100) {
		t.Errorf("balance after the refund: %v, %v", bal, err)
	}
	checkAuditClean(t, e)
}
