package fulfil_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/internal/testing/fakeclock"
	"github.com/topupd/topupd/sqlite"
)

// supplier is a scripted provider that remembers what it was sold, the way
// a real supplier's books would.
type supplier struct {
	mu      sync.Mutex
	bought  map[string]int // order id -> times a purchase was applied
	calls   int
	respond func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error)
}

func (s *supplier) Submit(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return s.respond(s, o, true)
}

func (s *supplier) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return s.respond(s, o, false)
}

// buy applies a purchase; callers hold s.mu.
func (s *supplier) buy(o *topupd.Order) { s.bought[o.ID]++ }

var errTimeout = errors.New("supplier: read timeout (outcome unknown)")

// fixture is a store with one funded account and one top-up pack.
type fixture struct {
	store   *sqlite.Store
	account string
	price   topupd.Money
	// clock, when set, is the time of the orders placed and of the engines
	// started: a test moves it by hand.
	clock *fakeclock.Clock
}

// now is the fixture's time.
func (f *fixture) now() time.Time {
	if f.clock != nil {
		return f.clock.Now()
	}
	return time.Now()
}

func newFixture(t *testing.T, credit topupd.Money) *fixture {
	t.Helper()
	ctx := context.Background()
	secret := make([]byte, 32)
	rand.Read(secret)
	vault, err := topupd.NewVault(secret)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "engine.db"), vault)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	line := topupd.Line{Slug: "pubg", ProductName: "UC", GameName: "PUBG", Game: "pubg", Kind: topupd.KindTopup, Status: "active",
		Required: []topupd.RequiredField{{Field: "userId", Label: "Player"}}}
	pack := topupd.Pack{PID: "uc60", Slug: "pubg", Name: "60 UC", Price: 12500, Status: "active", Provider: "scripted"}
	if err := store.PutLine(ctx, nil, line); err != nil {
		t.Fatal(err)
	}
	if err := store.PutPack(ctx, nil, pack); err != nil {
		t.Fatal(err)
	}
	acct, err := store.CreateAccount(ctx, nil, topupd.Account{ID: "acc_engine", Name: "engine", APIEnabled: true, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Credit(ctx, nil, acct.ID, credit, "opening", time.Now()); err != nil {
		t.Fatal(err)
	}
	return &fixture{store: store, account: acct.ID, price: pack.Price}
}

// place puts n orders in the queue, none leased.
func (f *fixture) place(t *testing.T, n int, deadline time.Duration) []topupd.Order {
	t.Helper()
	var out []topupd.Order
	for i := range n {
		o, _, err := f.store.PlaceOrder(context.Background(), topupd.PlaceOrder{AccountID: f.account, Now: f.now(), Deadline: deadline,
			Request: topupd.OrderRequest{PID: "uc60", TrxID: fmt.Sprintf("%s-%d-%d", t.Name(), time.Now().UnixNano(), i), Fields: topupd.AccountFields{UserID: "5000001"}}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// engine starts an engine on the fixture's store and stops it at cleanup.
func (f *fixture) engine(t *testing.T, owner string, p topupd.Provider) *fulfil.Engine {
	t.Helper()
	return f.engineWith(t, fulfil.Config{Providers: map[string]topupd.Provider{"scripted": p}, Owner: owner,
		CallTimeout: time.Second, Lease: 2 * time.Second,
		Poll: 5 * time.Millisecond, BackoffBase: 5 * time.Millisecond, BackoffMax: 40 * time.Millisecond, Workers: 8,
	})
}

// engineWith starts an engine of cfg on the fixture's store, logging
// nowhere, and stops it at cleanup.
func (f *fixture) engineWith(t *testing.T, cfg fulfil.Config) *fulfil.Engine {
	t.Helper()
	cfg.Store, cfg.Logger = f.store, slog.New(slog.NewTextHandler(io.Discard, nil))
	if f.clock != nil {
		cfg.Now = f.clock.Now
	}
	e, err := fulfil.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return e
}

// waitFinal waits until every order is final and returns them.
func (f *fixture) waitFinal(t *testing.T, orders []topupd.Order, limit time.Duration) []topupd.Order {
	t.Helper()
	end := time.Now().Add(limit)
	for {
		var out []topupd.Order
		pending := 0
		for _, o := range orders {
			cur, err := f.store.Order(context.Background(), "", o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !cur.Status.Final() {
				pending++
			}
			out = append(out, cur)
		}
		if pending == 0 {
			return out
		}
		if time.Now().After(end) {
			t.Fatalf("%d of %d orders still processing after %v", pending, len(orders), limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkBooks verifies the ledger: one charge per order, one refund exactly
// for each refunded order, and the balance equal to the sum.
func (f *fixture) checkBooks(t *testing.T, orders []topupd.Order, credit topupd.Money) {
	t.Helper()
	entries, err := f.store.Ledger(context.Background(), f.account, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var sum topupd.Money
	charges, refunds := map[string]int{}, map[string]int{}
	for _, e := range entries {
		sum += e.Amount
		switch e.Kind {
		case topupd.EntryCharge:
			charges[e.OrderID]++
		case topupd.EntryRefund:
			refunds[e.OrderID]++
		}
	}
	want := credit
	for _, o := range orders {
		if charges[o.ID] != 1 {
			t.Errorf("order %s: %d charges", o.ID, charges[o.ID])
		}
		wantRefunds := 0
		if o.Refunded {
			wantRefunds = 1
		}
		if refunds[o.ID] != wantRefunds {
			t.Errorf("order %s (%s, refunded %v): %d refunds", o.ID, o.Status, o.Refunded, refunds[o.ID])
		}
		if o.Status == topupd.StatusCompleted {
			want -= o.Amount
		}
	}
	bal, err := f.store.Balance(context.Background(), f.account)
	if err != nil {
		t.Fatal(err)
	}
	if bal != sum || bal != want {
		t.Errorf("balance %v, ledger sum %v, want %v", bal, sum, want)
	}
}

// TestAppliedThenTimeout: the supplier applies the purchase and then the
// answer is lost. The engine must ask for the status, not buy again.
func TestAppliedThenTimeout(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	s := &supplier{bought: map[string]int{}, respond: func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls++
		if submit {
			s.buy(o)
			if s.bought[o.ID] == 1 {
				return topupd.Outcome{}, errTimeout // applied, but the caller never hears
			}
			return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
		}
		if s.bought[o.ID] == 0 {
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeCompleted, Codes: []string{"CODE-" + o.ID}}, nil
	}}
	orders := f.place(t, 10, time.Minute)
	f.engine(t, "node-a", s)
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCompleted {
			t.Errorf("order %s is %s", o.ID, o.Status)
		}
		if s.bought[o.ID] != 1 {
			t.Errorf("order %s bought %d times from the supplier", o.ID, s.bought[o.ID])
		}
		if len(o.Codes) != 1 || o.Codes[0] != "CODE-"+o.ID {
			t.Errorf("order %s codes %v", o.ID, o.Codes)
		}
	}
	f.checkBooks(t, final, topupd.USD(100))
}

// TestFlakySupplierTwoEngines: 30% transient failures (half of them after the
// purchase applied), a third of the players refused, and two engines
// claiming from one store. Every order ends, none is bought twice, and each
// refund happens once.
func TestFlakySupplierTwoEngines(t *testing.T) {
	f := newFixture(t, topupd.USD(1000))
	rng := mrand.New(mrand.NewPCG(1, 2))
	s := &supplier{bought: map[string]int{}}
	s.respond = func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls++
		roll := rng.IntN(100)
		if roll < 15 {
			return topupd.Outcome{}, errTimeout // failed before reaching the supplier
		}
		if submit && s.bought[o.ID] == 0 {
			s.buy(o)
		}
		if roll < 30 {
			return topupd.Outcome{}, errTimeout // applied, answer lost
		}
		if s.bought[o.ID] == 0 {
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		if o.Seq%3 == 0 {
			return topupd.Outcome{State: topupd.OutcomeFailed, Message: "INVALID PLAYER"}, nil
		}
		if roll < 50 {
			return topupd.Outcome{State: topupd.OutcomePending}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
	}
	orders := f.place(t, 60, time.Minute)
	f.engine(t, "node-a", s)
	f.engine(t, "node-b", s)
	final := f.waitFinal(t, orders, 20*time.Second)
	cancelled := 0
	for _, o := range final {
		if n := s.bought[o.ID]; n > 1 {
			t.Errorf("order %s bought %d times", o.ID, n)
		}
		if o.Status == topupd.StatusCancelled {
			cancelled++
			if !o.Refunded || o.Error != "INVALID PLAYER" {
				t.Errorf("order %s cancelled with %q, refunded %v", o.ID, o.Error, o.Refunded)
			}
		}
	}
	if cancelled == 0 || cancelled == len(final) {
		t.Errorf("%d of %d cancelled: the script did not exercise both ends", cancelled, len(final))
	}
	f.checkBooks(t, final, topupd.USD(1000))
}

// dark is a supplier that can go dark: while down, every call fails as a
// network error would, with the outcome unknown.
type dark struct {
	supplier
	clock   *fakeclock.Clock
	down    bool
	submits map[string][]time.Time // order id -> when each submit arrived, on clock
}

// darkSupplier returns a supplier that is down, and whose answers once back
// up come from answer.
func darkSupplier(clock *fakeclock.Clock, answer func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error)) *dark {
	d := &dark{supplier: supplier{bought: map[string]int{}}, clock: clock, down: true, submits: map[string][]time.Time{}}
	d.respond = func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		s.mu.Lock()
		if submit {
			d.submits[o.ID] = append(d.submits[o.ID], clock.Now())
		}
		down := d.down
		s.mu.Unlock()
		if down {
			return topupd.Outcome{}, errTimeout
		}
		return answer(s, o, submit)
	}
	return d
}

// setDown takes the supplier down or brings it back.
func (d *dark) setDown(v bool) {
	d.mu.Lock()
	d.down = v
	d.mu.Unlock()
}

// submitsFrom counts the submits of an order that arrived at t or later.
func (d *dark) submitsFrom(id string, t time.Time) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, at := range d.submits[id] {
		if !at.Before(t) {
			n++
		}
	}
	return n
}

// submitted reports whether every order has had a submit.
func (d *dark) submitted(orders []topupd.Order) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, o := range orders {
		if len(d.submits[o.ID]) == 0 {
			return false
		}
	}
	return true
}

// turn moves the fixture's clock on by step, every few milliseconds, until
// cond holds; it fails after 30 s of real time. The engines see time pass
// only as the test lets it, so that what happens before and after a
// deadline does not depend on how fast the machine is.
func (f *fixture) turn(t *testing.T, what string, step time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting: %s", what)
		}
		f.clock.Advance(step)
	}
}

// alerting fails the test if an order ended, and reports whether
// every order carries the alert.
func (f *fixture) alerting(t *testing.T, orders []topupd.Order, alert string) bool {
	t.Helper()
	all := true
	for _, o := range orders {
		cur, err := f.store.Order(context.Background(), "", o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status.Final() {
			t.Fatalf("order %s ended %s (%q, refunded %v) while its outcome was unknown", o.ID, cur.Status, cur.Error, cur.Refunded)
		}
		all = all && cur.Alert == alert
	}
	return all
}

// final reports whether every order is final.
func (f *fixture) final(t *testing.T, orders []topupd.Order) bool {
	t.Helper()
	for _, o := range orders {
		cur, err := f.store.Order(context.Background(), "", o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !cur.Status.Final() {
			return false
		}
	}
	return true
}

// waitAlert waits until every order carries the alert, still processing.
func (f *fixture) waitAlert(t *testing.T, orders []topupd.Order, alert string, limit time.Duration) {
	t.Helper()
	end := time.Now().Add(limit)
	for _, o := range orders {
		for {
			cur, err := f.store.Order(context.Background(), "", o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if cur.Status.Final() {
				t.Fatalf("order %s ended %s (%q, refunded %v) while its outcome was unknown", o.ID, cur.Status, cur.Error, cur.Refunded)
			}
			if cur.Alert == alert {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("order %s: alert %q after %v, want %q", o.ID, cur.Alert, limit, alert)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestDeliveredThenDarkIsNeverRefunded: the supplier applies the purchase
// and the answer is lost, then the supplier is unreachable until past the
// order's deadline. The order must stay processing with an alert, with no
// submit from its deadline on, and end completed, unrefunded, once the
// supplier answers again. The engines run on a clock the test moves.
func TestDeliveredThenDarkIsNeverRefunded(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	f.clock = fakeclock.New(time.Now().Truncate(time.Millisecond))
	// Every submit is applied and its answer lost; status calls fail while
	// the supplier is down.
	s := darkSupplier(f.clock, nil)
	s.respond = func(sp *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		sp.mu.Lock()
		defer sp.mu.Unlock()
		switch {
		case submit:
			s.submits[o.ID] = append(s.submits[o.ID], f.clock.Now())
			sp.buy(o)
			return topupd.Outcome{}, errTimeout
		case s.down:
			return topupd.Outcome{}, errTimeout
		case sp.bought[o.ID] == 0:
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
	}
	orders := f.place(t, 3, time.Minute)
	deadline := orders[0].DeadlineAt
	f.engine(t, "node-a", s)
	f.engine(t, "node-b", s)
	f.turn(t, "every order submitted before its deadline", 0, func() bool { return s.submitted(orders) })
	f.clock.Advance(2 * time.Minute)
	f.turn(t, "the past-deadline alert on every order", time.Second, func() bool { return f.alerting(t, orders, topupd.AlertPastDeadline) })
	for range 10 { // more rounds past the deadline, the supplier still dark
		f.turn(t, "a round", time.Second, func() bool { return true })
		f.alerting(t, orders, topupd.AlertPastDeadline)
	}
	s.setDown(false)
	f.turn(t, "every order final", time.Second, func() bool { return f.final(t, orders) })
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCompleted || o.Refunded {
			t.Errorf("order %s: %s %q refunded=%v, want completed", o.ID, o.Status, o.Error, o.Refunded)
		}
		if n := s.bought[o.ID]; n != 1 {
			t.Errorf("order %s bought %d times", o.ID, n)
		}
		if n := s.submitsFrom(o.ID, deadline); n != 0 {
			t.Errorf("order %s: %d submits from its deadline on", o.ID, n)
		}
	}
	f.checkBooks(t, final, topupd.USD(10))
}

// TestNeverReachedIsRefundedAtDeadline: a supplier that is unreachable from
// the start. Past the deadline the order waits, with an alert, for the
// supplier to say whether it has the order; when it says it never received
// it, the order is cancelled and refunded exactly once, and never submitted
// again from its deadline on.
func TestNeverReachedIsRefundedAtDeadline(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	f.clock = fakeclock.New(time.Now().Truncate(time.Millisecond))
	s := darkSupplier(f.clock, func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	})
	orders := f.place(t, 3, time.Minute)
	deadline := orders[0].DeadlineAt
	f.engine(t, "node-a", s)
	f.engine(t, "node-b", s)
	f.turn(t, "every order submitted before its deadline", 0, func() bool { return s.submitted(orders) })
	f.clock.Advance(2 * time.Minute)
	f.turn(t, "the past-deadline alert on every order", time.Second, func() bool { return f.alerting(t, orders, topupd.AlertPastDeadline) })
	s.setDown(false)
	f.turn(t, "every order final", time.Second, func() bool { return f.final(t, orders) })
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCancelled || o.Error != fulfil.DeadlineExceeded || !o.Refunded {
			t.Errorf("order %s: %s %q refunded=%v", o.ID, o.Status, o.Error, o.Refunded)
		}
		if n := s.submitsFrom(o.ID, deadline); n != 0 {
			t.Errorf("order %s: %d submits from its deadline on", o.ID, n)
		}
	}
	f.checkBooks(t, final, topupd.USD(10))
}

// TestUnsubmittedIsRefundedAtDeadline: an order no submit was ever started
// for is cancelled and refunded at its deadline without asking anyone.
func TestUnsubmittedIsRefundedAtDeadline(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	f.clock = fakeclock.New(time.Now().Truncate(time.Millisecond))
	orders := f.place(t, 2, time.Minute)
	f.clock.Advance(2 * time.Minute)
	s := &supplier{bought: map[string]int{}, respond: func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.calls++
		return topupd.Outcome{}, errTimeout
	}}
	f.engine(t, "node-a", s)
	final := f.waitFinal(t, orders, 10*time.Second)
	for _, o := range final {
		if o.Status != topupd.StatusCancelled || o.Error != fulfil.DeadlineExceeded || !o.Refunded {
			t.Errorf("order %s: %s %q refunded=%v", o.ID, o.Status, o.Error, o.Refunded)
		}
	}
	if s.calls != 0 {
		t.Errorf("%d supplier calls for orders never submitted before their deadline", s.calls)
	}
	f.checkBooks(t, final, topupd.USD(10))
}

// TestPendingWaitsForRetryAt: a pending answer with a time is not asked
// again before that time.
func TestPendingWaitsForRetryAt(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	due := time.Now().Add(400 * time.Millisecond)
	var early int
	s := &supplier{bought: map[string]int{}, respond: func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !submit && time.Now().Before(due.Add(-50*time.Millisecond)) {
			early++
		}
		if time.Now().Before(due) {
			return topupd.Outcome{State: topupd.OutcomePending, RetryAt: due}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
	}}
	orders := f.place(t, 1, time.Minute)
	f.engine(t, "node-a", s)
	final := f.waitFinal(t, orders, 5*time.Second)
	if final[0].Status != topupd.StatusCompleted || early != 0 {
		t.Errorf("status %s, %d status calls before the promised time", final[0].Status, early)
	}
}

// TestUsedCodeIsNotDelivered: a supplier that hands over a code already held
// in stock does not complete the order: it stays processing with an alert,
// and the code stays where it was.
func TestUsedCodeIsNotDelivered(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	if _, err := f.store.AddStock(context.Background(), "uc60", []string{"USED-CODE-1"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	s := &supplier{bought: map[string]int{}, respond: func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		return topupd.Outcome{State: topupd.OutcomeCompleted, Codes: []string{"USED-CODE-1"}}, nil
	}}
	orders := f.place(t, 1, time.Minute)
	f.engine(t, "node-a", s)
	f.waitAlert(t, orders, topupd.AlertCodeUsed, 10*time.Second)
	o, err := f.store.Order(context.Background(), "", orders[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Codes) != 0 || o.CodeCount != 0 {
		t.Errorf("order %s holds codes %v", o.ID, o.Codes)
	}
	if lv, _ := f.store.StockLevels(context.Background()); lv["uc60"] != 1 {
		t.Errorf("stock of uc60: %d, want the code still there", lv["uc60"])
	}
}
