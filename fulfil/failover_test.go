package fulfil_test

import (
	"context"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// seller is a scripted supplier of the failover tests that keeps its own
// books: what it sold, and every call, per order.
type seller struct {
	mu     sync.Mutex
	sold   map[string]int                                                        // order id -> purchases applied
	calls  map[string]int                                                        // order id -> calls of any kind
	answer func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) // called with mu held
}

func newSeller(answer func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error)) *seller {
	return &seller{sold: map[string]int{}, calls: map[string]int{}, answer: answer}
}

func (s *seller) Submit(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[o.ID]++
	return s.answer(s, o, true)
}

func (s *seller) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[o.ID]++
	return s.answer(s, o, false)
}

// books returns what the seller sold and how often it was called for an order.
func (s *seller) books(id string) (sold, calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sold[id], s.calls[id]
}

// sells completes every order it is sent, once, and knows which it has.
func sells(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
	if submit && s.sold[o.ID] == 0 {
		s.sold[o.ID] = 1
	}
	if s.sold[o.ID] == 0 {
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	}
	return topupd.Outcome{State: topupd.OutcomeCompleted, SupplierRef: "ref-" + o.ID}, nil
}

// refuses refuses every order at submit and so never has one.
func refuses(message string) func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
	return func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		if !submit {
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeFailed, Message: message}, nil
	}
}

// errBroke is how a supplier refuses an order for our balance there.
var errBroke = fmt.Errorf("supplier: INSUFFICIENT BALANCE (%w) (%w)", topupd.ErrNeedsOperator, topupd.ErrSupplierRefused)

// listPack stores a top-up pack sold through suppliers, in order, and
// returns its PID.
func (f *fixture) listPack(t *testing.T, suppliers ...topupd.Supplier) string {
	t.Helper()
	pid := fmt.Sprintf("list%d", time.Now().UnixNano())
	p := topupd.Pack{PID: pid, Slug: "pubg", Name: "60 UC listed", Price: 12500, Status: "active", Cost: 8000,
		Provider: suppliers[0].Provider, Upstream: suppliers[0].Upstream, UpstreamPID: suppliers[0].UpstreamPID, Suppliers: suppliers}
	if err := f.store.PutPack(context.Background(), nil, p); err != nil {
		t.Fatal(err)
	}
	return pid
}

// placeOf puts n orders of a pack in the queue, none leased.
func (f *fixture) placeOf(t *testing.T, pid string, n int, deadline time.Duration) []topupd.Order {
	t.Helper()
	var out []topupd.Order
	for i := range n {
		o, _, err := f.store.PlaceOrder(context.Background(), topupd.PlaceOrder{AccountID: f.account, Now: f.now(), Deadline: deadline,
			Request: topupd.OrderRequest{PID: pid, TrxID: fmt.Sprintf("%s-%d-%d", t.Name(), time.Now().UnixNano(), i),
				Fields: topupd.AccountFields{UserID: "5000001"}}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// failoverEngine starts an engine selling through the named sellers.
func (f *fixture) failoverEngine(t *testing.T, owner string, sellers map[string]topupd.Provider) *fulfil.Engine {
	t.Helper()
	return f.engineWith(t, fulfil.Config{Providers: sellers, Owner: owner, CallTimeout: time.Second, Lease: time.Minute,
		Poll: 5 * time.Millisecond, BackoffBase: 5 * time.Millisecond, BackoffMax: 40 * time.Millisecond, Workers: 8})
}

// outcomes reads how each supplier of an order went, as "provider:outcome".
func (f *fixture) outcomes(t *testing.T, o topupd.Order) []string {
	t.Helper()
	list, err := f.store.SupplierAttempts(context.Background(), o.Seq)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range list {
		out = append(out, a.Provider+":"+string(a.Outcome))
	}
	return out
}

// checkOutcomes compares an order's attempts with want.
func (f *fixture) checkOutcomes(t *testing.T, o topupd.Order, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, f.outcomes(t, o)); diff != "" {
		t.Errorf("order %s attempts (-want +got):\n%s", o.ID, diff)
	}
}

var firstThenSecond = []topupd.Supplier{{Provider: "first", Cost: 9000}, {Provider: "second", Cost: 9500}}

// TestRefusalMovesOn: the first supplier refuses every order at submit;
// each goes to the second, which sells it, at the second's cost.
func TestRefusalMovesOn(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	first, second := newSeller(refuses("UPSTREAM: UNKNOWN PID")), newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	orders := f.placeOf(t, pid, 5, time.Minute)
	f.failoverEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCompleted || o.Provider != "second" || o.SupplierRef != "ref-"+o.ID {
			t.Errorf("order %s: %s at %s (ref %q), want completed at second", o.ID, o.Status, o.Provider, o.SupplierRef)
		}
		if o.Cost == nil || *o.Cost != 9500 {
			t.Errorf("order %s costs %v, want the second supplier's 0.95", o.ID, o.Cost)
		}
		if sold, calls := first.books(o.ID); sold != 0 || calls != 1 {
			t.Errorf("order %s: the first sold %d in %d calls, want one refused call", o.ID, sold, calls)
		}
		if sold, _ := second.books(o.ID); sold != 1 {
			t.Errorf("order %s: the second sold %d", o.ID, sold)
		}
		f.checkOutcomes(t, o, "first:refused", "second:completed")
	}
	f.checkBooks(t, final, topupd.USD(100))
}

// TestNotFoundMovesOn: the first supplier's answers to submits are lost
// before they reach it (no order there), and its status lookups find
// none; the order goes to the second, which sells it.
func TestNotFoundMovesOn(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	first := newSeller(func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		if submit {
			return topupd.Outcome{}, errTimeout // never arrived
		}
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	})
	second := newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	orders := f.placeOf(t, pid, 3, time.Minute)
	f.failoverEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCompleted || o.Provider != "second" {
			t.Errorf("order %s: %s at %s, want completed at second", o.ID, o.Status, o.Provider)
		}
		if sold, calls := first.books(o.ID); sold != 0 || calls != 2 {
			t.Errorf("order %s: the first sold %d in %d calls, want a lost submit and a lookup", o.ID, sold, calls)
		}
		f.checkOutcomes(t, o, "first:not-found", "second:completed")
	}
	f.checkBooks(t, final, topupd.USD(100))
}

