package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/limittest"
)

// redisAcquire calls l.Acquire with a background context and fails the test on error.
func redisAcquire(t *testing.T, l *RedisInFlight, key string, ttl time.Duration) (func(), bool) {
	t.Helper()
	release, ok, err := l.Acquire(context.Background(), key, ttl)
	if err != nil {
		t.Fatalf("Acquire(%q): %v", key, err)
	}
	if release == nil {
		t.Fatalf("Acquire(%q) returned a nil release", key)
	}
	return release, ok
}

// TestRedisInFlightSuite runs the behaviour suite of every InFlight on
// Redis, each subtest under a key prefix of its own.
func TestRedisInFlightSuite(t *testing.T) {
	testRedisOptions(t)
	t.Parallel()
	limittest.RunInFlight(t, func(t *testing.T) topupd.InFlight {
		c, prefix := testRedis(t)
		return NewRedisInFlight(c, WithPrefix(prefix), WithTimeout(suiteTimeout))
	}, ErrInvalidTTL)
}

// TestRedisInFlightKeys: a lock is the key prefix+key, shared by every node,
// with Redis's expiry set to the ttl; a failed Acquire writes no key, a
// release deletes it, and a Hold keeps resetting its expiry to the ttl
// until its holder stops, when the key vanishes by itself.
func TestRedisInFlightKeys(t *testing.T) {
	c, prefix := testRedis(t)
	ctx := context.Background()
	// Two nodes on clients of their own; a generous budget so that a busy
	// machine cannot fail every extension of the Hold below.
	a := NewRedisInFlight(c, WithPrefix(prefix), WithTimeout(suiteTimeout))
	b := NewRedisInFlight(newTestClient(t), WithPrefix(prefix), WithTimeout(suiteTimeout))
	exists := func(key string) bool { return c.Exists(ctx, prefix+key).Val() == 1 }

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, _, err := a.Acquire(ctx, "k", ttl); err == nil {
			t.Fatalf("Acquire with ttl %v succeeded", ttl)
		}
	}
	if _, _, err := a.Acquire(canceled, "k", time.Second); err == nil {
		t.Fatal("Acquire with a canceled context succeeded")
	}
	if exists("k") {
		t.Fatal("a failed Acquire left a key")
	}

	const ttl = 1500 * time.Millisecond
	release, ok := redisAcquire(t, a, "k", ttl)
	if !ok {
		t.Fatal("Acquire refused")
	}
	if pttl := c.PTTL(ctx, prefix+"k").Val(); pttl <= 0 || pttl > ttl {
		t.Fatalf("PTTL = %v, want in (0, %v]", pttl, ttl)
	}
	if _, ok := redisAcquire(t, b, "k", ttl); ok {
		t.Fatal("another node took a held lock")
	}
	release()
	if exists("k") {
		t.Fatal("key still present after release")
	}

	holdCtx, stop := context.WithCancel(ctx)
	defer stop()
	held, ok, err := a.Hold(holdCtx, "h", ttl)
	if err != nil || !ok {
		t.Fatalf("Hold: ok=%v err=%v", ok, err)
	}
	defer held()
	time.Sleep(ttl + ttl/2)
	if pttl := c.PTTL(ctx, prefix+"h").Val(); pttl <= 0 || pttl > ttl {
		t.Fatalf("%v into a Hold: PTTL = %v, want in (0, %v]", ttl+ttl/2, pttl, ttl)
	}
	if _, ok := redisAcquire(t, b, "h", time.Minute); ok {
		t.Fatal("another node took a lock its live holder keeps extending")
	}
	stop()
	waitFor(t, "the key to lapse", func() bool { return !exists("h") })
	if _, ok := redisAcquire(t, b, "h", time.Minute); !ok {
		t.Fatal("another node could not take the lapsed lock")
	}
}
