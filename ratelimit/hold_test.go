package ratelimit

import (
	"context"
	"testing"
	"time"
)

// leaseExpires reports when key's lease in m lapses (zero when absent).
func (m *MemoryInFlight) leaseExpires(key string) time.Time {
	sh := &m.shards[shardIndex(m.seed, key)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.locks[key].expires
}

// waitFor polls cond for up to 10 s; it only waits for goroutines to run,
// never for a time to pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting: %s", what)
		}
	}
}

// TestHoldExtendsWhileHeld: a held lock outlives its ttl for as long as its
// holder runs, and is free at once on release.
func TestHoldExtendsWhileHeld(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	release, ok, err := m.Hold(context.Background(), "trx:1", 40*time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("Hold: ok=%v err=%v", ok, err)
	}
	for range 3 {
		clk.Advance(time.Hour) // far past the ttl on the lock's own clock
		waitFor(t, "an extension", func() bool { return m.leaseExpires("trx:1").After(clk.Now()) })
		if _, ok := acquire(t, m, "trx:1", time.Minute); ok {
			t.Fatal("Acquire took a lock its live holder keeps extending")
		}
	}
	release()
	release() // safe twice
	if _, ok := acquire(t, m, "trx:1", time.Minute); !ok {
		t.Fatal("Acquire refused after release")
	}
}

// TestHoldLapsesWhenItsHolderStops: a holder whose context ends (as a dead
// holder would) stops extending; its lock lapses at its ttl without a release.
func TestHoldLapsesWhenItsHolderStops(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	ctx, cancel := context.WithCancel(context.Background())
	release, ok, err := m.Hold(ctx, "trx:2", 40*time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("Hold: ok=%v err=%v", ok, err)
	}
	defer release()
	cancel()
	time.Sleep(50 * time.Millisecond) // ticks that would extend, had it gone on
	clk.Advance(time.Hour)
	time.Sleep(50 * time.Millisecond)
	if _, ok := acquire(t, m, "trx:2", time.Minute); !ok {
		t.Fatal("the lock of a holder that stopped did not lapse")
	}
}

// TestHoldNeverExtendsAnotherHoldersLock: once a lapsed lock is taken over,
// the old holder's extensions stop and its release frees nothing.
func TestHoldNeverExtendsAnotherHoldersLock(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	ctx, cancel := context.WithCancel(context.Background())
	old, ok, _ := m.Hold(ctx, "trx:3", 40*time.Millisecond)
	if !ok {
		t.Fatal("Hold refused")
	}
	cancel()
	time.Sleep(20 * time.Millisecond)
	clk.Advance(time.Hour)
	if _, ok := acquire(t, m, "trx:3", time.Minute); !ok {
		t.Fatal("Acquire refused a lapsed lock")
	}
	want := m.leaseExpires("trx:3")
	old()
	if got := m.leaseExpires("trx:3"); !got.Equal(want) {
		t.Errorf("the old holder changed the new holder's lease: %v, want %v", got, want)
	}
}

// TestRedisHoldExtendsThenLapses: on Redis, a held lock outlives several
// ttls while its holder runs; when the holder stops (its context ends, as
// when its node dies), the key lapses by itself within the ttl.
func TestRedisHoldExtendsThenLapses(t *testing.T) {
	c, prefix := testRedis(t)
	// A generous Redis budget and ttl: extensions must not all fail on a busy machine.
	a := NewRedisInFlight(c, WithPrefix(prefix), WithTimeout(2*time.Second))
	b := NewRedisInFlight(c, WithPrefix(prefix), WithTimeout(2*time.Second))
	const ttl = 1500 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	release, ok, err := a.Hold(ctx, "trx:4", ttl)
	if err != nil || !ok {
		t.Fatalf("Hold: ok=%v err=%v", ok, err)
	}
	defer release()
	time.Sleep(3 * ttl)
	if _, ok := redisAcquire(t, b, "trx:4", time.Minute); ok {
		t.Fatal("another node took a lock its live holder keeps extending")
	}
	if pttl := c.PTTL(context.Background(), prefix+"trx:4").Val(); pttl <= 0 || pttl > ttl {
		t.Fatalf("PTTL %v, want within (0, %v]", pttl, ttl)
	}
	cancel()
	waitFor(t, "the key to lapse", func() bool { return c.Exists(context.Background(), prefix+"trx:4").Val() == 0 })
	if _, ok := redisAcquire(t, b, "trx:4", time.Minute); !ok {
		t.Fatal("another node could not take the lapsed lock")
	}
}
