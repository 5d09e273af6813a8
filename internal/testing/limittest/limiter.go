package limittest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// RunLimiter runs every limiter behaviour as a parallel subtest. newLimiter
// must return a fresh limiter enforcing every window at once, whose keys no
// other test uses.
func RunLimiter(t *testing.T, newLimiter func(t *testing.T, windows []Window) topupd.RateLimiter) {
	tests := []struct {
		name    string
		windows []Window
		run     func(t *testing.T, l *limiter)
	}{
		{"BurstThenRetryAfter", spec, testBurst},
		{"TighterWindowDecides", []Window{{3, time.Second}, {5, 3 * time.Second}}, testTwoWindows},
		{"RefusedCallsAreNotRecorded", []Window{{3, time.Second}}, testRefusalsNotRecorded},
		{"KeysAreIndependent", []Window{{3, time.Minute}}, testKeysIndependent},
		{"CancelledContext", []Window{{1, time.Minute}}, testCancelledContext},
		{"ConcurrentOneKey", []Window{{10, time.Minute}}, testConcurrentOneKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := &limiter{t: t, l: newLimiter(t, tc.windows), windows: tc.windows}
			for _, w := range tc.windows {
				l.longest = max(l.longest, w.Period)
			}
			tc.run(t, l)
		})
	}
}

// spec is the product's rolling limits, topupd's defaults: 40 calls in any
// second and 200 in any minute.
var spec = []Window{{topupd.DefaultRatePerSecond, time.Second}, {topupd.DefaultRatePerMinute, time.Minute}}

// limiter is a limiter under test with the windows it enforces.
type limiter struct {
	t       *testing.T
	l       topupd.RateLimiter
	windows []Window
	longest time.Duration // the longest Period
}

// call is one decision and when the call that got it returned.
type call struct {
	topupd.RateDecision
	at time.Time
}

// allow makes one call under key and returns its decision. It fails the
// test on an error and on a decision no limiter may give in calls made one
// after another: allowed with a RetryAfter, or refused with a RetryAfter not
// in (0, longest Period].
func (l *limiter) allow(key string) call {
	l.t.Helper()
	d, err := l.l.Allow(context.Background(), key)
	if err != nil {
		l.t.Fatalf("Allow(%q): %v", key, err)
	}
	if err := l.valid(d, l.longest); err != nil {
		l.t.Fatalf("Allow(%q): %v", key, err)
	}
	return call{d, time.Now()}
}

// valid checks the RetryAfter of d: zero when allowed, in (0, bound] when refused.
func (l *limiter) valid(d topupd.RateDecision, bound time.Duration) error {
	if d.Allowed && d.RetryAfter != 0 {
		return fmt.Errorf("allowed with RetryAfter %v, want 0", d.RetryAfter)
	}
	if !d.Allowed && (d.RetryAfter <= 0 || d.RetryAfter > bound) {
		return fmt.Errorf("refused with RetryAfter %v, want in (0, %v]", d.RetryAfter, bound)
	}
	return nil
}

// allowN makes n calls under key, each of which must be allowed; it returns
// when the last one returned.
func (l *limiter) allowN(key string, n int, what string) time.Time {
	l.t.Helper()
	var c call
	for i := range n {
		if c = l.allow(key); !c.Allowed {
			l.t.Fatalf("%s: call %d of %d under %q refused (RetryAfter %v)", what, i+1, n, key, c.RetryAfter)
		}
	}
	return c.at
}

// refuse makes one call under key, which must be refused.
func (l *limiter) refuse(key, what string) call {
	l.t.Helper()
	c := l.allow(key)
	if c.Allowed {
		l.t.Fatalf("%s: call under %q allowed, want refused", what, key)
	}
	return c
}

// pastBurst makes n calls under key that must be allowed, then one more that
// must be refused, provided that all since start took less than within;
// it returns that call, or an error wrapping errSlow when it cannot judge.
func (l *limiter) pastBurst(key string, n int, start time.Time, within time.Duration, what string) (call, error) {
	l.t.Helper()
	l.allowN(key, n, what)
	c := l.allow(key)
	if err := inTime(start, within, what); err != nil {
		return c, err
	}
	if c.Allowed {
		l.t.Fatalf("%s: call %d under %q allowed, want refused", what, n+1, key)
	}
	return c, nil
}