// TestAcceptedNeverMovesOn: the first supplier accepts each order (its
// own id, pending), then a status lookup says it has none (its books lost
// it, say). The order never goes to the second: it is submitted to the
// first again under the same trxid, and ends by the first.
func TestAcceptedNeverMovesOn(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	first := newSeller(func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		switch {
		case submit && s.sold[o.ID] == 0:
			s.sold[o.ID] = 1
			return topupd.Outcome{State: topupd.OutcomePending, SupplierRef: "ref-" + o.ID}, nil
		case submit:
			return topupd.Outcome{State: topupd.OutcomeCompleted, SupplierRef: "ref-" + o.ID}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	})
	second := newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	orders := f.placeOf(t, pid, 3, time.Minute)
	f.failoverEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCompleted || o.Provider != "first" {
			t.Errorf("order %s: %s at %s, want completed at first", o.ID, o.Status, o.Provider)
		}
		if _, calls := second.books(o.ID); calls != 0 {
			t.Errorf("order %s: the second was called %d times", o.ID, calls)
		}
		f.checkOutcomes(t, o, "first:completed", "second:waiting")
	}
	f.checkBooks(t, final, topupd.USD(100))
}

// TestUnknownOutcomeNeverMovesOn: the first supplier applies each submit
// and the answer is lost. The second is never asked: the order waits for
// the first's answer and ends by it, completed or (refused on a later
// look, which cannot prove it holds no order) cancelled.
func TestUnknownOutcomeNeverMovesOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		later topupd.Outcome // what the first answers once asked again
		want  topupd.OrderStatus
	}{
		{"completes", topupd.Outcome{State: topupd.OutcomeCompleted}, topupd.StatusCompleted},
		{"refuses", topupd.Outcome{State: topupd.OutcomeFailed, Message: "UPSTREAM: PRODUCT DISABLED"}, topupd.StatusCancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, topupd.USD(100))
			first := newSeller(func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
				if submit {
					s.sold[o.ID]++
					return topupd.Outcome{}, errTimeout // applied, answer lost
				}
				if s.calls[o.ID] < 4 {
					return topupd.Outcome{}, errTimeout // and again, for a while
				}
				return tc.later, nil
			})
			second := newSeller(sells)
			pid := f.listPack(t, firstThenSecond...)
			orders := f.placeOf(t, pid, 3, time.Minute)
			f.failoverEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
			final := f.waitFinal(t, orders, 10*time.Second)
			for _, o := range final {
				if o.Status != tc.want || o.Provider != "first" {
					t.Errorf("order %s: %s at %s, want %s at first", o.ID, o.Status, o.Provider, tc.want)
				}
				if sold, calls := first.books(o.ID); sold != 1 || calls != 4 {
					t.Errorf("order %s: the first sold %d in %d calls, want 1 in 4", o.ID, sold, calls)
				}
				if _, calls := second.books(o.ID); calls != 0 {
					t.Errorf("order %s: the second was called %d times", o.ID, calls)
				}
				f.checkOutcomes(t, o, "first:"+string(tc.want), "second:waiting")
			}
			f.checkBooks(t, final, topupd.USD(100))
		})
	}
}

