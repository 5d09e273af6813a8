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

// TestHoldExtendsOnItsClock: Hold extends a lock to ttl past the now of
// MemoryInFlight's own clock, however far it jumps (the suite's Hold cases
// run on the real clock).
func TestHoldExtendsOnItsClock(t *testing.T) {
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