// testBurst: a burst is allowed up to the tighter limit and refused past it;
// a refusal's RetryAfter is the time until the burst's first call leaves the
// window, and a call once it has passed is allowed.
func testBurst(t *testing.T, l *limiter) {
	w := l.windows[0]
	timed(t, func(key string) error {
		start := time.Now()
		l.allowN(key, w.Limit, "burst")
		var refused []call
		for range 5 {
			refused = append(refused, l.allow(key))
		}
		if err := inTime(start, w.Period, "the burst and the calls past it"); err != nil {
			return err
		}
		for i, c := range refused {
			if c.Allowed {
				t.Fatalf("call %d past a burst of %d allowed", i+1, w.Limit)
			}
			// The burst's first call left the window at start+Period at the earliest.
			if lo := start.Add(w.Period).Sub(c.at) - slack; c.RetryAfter > w.Period || c.RetryAfter < lo {
				t.Fatalf("call %d past the burst: RetryAfter %v, want in [%v, %v]", i+1, c.RetryAfter, lo, w.Period)
			}
		}
		last := refused[len(refused)-1]
		sleepUntil(last.at.Add(last.RetryAfter + slack))
		if c := l.allow(key); !c.Allowed {
			t.Fatalf("call once the last RetryAfter (%v) passed refused (RetryAfter %v)", last.RetryAfter, c.RetryAfter)
		}
		return nil
	})
}

// testTwoWindows: with 3 calls a second and 5 in 3 s, the tighter window
// refuses the 4th call of a burst; once the burst has left the short window
// two more are allowed, and then the long window refuses, for longer than
// the short one would, until the first call leaves it.
func testTwoWindows(t *testing.T, l *limiter) {
	short, long := l.windows[0], l.windows[1]
	timed(t, func(key string) error {
		start := time.Now()
		c, err := l.pastBurst(key, short.Limit, start, short.Period, "a burst in the short window")
		if err != nil {
			return err
		}
		if lo := start.Add(short.Period).Sub(c.at) - slack; c.RetryAfter > short.Period || c.RetryAfter < lo {
			t.Fatalf("short window full: RetryAfter %v, want in [%v, %v]", c.RetryAfter, lo, short.Period)
		}

		sleepUntil(c.at.Add(short.Period + slack)) // the whole burst has left the short window
		// Judged only while the long window's RetryAfter must exceed the short Period.
		c, err = l.pastBurst(key, long.Limit-short.Limit, start, long.Period-short.Period, "calls after the short window")
		if err != nil {
			return err
		}
		if lo := start.Add(long.Period).Sub(c.at) - slack; c.RetryAfter <= short.Period || c.RetryAfter < lo {
			t.Fatalf("long window full: RetryAfter %v, want above %v and at least %v", c.RetryAfter, short.Period, lo)
		}

		sleepUntil(c.at.Add(c.RetryAfter + slack))
		if d := l.allow(key); !d.Allowed {
			t.Fatalf("call once the long window's RetryAfter (%v) passed refused (RetryAfter %v)", c.RetryAfter, d.RetryAfter)
		}
		return nil
	})
}

// testRefusalsNotRecorded: calls refused for half a window do not count, so
// the wait they were told does not grow, and once the allowed calls have
// left the window a full Limit is allowed again.
func testRefusalsNotRecorded(t *testing.T, l *limiter) {
	w := l.windows[0]
	timed(t, func(key string) error {
		start := time.Now()
		burst := l.allowN(key, w.Limit, "burst")
		var refused []call
		for time.Since(burst) < w.Period/2 {
			refused = append(refused, l.allow(key))
			time.Sleep(10 * time.Millisecond)
		}
		if err := inTime(start, w.Period, "the burst and the refusals"); err != nil {
			return err
		}
		for i, c := range refused {
			if c.Allowed {
				t.Fatalf("call %d past a burst of %d allowed", i+1, w.Limit)
			}
			if i > 0 && c.RetryAfter > refused[i-1].RetryAfter {
				t.Fatalf("refusal %d: RetryAfter %v, longer than the one before (%v): a refusal counted", i+1, c.RetryAfter, refused[i-1].RetryAfter)
			}
		}

		// The burst has left the window; the refusals would still be in it.
		sleepUntil(burst.Add(w.Period + slack))
		_, err := l.pastBurst(key, w.Limit, time.Now(), w.Period, "a burst once the first left the window")
		return err
	})
}

// testKeysIndependent: one key's calls never count against another's; the
// empty key is a key like any other.
func testKeysIndependent(t *testing.T, l *limiter) {
	w := l.windows[0]
	l.allowN("a", w.Limit, "a")
	l.refuse("a", "a past its limit")
	l.allowN("b", w.Limit, "b while a is refused")
	l.refuse("b", "b past its limit")
	l.allowN("", w.Limit, "the empty key")
	l.refuse("", "the empty key past its limit")
	l.allowN("a:b", 1, "a key that extends a")
	l.refuse("a", "a after the other keys")
}

// testCancelledContext: a call under a context that has ended fails with
// the context's error and records nothing.
func testCancelledContext(t *testing.T, l *limiter) {
	for _, ctx := range endedContexts(t) {
		for range 3 {
			d, err := l.l.Allow(ctx, "k")
			if !errors.Is(err, ctx.Err()) || d.Allowed {
				t.Fatalf("Allow under an ended context = (%+v, %v), want (not allowed, %v)", d, err, ctx.Err())
			}
		}
	}
	l.allowN("k", l.windows[0].Limit, "after the failed calls")
	l.refuse("k", "past the limit")
}
