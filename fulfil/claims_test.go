package fulfil_test

import (
	"context"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
)

// idempotentSupplier charges at most once per order reference, as a real
// supplier keyed by our order id does, and counts how often it was asked to.
type idempotentSupplier struct {
	mu      sync.Mutex
	rng     *mrand.Rand
	charged map[string]int // order id -> purchases applied
	calling map[string]int // order id -> calls in progress now
	overlap map[string]bool
}

func (s *idempotentSupplier) answer(o *topupd.Order, submit bool) (topupd.Outcome, error) {
	s.mu.Lock()
	roll := s.rng.IntN(100)
	// Most calls are quick; one in four outlives the lease, so that another
	// worker claims the order while the first is still calling.
	delay := time.Duration(s.rng.IntN(10)) * time.Millisecond
	if s.rng.IntN(4) == 0 {
		delay = 150*time.Millisecond + time.Duration(s.rng.IntN(50))*time.Millisecond
	}
	s.calling[o.ID]++
	if s.calling[o.ID] > 1 {
		s.overlap[o.ID] = true // two workers hold this order at once
	}
	s.mu.Unlock()
	time.Sleep(delay) // slow enough, at times, to outlive the lease
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calling[o.ID]--
	if roll < 15 {
		return topupd.Outcome{}, errTimeout
	}
	if submit {
		if s.charged[o.ID] == 0 {
			s.charged[o.ID] = 1
		}
	}
	if roll < 30 {
		return topupd.Outcome{}, errTimeout // applied, answer lost
	}
	if s.charged[o.ID] == 0 {
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	}
	if o.Seq%4 == 0 {
		return topupd.Outcome{State: topupd.OutcomeFailed, Message: "INVALID PLAYER"}, nil
	}
	return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
}

func (s *idempotentSupplier) Submit(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return s.answer(o, true)
}

func (s *idempotentSupplier) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return s.answer(o, false)
}

// TestDuplicatedClaims: leases shorter than the slowest supplier calls, so
// orders are claimed again while a first worker is still calling, by three
// engines; 30% transient failures. Every order ends once, with one charge
// and at most one refund, and the supplier charges each order at most once.
func TestDuplicatedClaims(t *testing.T) {
	f := newFixture(t, topupd.USD(1000))
	s := &idempotentSupplier{rng: mrand.New(mrand.NewPCG(7, 9)), charged: map[string]int{},
		calling: map[string]int{}, overlap: map[string]bool{}}
	orders := f.place(t, 25, time.Minute)
	duplicates := 0
	for _, owner := range []string{"n1", "n2", "n3"} {
		f.engineWith(t, fulfil.Config{Providers: map[string]topupd.Provider{"scripted": s}, Owner: owner,
			CallTimeout: 50 * time.Millisecond, Lease: 100 * time.Millisecond, // a slow call takes 150-200 ms
			Poll: 2 * time.Millisecond, BackoffBase: 2 * time.Millisecond, BackoffMax: 20 * time.Millisecond, Workers: 8,
		})
	}
	final := f.waitFinal(t, orders, 60*time.Second)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range final {
		if s.overlap[o.ID] {
			duplicates++
		}
		if o.Status == topupd.StatusCompleted && s.charged[o.ID] != 1 {
			t.Errorf("order %s completed but the supplier never sold it", o.ID)
		}
	}
	// The point of the test: claims really were duplicated.
	if duplicates == 0 {
		t.Error("no order was called by two workers at once: the test did not exercise duplicated claims")
	}
	t.Logf("%d of %d orders were worked on by two workers at once", duplicates, len(final))
	f.checkBooks(t, final, topupd.USD(1000))
}

// TestDrainOnStop: stopping the engine lets a supplier call in progress
// finish and settle, and releases every lease it holds.
func TestDrainOnStop(t *testing.T) {
	f := newFixture(t, topupd.USD(10))
	started := make(chan struct{}, 1)
	s := &supplier{bought: map[string]int{}, respond: func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		time.Sleep(300 * time.Millisecond)
		return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
	}}
	orders := f.place(t, 1, time.Minute)
	e, err := fulfil.New(fulfil.Config{Store: f.store, Providers: map[string]topupd.Provider{"scripted": s}, Owner: "drainer",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Poll: 5 * time.Millisecond, Lease: time.Hour, CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	<-started
	cancel()
	<-done
	o, err := f.store.Order(context.Background(), "", orders[0].ID)
	if err != nil || o.Status != topupd.StatusCompleted {
		t.Fatalf("after draining the order is %s, %v", o.Status, err)
	}
	// Nothing is left leased to the stopped engine: another claims at once.
	more := f.place(t, 1, time.Minute)
	if _, err := f.store.ClaimDue(context.Background(), "drainer", time.Now(), time.Now().Add(time.Hour), 10); err != nil {
		t.Fatal(err)
	}
	if err := e.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	claimed, err := f.store.ClaimDue(context.Background(), "other", time.Now().Add(time.Second), time.Now().Add(time.Hour), 10)
	if err != nil || len(claimed) != 1 || claimed[0].ID != more[0].ID {
		t.Fatalf("after Recover, another node claims %d orders, %v", len(claimed), err)
	}
}
