package fulfil_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
)

// placeLeased places an order of pid leased to e, as POST /orders does
// before its first supplier call.
func (f *fixture) placeLeased(t *testing.T, pid string, e *fulfil.Engine) topupd.Order {
	t.Helper()
	now := f.now()
	o, _, err := f.store.PlaceOrder(context.Background(), topupd.PlaceOrder{AccountID: f.account, Now: now, Deadline: time.Minute,
		LeaseOwner: e.Owner(), LeaseUntil: e.LeaseUntil(now),
		Request: topupd.OrderRequest{PID: pid, TrxID: fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()), Fields: topupd.AccountFields{UserID: "5000001"}}})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// pendingFor is a supplier that takes an order at its submit, answers
// "pending" with its own id and the time due, d after the first submit,
// until then, and "completed" (giving no id) from then on. sold counts its
// submits; early counts the status calls made before due.
func pendingFor(d time.Duration, early *int) func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
	var due time.Time
	return func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		if submit {
			if s.sold[o.ID] == 0 {
				due = time.Now().Add(d)
			}
			s.sold[o.ID]++
		}
		if s.sold[o.ID] == 0 {
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		if time.Now().Before(due) {
			if !submit && early != nil {
				*early++
			}
			return topupd.Outcome{State: topupd.OutcomePending, RetryAt: due, SupplierRef: "S-" + o.ID, Message: "queued"}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
	}
}

// waitEngine starts an engine whose wait in memory may last until 9 s
// after an order's placement (nine tenths of its lease after the call
// timeout).
func (f *fixture) waitEngine(t *testing.T, owner string, sellers map[string]topupd.Provider) *fulfil.Engine {
	t.Helper()
	return f.engineWith(t, fulfil.Config{Providers: sellers, Owner: owner, CallTimeout: time.Second, Lease: 11 * time.Second,
		Poll: 5 * time.Millisecond, BackoffBase: 5 * time.Millisecond, BackoffMax: 40 * time.Millisecond, Workers: 8})
}

// history reads an order's history as "kind: note" lines.
func (f *fixture) history(t *testing.T, o topupd.Order) []string {
	t.Helper()
	evs, err := f.store.OrderEvents(context.Background(), o.Seq)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Kind+": "+ev.Note)
	}
	return out
}

// hasLine is the index of want in lines, or -1 when they do not hold it.
func hasLine(lines []string, want string) int {
	for i, l := range lines {
		if l == want {
			return i
		}
	}
	return -1
}

