// Package limittest is the behaviour suite that every topupd.RateLimiter and
// every topupd.OrderLimiter must pass: each backend's own tests call
// RunLimiter and RunOrderLimiter with a function that makes a fresh one.
//
// The suite runs in real time, since a backend may keep its own clock (Redis
// does). Its checks are chosen so that a busy machine can make them slow but
// not wrong: counts are taken within one burst of calls, windows and ttls are
// at least a second long, every wait is for a condition, bounded generously,
// and an assertion that holds only if some calls took less than a window is
// judged only when they did; a run that was slower than that is discarded
// and tried again on a fresh key.
package limittest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Window is one rolling window of a limiter under test: at most Limit calls
// in any Period (each backend's factory converts it to its own type).
type Window struct {
	Limit  int           // calls allowed in any rolling Period, at least 1
	Period time.Duration // length of the rolling window, above 0
}

// slack covers what separates the suite's clock from a backend's (which may
// be another process's) and the backend's rounding to µs or ms.
const slack = 50 * time.Millisecond

// patience bounds every wait for something that must come true by itself.
const patience = 10 * time.Second

// runs is how many runs a timed check gets before the machine is declared
// too slow for it.
const runs = 3

// errSlow says that a run of a timed check was too slow to be judged.
var errSlow = errors.New("too slow to judge")

// timed runs check, each time on a fresh key, until a run can be judged:
// check fails t itself when a judged assertion fails, and returns an error
// wrapping errSlow (from inTime) when its calls took too long for its
// assertions to hold.
func timed(t *testing.T, check func(key string) error) {
	t.Helper()
	for i := range runs {
		err := check(fmt.Sprintf("timed-%d", i))
		if err == nil {
			return
		}
		if !errors.Is(err, errSlow) {
			t.Fatal(err)
		}
		t.Logf("run %d discarded: %v", i+1, err)
	}
	t.Fatalf("all %d runs were too slow to judge: the machine is overloaded", runs)
}

// inTime returns an error wrapping errSlow when budget (less slack) has
// passed since start: what was done since start may then have outlived a
// window or ttl of length budget.
func inTime(start time.Time, budget time.Duration, what string) error {
	if took := time.Since(start); took >= budget-slack {
		return fmt.Errorf("%s took %v, not under %v: %w", what, took, budget-slack, errSlow)
	}
	return nil
}

// sleepUntil sleeps until at.
func sleepUntil(at time.Time) {
	time.Sleep(time.Until(at))
}

// endedContexts returns a cancelled context and one past its deadline.
func endedContexts(t *testing.T) []context.Context {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	t.Cleanup(cancel)
	return []context.Context{cancelled, expired}
}

// waitFor polls cond until it holds and returns when it was seen to hold; it
// fails t when cond still does not hold after bound.
func waitFor(t *testing.T, bound time.Duration, what string, cond func() bool) time.Time {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		if cond() {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", bound, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