// TestLastRefusalRefunds: every supplier refuses; the order is cancelled
// with the last one's refusal and refunded once.
func TestLastRefusalRefunds(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	first, second := newSeller(refuses("UPSTREAM: UNKNOWN PID")), newSeller(refuses("UPSTREAM: INSUFFICIENT STOCK"))
	pid := f.listPack(t, firstThenSecond...)
	orders := f.placeOf(t, pid, 2, time.Minute)
	f.failoverEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCancelled || !o.Refunded || o.Error != "UPSTREAM: INSUFFICIENT STOCK" || o.Cost != nil {
			t.Errorf("order %s: %s %q refunded=%v cost %v", o.ID, o.Status, o.Error, o.Refunded, o.Cost)
		}
		f.checkOutcomes(t, o, "first:refused", "second:cancelled")
	}
	f.checkBooks(t, final, topupd.USD(100))
}

// TestUnhealthySkipped: the first supplier refuses an order for our
// balance there. That order goes to the second, and the first is alerting:
// the next order is never sent to it, until the health hold has passed,
// when an order tries it again.
func TestUnhealthySkipped(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	f.clock = fakeclock.New(time.Now().Truncate(time.Millisecond))
	first := newSeller(func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		return topupd.Outcome{}, errBroke
	})
	second := newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	e := f.engineWith(t, fulfil.Config{Providers: map[string]topupd.Provider{"first": first, "second": second}, Owner: "node-a",
		CallTimeout: time.Second, Lease: time.Minute, Poll: 5 * time.Millisecond, Workers: 8, HealthHold: time.Minute})

	broke := f.waitFinal(t, f.placeOf(t, pid, 1, time.Hour), 10*time.Second)[0]
	f.checkOutcomes(t, broke, "first:refused", "second:completed")
	if _, calls := first.books(broke.ID); calls != 1 {
		t.Errorf("the first was called %d times for the order it refused", calls)
	}
	var alert bool
	for _, h := range e.Health() {
		alert = alert || (h.Provider == "first" && h.Alert)
	}
	if !alert {
		t.Errorf("no alert for the first supplier: %+v", e.Health())
	}

	skipped := f.waitFinal(t, f.placeOf(t, pid, 1, time.Hour), 10*time.Second)[0]
	if _, calls := first.books(skipped.ID); calls != 0 || skipped.Status != topupd.StatusCompleted {
		t.Errorf("an order while the first is unhealthy: %s, and the first was called %d times", skipped.Status, calls)
	}
	if sold, calls := second.books(skipped.ID); sold != 1 || calls != 1 {
		t.Errorf("the second sold %d in %d calls, want one submit", sold, calls)
	}
	f.checkOutcomes(t, skipped, "first:skipped", "second:completed")

	f.clock.Advance(time.Minute)
	again := f.waitFinal(t, f.placeOf(t, pid, 1, time.Hour), 10*time.Second)[0]
	if _, calls := first.books(again.ID); calls != 1 {
		t.Errorf("after the hold, the first was called %d times, want it tried again", calls)
	}
	f.checkOutcomes(t, again, "first:refused", "second:completed")
	f.checkBooks(t, []topupd.Order{broke, skipped, again}, topupd.USD(100))
}