// TestPendingWaitedOutInMemory: a pending answer to an order's first
// submit that falls due while its placing request waits is waited out in
// memory: the supplier is asked once more, not before the time it gave,
// and the order completes within the request, with no attempt counted,
// the supplier's id kept, and the pending answer in its history before
// its completion.
func TestPendingWaitedOutInMemory(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	var early int
	s := newSeller(pendingFor(300*time.Millisecond, &early))
	e := f.waitEngine(t, "node-a", map[string]topupd.Provider{"scripted": s})
	o := f.placeLeased(t, "uc60", e)
	got := e.Attempt(context.Background(), o, 5*time.Second)
	if got.Status != topupd.StatusCompleted {
		t.Fatalf("the request was answered %s, want completed", got.Status)
	}
	sold, calls := s.books(o.ID)
	if sold != 1 || calls != 2 || early != 0 {
		t.Errorf("supplier: %d submits, %d calls, %d status calls before the time it gave; want 1, 2 (submit, status), 0", sold, calls, early)
	}
	stored, err := f.store.Order(context.Background(), "", o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Status != topupd.StatusCompleted || stored.Attempts != 0 || stored.SupplierRef != "S-"+o.ID {
		t.Errorf("stored: %s, %d attempts, supplier ref %q; want completed, 0, %q", stored.Status, stored.Attempts, stored.SupplierRef, "S-"+o.ID)
	}
	h := f.history(t, stored)
	pending, done := hasLine(h, topupd.EventRetry+": the supplier says pending: queued"), hasLine(h, topupd.EventCompleted+": by the supplier scripted")
	if pending < 0 || done < 0 || pending > done {
		t.Errorf("history %q: want the pending answer, then the completion", h)
	}
	f.checkBooks(t, []topupd.Order{stored}, topupd.USD(10))
}

// TestPendingPastTheWaitIsRecorded: a pending answer due after the
// placing request's wait (or late in the lease) is recorded as it comes,
// and the order is asked about again once it falls due.
func TestPendingPastTheWaitIsRecorded(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	var early int
	s := newSeller(pendingFor(1500*time.Millisecond, &early))
	e := f.waitEngine(t, "node-a", map[string]topupd.Provider{"scripted": s})
	o := f.placeLeased(t, "uc60", e)
	got := e.Attempt(context.Background(), o, time.Second)
	if got.Status != topupd.StatusProcessing || got.Attempts != 1 || got.SupplierRef != "S-"+o.ID || got.Supplier != topupd.SupplierAccepted {
		t.Fatalf("the request was answered %s, %d attempts, ref %q, supplier %s; want the pending answer recorded",
			got.Status, got.Attempts, got.SupplierRef, got.Supplier)
	}
	final := f.waitFinal(t, []topupd.Order{o}, 10*time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	if sold := s.sold[o.ID]; final[0].Status != topupd.StatusCompleted || sold != 1 || early != 0 {
		t.Errorf("order %s, %d submits, %d early status calls; want completed, 1, 0", final[0].Status, sold, early)
	}
}

// TestListedPendingIsRecorded: an order whose pack lists suppliers never
// waits in memory: a node that took it over after a crash must find the
// supplier's acceptance recorded, or a wrong "not found" would move it on
// and buy it twice.
func TestListedPendingIsRecorded(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	first := newSeller(pendingFor(200*time.Millisecond, nil))
	second := newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	e := f.waitEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
	o := f.placeLeased(t, pid, e)
	got := e.Attempt(context.Background(), o, 5*time.Second)
	if got.Status != topupd.StatusProcessing || got.Attempts != 1 || got.SupplierRef != "S-"+o.ID {
		t.Fatalf("the request was answered %s, %d attempts, ref %q; want the pending answer recorded", got.Status, got.Attempts, got.SupplierRef)
	}
	final := f.waitFinal(t, []topupd.Order{o}, 10*time.Second)
	sold, _ := first.books(o.ID)
	_, calls := second.books(o.ID)
	if final[0].Status != topupd.StatusCompleted || sold != 1 || calls != 0 {
		t.Errorf("order %s, sold %d times by the first, %d calls to the second; want completed, 1, 0", final[0].Status, sold, calls)
	}
}

// TestStopWhileWaitingRecordsPending: an engine that stops while waiting
// out a pending answer records it before letting the order go, so the
// node that goes on with it asks the supplier and never submits again.
func TestStopWhileWaitingRecordsPending(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	s := newSeller(pendingFor(3*time.Second, nil))
	sellers := map[string]topupd.Provider{"scripted": s}
	cfg := fulfil.Config{Store: f.store, Providers: sellers, Owner: "node-a", CallTimeout: time.Second, Lease: 11 * time.Second,
		Poll: 5 * time.Millisecond, Drain: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	a, err := fulfil.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { a.Run(ctx); close(ran) }()
	o := f.placeLeased(t, "uc60", a)
	answered := make(chan topupd.Order, 1)
	go func() { answered <- a.Attempt(context.Background(), o, 5*time.Second) }()
	for _, calls := s.books(o.ID); calls == 0; _, calls = s.books(o.ID) {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	<-ran
	got := <-answered
	stored, err := f.store.Order(context.Background(), "", o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != topupd.StatusProcessing || stored.Supplier != topupd.SupplierAccepted || stored.SupplierRef != "S-"+o.ID || stored.Attempts != 1 {
		t.Fatalf("after the stop: answered %s; stored supplier %s, ref %q, %d attempts; want the pending answer recorded",
			got.Status, stored.Supplier, stored.SupplierRef, stored.Attempts)
	}
	f.waitEngine(t, "node-b", sellers)
	final := f.waitFinal(t, []topupd.Order{o}, 10*time.Second)
	if sold, _ := s.books(o.ID); final[0].Status != topupd.StatusCompleted || sold != 1 {
		t.Errorf("order %s, submitted %d times; want completed, once", final[0].Status, sold)
	}
}

// errHung is the wait of a node that hangs and never comes back in time.
var errHung = errors.New("the node hung")

// TestHungWhileWaitingIsTakenOver: a node that hangs while waiting out a
// pending answer has recorded nothing; once its lease runs out another
// node asks the supplier (it never submits again) and settles the order,
// and the hung node, coming back, settles nothing.
func TestHungWhileWaitingIsTakenOver(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	s := newSeller(pendingFor(100*time.Millisecond, nil))
	sellers := map[string]topupd.Provider{"scripted": s}
	hung, waited := make(chan struct{}), make(chan struct{})
	a := f.engineWith(t, fulfil.Config{Providers: sellers, Owner: "node-a", CallTimeout: 200 * time.Millisecond, Lease: 2 * time.Second,
		Poll: 5 * time.Millisecond, Sleep: func(context.Context, time.Duration) error { close(waited); <-hung; return errHung }})
	o := f.placeLeased(t, "uc60", a)
	answered := make(chan topupd.Order, 1)
	go func() { answered <- a.Attempt(context.Background(), o, 5*time.Second) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("node-a never waited out the pending answer")
	}
	f.engineWith(t, fulfil.Config{Providers: sellers, Owner: "node-b", CallTimeout: 200 * time.Millisecond, Lease: 2 * time.Second,
		Poll: 5 * time.Millisecond, BackoffBase: 5 * time.Millisecond, BackoffMax: 40 * time.Millisecond})
	final := f.waitFinal(t, []topupd.Order{o}, 10*time.Second)
	close(hung)
	got := <-answered
	if sold, calls := s.books(o.ID); final[0].Status != topupd.StatusCompleted || sold != 1 || calls < 2 {
		t.Errorf("order %s, submitted %d times, %d calls; want completed by node-b's status call, submitted once", final[0].Status, sold, calls)
	}
	if got.Status != topupd.StatusCompleted {
		t.Errorf("the hung node's worker answered %s; want the order as it stands, completed", got.Status)
	}
	f.checkBooks(t, final, topupd.USD(10))
}
