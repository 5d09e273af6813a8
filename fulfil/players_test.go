package fulfil_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// checker is a seller that also checks players, with a scripted answer,
// and counts the checks it was asked.
type checker struct {
	*seller
	answer func(ctx context.Context) (topupd.PlayerCheck, error)
	mu     sync.Mutex
	asked  int
}

func (c *checker) CheckPlayer(ctx context.Context, _ topupd.Supplier, _ topupd.AccountFields) (topupd.PlayerCheck, error) {
	c.mu.Lock()
	c.asked++
	c.mu.Unlock()
	return c.answer(ctx)
}

func (c *checker) checks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

// answers returns a checker that sells orders and answers checks so.
func answers(res topupd.PlayerCheck, err error) *checker {
	return &checker{seller: newSeller(sells), answer: func(context.Context) (topupd.PlayerCheck, error) { return res, err }}
}

var (
	valid       = topupd.PlayerCheck{Supported: true, Valid: true, Nickname: "Player1234"}
	notValid    = topupd.PlayerCheck{Supported: true}
	errDown     = errors.New("dial tcp 127.0.0.1:1: connection refused")
	alice       = topupd.AccountFields{UserID: "51234"}
	first2nd3rd = []topupd.Supplier{{Provider: "first"}, {Provider: "second"}, {Provider: "third"}}
)

// TestCheckPlayerOrder: the suppliers are asked in the pack's order; one
// that cannot check (no PlayerChecker, or its zero answer) or fails is
// passed over; the first that can check decides; with none, the answer is
// not supported, and with a failure and no answer SUPPLIER_UNAVAILABLE.
func TestCheckPlayerOrder(t *testing.T) {
	f := newFixture(t, topupd.USD(1))
	for _, tc := range []struct {
		name                  string
		first, second, third  topupd.Provider
		want                  topupd.PlayerCheck
		code                  topupd.ErrorCode
		askedSecond, askThird int
	}{
		{"the first answers", answers(valid, nil), answers(notValid, nil), answers(notValid, nil), valid, "", 0, 0},
		{"not valid is an answer", answers(notValid, nil), answers(valid, nil), answers(valid, nil), notValid, "", 0, 0},
		{"no checker, then one that cannot check, then one that can", newSeller(sells), answers(topupd.PlayerCheck{}, nil),
			answers(valid, nil), valid, "", 1, 1},
		{"a failure, then an answer", answers(topupd.PlayerCheck{}, errDown), answers(notValid, nil), answers(valid, nil), notValid, "", 1, 0},
		{"none can check", newSeller(sells), answers(topupd.PlayerCheck{}, nil), newSeller(sells), topupd.PlayerCheck{}, "", 1, 0},
		{"a failure, and none can check", answers(topupd.PlayerCheck{}, errDown), newSeller(sells), answers(topupd.PlayerCheck{}, nil),
			topupd.PlayerCheck{}, topupd.ESupplierUnavailable, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := f.failoverEngine(t, "node-"+tc.name, map[string]topupd.Provider{"first": tc.first, "second": tc.second, "third": tc.third})
			got, err := e.CheckPlayer(context.Background(), first2nd3rd, alice)
			if topupd.CodeOf(err) != tc.code && !(err == nil && tc.code == "") {
				t.Errorf("error %v, want code %q", err, tc.code)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if err != nil && errors.Is(err, errDown) {
				t.Errorf("the error carries the supplier's own: %v", err)
			}
			for _, w := range []struct {
				p    topupd.Provider
				want int
			}{{tc.second, tc.askedSecond}, {tc.third, tc.askThird}} {
				if c, ok := w.p.(*checker); ok && c.checks() != w.want {
					t.Errorf("a later supplier was asked %d times, want %d", c.checks(), w.want)
				}
			}
		})
	}
}

// TestCheckPlayerHealthyFirst: a supplier this node finds unhealthy is
// asked after the healthy ones, and still asked when they cannot check.
func TestCheckPlayerHealthyFirst(t *testing.T) {
	f := newFixture(t, topupd.USD(100))
	f.clock = fakeclock.New(time.Now().Truncate(time.Millisecond))
	first := &checker{seller: newSeller(func(*seller, *topupd.Order, bool) (topupd.Outcome, error) { return topupd.Outcome{}, errBroke }),
		answer: func(context.Context) (topupd.PlayerCheck, error) { return notValid, nil }}
	second := answers(valid, nil)
	pid := f.listPack(t, firstThenSecond...)
	e := f.engineWith(t, fulfil.Config{Providers: map[string]topupd.Provider{"first": first, "second": second}, Owner: "node-a",
		CallTimeout: time.Second, Lease: time.Minute, Poll: 5 * time.Millisecond, Workers: 8, HealthHold: time.Minute})
	f.waitFinal(t, f.placeOf(t, pid, 1, time.Hour), 10*time.Second) // the first refuses it for our balance: alerting

	got, err := e.CheckPlayer(context.Background(), firstThenSecond, alice)
	if err != nil || got != valid || first.checks() != 0 {
		t.Errorf("with the first unhealthy: %+v, %v, the first asked %d times; want the second's answer alone", got, err, first.checks())
	}
	second.answer = func(context.Context) (topupd.PlayerCheck, error) { return topupd.PlayerCheck{}, nil }
	got, err = e.CheckPlayer(context.Background(), firstThenSecond, alice)
	if err != nil || got != notValid || first.checks() != 1 {
		t.Errorf("with the second unable to check: %+v, %v, the first asked %d times; want the first's answer", got, err, first.checks())
	}
}

// TestCheckPlayerDeadline: a supplier that does not answer within
// CheckTimeout makes the check SUPPLIER_UNAVAILABLE, and its call's
// context ends; the suppliers after it are not asked.
func TestCheckPlayerDeadline(t *testing.T) {
	f := newFixture(t, topupd.USD(1))
	ended := make(chan struct{})
	slow := &checker{seller: newSeller(sells), answer: func(ctx context.Context) (topupd.PlayerCheck, error) {
		<-ctx.Done() // a supplier that never answers
		close(ended)
		return topupd.PlayerCheck{}, ctx.Err()
	}}
	next := answers(valid, nil)
	e := f.engineWith(t, fulfil.Config{Providers: map[string]topupd.Provider{"first": slow, "second": next}, Owner: "node-a",
		CheckTimeout: 50 * time.Millisecond})
	_, err := e.CheckPlayer(context.Background(), firstThenSecond, alice)
	if topupd.CodeOf(err) != topupd.ESupplierUnavailable {
		t.Errorf("error %v, want %s", err, topupd.ESupplierUnavailable)
	}
	<-ended
	if next.checks() != 0 {
		t.Errorf("the next supplier was asked after the time ran out")
	}
}
