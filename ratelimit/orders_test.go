package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/limittest"
)

// TestMemoryOrdersSuite runs the behaviour suite of every OrderLimiter on
// MemoryOrders over Memory, on the real clock.
func TestMemoryOrdersSuite(t *testing.T) {
	t.Parallel()
	limittest.RunOrderLimiter(t, func(t *testing.T, windows []limittest.Window) topupd.OrderLimiter {
		return NewMemoryOrders(NewMemory(windowsOf(windows), nil), nil)
	}, ErrInvalidTTL)
}

// TestRedisOrdersSuite runs the same suite on Redis, each subtest under key
// prefixes of its own.
func TestRedisOrdersSuite(t *testing.T) {
	testRedisOptions(t)
	t.Parallel()
	limittest.RunOrderLimiter(t, func(t *testing.T, windows []limittest.Window) topupd.OrderLimiter {
		c, prefix := testRedis(t)
		return NewRedis(c, windowsOf(windows), WithPrefix(prefix+"rl:"), WithHintPrefix(prefix+"if:"), WithTimeout(suiteTimeout))
	}, ErrInvalidTTL)
}

// TestMemoryOrdersTTL: on a fake clock, a hint is held during [t, t+ttl)
// and free at t+ttl; a call finding it held neither extends it nor takes
// the call's other hints.
func TestMemoryOrdersTTL(t *testing.T) {
	clk := newFakeClock()
	o := NewMemoryOrders(NewMemory([]Window{{Limit: 100, Period: time.Minute}}, clk.Now), clk.Now)
	allow := func(hints ...string) OrderDecision {
		t.Helper()
		d, err := o.AllowOrder(context.Background(), "acct", hints, 3*time.Second)
		if err != nil || !d.Allowed {
			t.Fatalf("AllowOrder(%q) = %+v, %v", hints, d, err)
		}
		return d
	}
	if allow("trx:1").Held {
		t.Fatal("a fresh hint was held")
	}
	clk.Set(2 * time.Second)
	if !allow("trx:1", "idem:1").Held {
		t.Fatal("trx:1 free 2 s after it was taken for 3 s")
	}
	clk.Set(3*time.Second - time.Nanosecond)
	if !allow("trx:1").Held {
		t.Fatal("trx:1 free before its ttl ended")
	}
	clk.Set(3 * time.Second)
	if allow("trx:1").Held || allow("idem:1").Held {
		t.Fatal("trx:1 held at its ttl (a held call extended it), or idem:1 taken by a call that found trx:1 held")
	}
}

// TestMemoryOrdersLimiterFails: a limiter that fails or refuses fails or
// refuses the call, and no hint is taken.
func TestMemoryOrdersLimiterFails(t *testing.T) {
	down := errors.New("down")
	var answer func() (Decision, error)
	o := NewMemoryOrders(topupd.RateLimiterFunc(func(context.Context, string) (Decision, error) { return answer() }), nil)
	answer = func() (Decision, error) { return Decision{}, down }
	if _, err := o.AllowOrder(context.Background(), "acct", []string{"trx:1"}, time.Minute); !errors.Is(err, down) {
		t.Fatalf("AllowOrder with the limiter down: %v", err)
	}
	answer = func() (Decision, error) { return Decision{RetryAfter: time.Second}, nil }
	if d, err := o.AllowOrder(context.Background(), "acct", []string{"trx:1"}, time.Minute); err != nil || d.Allowed || d.Held || d.RetryAfter != time.Second {
		t.Fatalf("AllowOrder refused: %+v, %v", d, err)
	}
	answer = func() (Decision, error) { return Decision{Allowed: true}, nil }
	if d, err := o.AllowOrder(context.Background(), "acct", []string{"trx:1"}, time.Minute); err != nil || !d.Allowed || d.Held {
		t.Fatalf("AllowOrder after the failed calls: %+v, %v, want trx:1 taken", d, err)
	}
}

// TestMemoryOrdersSweep: lapsed hints are forgotten once a shard's map has
// grown, so memory follows the hints taken recently.
func TestMemoryOrdersSweep(t *testing.T) {
	clk := newFakeClock()
	o := NewMemoryOrders(NewMemory([]Window{{Limit: 1_000_000, Period: time.Second}}, clk.Now), clk.Now)
	const n, live = 200 * numShards, 100
	for i := range n {
		hint := fmt.Sprint("trx:", i)
		if d, err := o.AllowOrder(context.Background(), "acct", []string{hint}, time.Second); err != nil || d.Held {
			t.Fatalf("AllowOrder: %+v, %v", d, err)
		}
		clk.Set(time.Duration(i+1) * time.Second / live) // each hint lapses live takes later
	}
	held := 0
	for i := range o.shards {
		held += len(o.shards[i].expires)
	}
	if held > numShards*minSweepAt+live {
		t.Fatalf("%d hints kept after taking %d, each lapsing %d takes later", held, n, live)
	}
}

// TestRedisOrdersKeys: on Redis, an allowed call is one entry in the
// account's sorted set and each hint a key prefix+hint expiring after the
// ttl; a call finding a hint held is counted but writes no hint and leaves
// the held one's expiry alone; a refused call writes nothing.
func TestRedisOrdersKeys(t *testing.T) {
	c, prefix := testRedis(t)
	ctx := context.Background()
	rl, hp := prefix+"rl:", prefix+"if:"
	a := NewRedis(c, []Window{{Limit: 3, Period: time.Minute}}, WithPrefix(rl), WithHintPrefix(hp))
	b := NewRedis(newTestClient(t), []Window{{Limit: 3, Period: time.Minute}}, WithPrefix(rl), WithHintPrefix(hp)) // another node
	allow := func(l *Redis, hints ...string) OrderDecision {
		t.Helper()
		d, err := l.AllowOrder(ctx, "acct", hints, 3*time.Second)
		if err != nil {
			t.Fatalf("AllowOrder(%q): %v", hints, err)
		}
		return d
	}
	if d := allow(a, "trx:1", "idem:acct:k"); !d.Allowed || d.Held {
		t.Fatalf("first call: %+v", d)
	}
	for _, k := range []string{"trx:1", "idem:acct:k"} {
		if ttl := c.PTTL(ctx, hp+k).Val(); ttl <= 2*time.Second || ttl > 3*time.Second {
			t.Fatalf("%s expires in %v, want (2s, 3s]", k, ttl)
		}
	}
	time.Sleep(100 * time.Millisecond)
	before := c.PTTL(ctx, hp+"trx:1").Val()
	if d := allow(b, "trx:2", "trx:1"); !d.Allowed || !d.Held {
		t.Fatalf("a repeat on another node: %+v, want allowed and held", d)
	}
	if after := c.PTTL(ctx, hp+"trx:1").Val(); after > before {
		t.Fatalf("a held hint was extended: %v, then %v", before, after)
	}
	if c.Exists(ctx, hp+"trx:2").Val() != 0 {
		t.Fatal("a call that found a hint held took its other hint")
	}
	if n := len(scores(t, c, rl+"acct")); n != 2 {
		t.Fatalf("%d calls recorded, want 2", n)
	}
	allow(a) // the third call in the window, without hints
	if d := allow(a, "trx:3"); d.Allowed || d.Held || d.RetryAfter <= 0 {
		t.Fatalf("the 4th call in a window of 3: %+v, want refused", d)
	}
	if c.Exists(ctx, hp+"trx:3").Val() != 0 || len(scores(t, c, rl+"acct")) != 3 {
		t.Fatal("a refused call wrote a hint or was recorded")
	}
}
