package fulfil_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// TestStalledWorkerDoesNotSubmit: a worker that stalls between its claim
// and its supplier calls, while another node claims the order and
// settles it, does not submit it again when it goes on (the simulator's
// seed 17 found such a submit of an order already refunded).
func TestStalledWorkerDoesNotSubmit(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 1_000_000)
	f.clock = fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	order := f.place(t, 1, time.Hour)[0]
	phase := "lost" // the first submit times out before reaching the supplier; the second is refused
	s := &supplier{bought: map[string]int{}, respond: func(s *supplier, o *topupd.Order, submit bool) (topupd.Outcome, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case submit && phase == "lost":
			return topupd.Outcome{}, errTimeout
		case submit && phase == "refuse":
			return topupd.Outcome{State: topupd.OutcomeFailed, Message: "OUT OF STOCK"}, nil
		case submit:
			s.buy(o)
		case s.bought[o.ID] == 0:
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
	}}
	engine := func(owner string) *fulfil.Engine {
		e, err := fulfil.New(fulfil.Config{Store: f.store, Providers: map[string]topupd.Provider{"scripted": s}, Owner: owner,
			Now: f.clock.Now, CallTimeout: 10 * time.Second, Lease: 20 * time.Second, BackoffBase: time.Second, BackoffMax: time.Second,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	claim := func(e *fulfil.Engine) topupd.Order {
		t.Helper()
		claimed, err := e.Claim(ctx, 1)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim: %d orders, %v", len(claimed), err)
		}
		return claimed[0]
	}
	a, b := engine("a"), engine("b")
	if o := a.Process(ctx, claim(a), false); o.Supplier != topupd.SupplierSubmitting || o.Status != topupd.StatusProcessing {
		t.Fatalf("after a lost submit the order is %s, %s; want processing, submitting", o.Status, o.Supplier)
	}
	f.clock.Advance(time.Minute) // the retry falls due
	stale := claim(a)
	f.clock.Advance(21 * time.Second) // a stalls past its lease
	phase = "refuse"
	if o := b.Process(ctx, claim(b), false); o.Status != topupd.StatusCancelled || !o.Refunded {
		t.Fatalf("b, whose submit was refused: order %s refunded=%v; want cancelled and refunded", o.Status, o.Refunded)
	}
	phase = "sell"
	a.Process(ctx, stale, false)
	if s.bought[order.ID] != 0 {
		t.Fatalf("the stalled worker bought the refunded order %d times", s.bought[order.ID])
	}
}