// TestInlineAttemptMovesOn: an order's own first attempt, as POST /orders
// makes it, goes on to the second supplier within the same call.
func TestInlineAttemptMovesOn(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	first, second := newSeller(refuses("UPSTREAM: UNKNOWN PID")), newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	e := f.failoverEngine(t, "node-a", map[string]topupd.Provider{"first": first, "second": second})
	now := time.Now()
	o, _, err := f.store.PlaceOrder(context.Background(), topupd.PlaceOrder{AccountID: f.account, Now: now, Deadline: time.Minute,
		LeaseOwner: e.Owner(), LeaseUntil: e.LeaseUntil(now),
		Request: topupd.OrderRequest{PID: pid, TrxID: "inline-" + t.Name(), Fields: topupd.AccountFields{UserID: "5000001"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := e.Attempt(context.Background(), o, 10*time.Second)
	if got.Status != topupd.StatusCompleted || got.Provider != "second" {
		t.Errorf("the inline attempt answers %s at %s, want completed at second", got.Status, got.Provider)
	}
	f.checkOutcomes(t, got, "first:refused", "second:completed")
}

// TestTwoEnginesNeverDoubleMove: three engines, leases shorter than the
// first supplier's slowest refusals, so an order is claimed again while
// a worker still waits for the first's answer; the later worker asks the
// first for the status (it has none) and moves the order on. Every order
// moves once: the first refused or was found without it, once; the second
// sold it once; the books add up. A third of the orders are held at the
// first until a second worker calls for them too, so the overlap happens
// on every run, however the machine schedules.
func TestTwoEnginesNeverDoubleMove(t *testing.T) {
	f := newFixture(t, topupd.USD(1000))
	rng := mrand.New(mrand.NewPCG(3, 5))
	var rngMu sync.Mutex
	overlap := map[string]bool{}
	calling := map[string]int{}
	joined := map[string]chan struct{}{}
	var mu sync.Mutex
	slowRefusal := &slowSeller{refuse: refuses("UPSTREAM: UNKNOWN PID"), delay: func() time.Duration {
		rngMu.Lock()
		defer rngMu.Unlock()
		return time.Duration(rng.IntN(5)) * time.Millisecond
	}, enter: func(id string) <-chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		calling[id]++
		if calling[id] > 1 {
			overlap[id] = true
			if j, ok := joined[id]; ok {
				close(j)
				delete(joined, id)
			}
			return nil
		}
		if overlap[id] || !holdFor(id) {
			return nil
		}
		j := make(chan struct{})
		joined[id] = j
		return j
	}, leave: func(id string) {
		mu.Lock()
		calling[id]--
		mu.Unlock()
	}}
	second := newSeller(sells)
	pid := f.listPack(t, firstThenSecond...)
	orders := f.placeOf(t, pid, 30, time.Minute)
	for _, owner := range []string{"n1", "n2", "n3"} {
		f.engineWith(t, fulfil.Config{Providers: map[string]topupd.Provider{"first": slowRefusal, "second": second}, Owner: owner,
			CallTimeout: 50 * time.Millisecond, Lease: 100 * time.Millisecond,
			Poll: 2 * time.Millisecond, BackoffBase: 2 * time.Millisecond, BackoffMax: 20 * time.Millisecond, Workers: 8})
	}
	final := f.waitFinal(t, orders, 60*time.Second)
	for _, o := range final {
		if sold, _ := second.books(o.ID); o.Status != topupd.StatusCompleted || sold != 1 {
			t.Errorf("order %s: %s, sold %d times by the second", o.ID, o.Status, sold)
		}
		got := f.outcomes(t, o)
		if len(got) != 2 || (got[0] != "first:refused" && got[0] != "first:not-found") || got[1] != "second:completed" {
			t.Errorf("order %s attempts %v", o.ID, got)
		}
	}
	mu.Lock()
	n := len(overlap)
	mu.Unlock()
	held := 0
	for _, o := range final {
		if holdFor(o.ID) {
			held++
		}
	}
	if n < held || held == 0 {
		t.Errorf("%d orders were called by two workers at once, want at least the %d held: a lease ran out and no other worker claimed the order", n, held)
	}
	t.Logf("%d of %d orders were worked on by two workers at once", n, len(final))
	f.checkBooks(t, final, topupd.USD(1000))
	au, err := f.store.Audit(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range au.Checks {
		if c.Violations != 0 && c.Name != "orders-final" {
			t.Errorf("audit %s: %d violations, e.g. %v", c.Name, c.Violations, c.Examples)
		}
	}
}

// slowSeller refuses every order, at times slower than a lease, ignoring
// the caller's deadline as a remote supplier's work would.
type slowSeller struct {
	refuse func(s *seller, o *topupd.Order, submit bool) (topupd.Outcome, error)
	delay  func() time.Duration
	// enter returns a channel to wait on before answering, or nil.
	enter func(id string) <-chan struct{}
	leave func(id string)
}

// holdFor picks a third of the orders, by id, to hold at the first
// supplier until another worker calls for them too.
func holdFor(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%3 == 0
}

func (s *slowSeller) call(o *topupd.Order, submit bool) (topupd.Outcome, error) {
	wait := s.enter(o.ID)
	defer s.leave(o.ID)
	if wait != nil {
		select {
		case <-wait:
		case <-time.After(20 * time.Second):
		}
	}
	time.Sleep(s.delay())
	return s.refuse(nil, o, submit)
}

func (s *slowSeller) Submit(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return s.call(o, true)
}

func (s *slowSeller) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return s.call(o, false)
}
