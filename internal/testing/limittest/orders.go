package limittest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// RunOrderLimiter runs every order limiter behaviour as a parallel subtest.
// newOrders must return a fresh OrderLimiter enforcing every window at once,
// whose keys and hints no other test uses; errInvalidTTL is the error that
// AllowOrder returns (as errors.Is sees it) for a ttl that is not positive.
func RunOrderLimiter(t *testing.T, newOrders func(t *testing.T, windows []Window) topupd.OrderLimiter, errInvalidTTL error) {
	tests := []struct {
		name    string
		windows []Window
		run     func(t *testing.T, o *orders)
	}{
		{"CountedAsAllow", []Window{{3, time.Minute}}, testOrderCounted},
		{"HintHeldTakesNone", []Window{{100, time.Minute}}, testHintHeld},
		{"HintLapsesAfterTTL", []Window{{10_000, time.Minute}}, testHintLapses},
		{"ConcurrentOneTaker", []Window{{1000, time.Minute}}, testHintOneTaker},
		{"InvalidTTLAndEndedContext", []Window{{100, time.Minute}}, testOrderInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, &orders{t: t, o: newOrders(t, tc.windows), errInvalidTTL: errInvalidTTL})
		})
	}
}

// orders is an OrderLimiter under test.
type orders struct {
	t             *testing.T
	o             topupd.OrderLimiter
	errInvalidTTL error
}

// allow calls AllowOrder; it fails the test on an error, and on a refusal
// that says a hint was held.
func (o *orders) allow(key string, ttl time.Duration, hints ...string) topupd.OrderDecision {
	o.t.Helper()
	d, err := o.o.AllowOrder(context.Background(), key, hints, ttl)
	if err != nil {
		o.t.Fatalf("AllowOrder(%q, %q): %v", key, hints, err)
	}
	if !d.Allowed && d.Held {
		o.t.Fatalf("AllowOrder(%q, %q) = %+v: refused, yet a hint held", key, hints, d)
	}
	return d
}

// want fails the test unless d is allowed, with held as said.
func (o *orders) want(what string, d topupd.OrderDecision, held bool) {
	o.t.Helper()
	if !d.Allowed || d.RetryAfter != 0 || d.Held != held {
		o.t.Fatalf("%s: %+v, want allowed with Held %v", what, d, held)
	}
}

// testOrderCounted: every call is counted as Allow counts it, whether its
// hints were taken, were held, or there were none; a refused call takes no
// hint and says when to come back.
func testOrderCounted(t *testing.T, o *orders) {
	o.want("the first call", o.allow("acct", time.Minute, "trx:1"), false)
	o.want("a repeat", o.allow("acct", time.Minute, "trx:1"), true)
	o.want("a call without hints", o.allow("acct", time.Minute), false)
	d := o.allow("acct", time.Minute, "trx:2")
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
		t.Fatalf("the 4th call in a window of 3: %+v, want refused with RetryAfter in (0, 1m]", d)
	}
	o.want("trx:2 on another key after its refusal", o.allow("other", time.Minute, "trx:2"), false)
}

// testHintHeld: a call finding any of its hints held takes none of them.
func testHintHeld(t *testing.T, o *orders) {
	o.want("taking trx:1 and idem:1", o.allow("acct", time.Minute, "trx:1", "idem:1"), false)
	o.want("trx:1 again", o.allow("acct", time.Minute, "trx:1"), true)
	o.want("idem:1 again, another account", o.allow("other", time.Minute, "idem:1"), true)
	o.want("trx:2 with the held idem:1", o.allow("acct", time.Minute, "trx:2", "idem:1"), true)
	o.want("trx:2, which the call before did not take", o.allow("acct", time.Minute, "trx:2"), false)
}

// testHintLapses: a hint is held for its ttl from when it was taken, and
// lapses by itself after it.
func testHintLapses(t *testing.T, o *orders) {
	const ttl = time.Second
	timed(t, func(key string) error {
		hint := "trx:" + key
		taken := time.Now()
		o.want("taking the hint", o.allow("acct", ttl, hint), false)
		d := o.allow("acct", ttl, hint)
		if err := inTime(taken, ttl, "taking the hint and asking again"); err != nil {
			return err
		}
		o.want("the hint again within its ttl", d, true)
		free := waitFor(t, patience, "the hint to lapse", func() bool {
			d := o.allow("acct", ttl, hint)
			if !d.Allowed {
				t.Fatalf("refused while polling: %+v", d)
			}
			return !d.Held
		})
		if early := free.Sub(taken); early < ttl-slack {
			t.Fatalf("the hint lapsed %v after it was taken, want at least %v", early, ttl)
		}
		return nil
	})
}

// testHintOneTaker: of callers racing for one hint, exactly one takes it.
func testHintOneTaker(t *testing.T, o *orders) {
	const rounds, callers = 10, 32
	for round := range rounds {
		hint := fmt.Sprint("trx:", round)
		takers := race(callers, func(i int) int64 {
			d, err := o.o.AllowOrder(context.Background(), fmt.Sprint("acct-", i), []string{hint}, time.Minute)
			if err != nil || !d.Allowed {
				t.Errorf("AllowOrder: %+v, %v", d, err)
				return 0
			}
			if d.Held {
				return 0
			}
			return 1
		})
		if takers != 1 {
			t.Fatalf("round %d: %d of %d racing callers took the hint, want exactly 1", round, takers, callers)
		}
	}
}

// testOrderInvalid: a ttl that is not positive, or an ended context, fails
// the call and takes nothing.
func testOrderInvalid(t *testing.T, o *orders) {
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, err := o.o.AllowOrder(context.Background(), "acct", []string{"trx:1"}, ttl); err == nil ||
			(o.errInvalidTTL != nil && !errors.Is(err, o.errInvalidTTL)) {
			t.Fatalf("AllowOrder with ttl %v: %v, want %v", ttl, err, o.errInvalidTTL)
		}
	}
	for _, ctx := range endedContexts(t) {
		if _, err := o.o.AllowOrder(ctx, "acct", []string{"trx:1"}, time.Minute); err == nil {
			t.Fatal("AllowOrder under an ended context succeeded")
		}
	}
	o.want("trx:1 after the failed calls", o.allow("acct", time.Minute, "trx:1"), false)
}
