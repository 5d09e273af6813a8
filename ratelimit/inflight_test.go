package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/limittest"
)

// leaseCount reports how many leases (live or expired) m currently stores.
func (m *MemoryInFlight) leaseCount() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.locks)
		sh.mu.Unlock()
	}
	return n
}

// acquire calls m.Acquire with a background context and fails the test on error.
func acquire(t *testing.T, m *MemoryInFlight, key string, ttl time.Duration) (func(), bool) {
	t.Helper()
	release, ok, err := m.Acquire(context.Background(), key, ttl)
	if err != nil {
		t.Fatalf("Acquire(%q): %v", key, err)
	}
	if release == nil {
		t.Fatalf("Acquire(%q) returned a nil release", key)
	}
	return release, ok
}

// TestMemoryInFlightSuite runs the behaviour suite of every InFlight on
// MemoryInFlight, on the real clock.
func TestMemoryInFlightSuite(t *testing.T) {
	t.Parallel()
	limittest.RunInFlight(t, func(t *testing.T) topupd.InFlight { return NewMemoryInFlight(nil) }, ErrInvalidTTL)
}

// TestMemoryInFlightStoresNoDeadLeases: a failed Acquire or Hold (the
// suite's InvalidTTL and CancelledContext) stores no lease, and a release
// deletes its lease at once.
func TestMemoryInFlightStoresNoDeadLeases(t *testing.T) {
	m := NewMemoryInFlight(newFakeClock().Now)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, take := range []func(context.Context, string, time.Duration) (func(), bool, error){m.Acquire, m.Hold} {
		for _, c := range []struct {
			ctx context.Context
			ttl time.Duration
		}{{context.Background(), 0}, {context.Background(), -time.Second}, {canceled, time.Second}} {
			if _, _, err := take(c.ctx, "k", c.ttl); err == nil {
				t.Fatalf("taking with ttl %v under %v succeeded", c.ttl, c.ctx)
			}
		}
	}
	if n := m.leaseCount(); n != 0 {
		t.Fatalf("failed Acquires and Holds left %d leases", n)
	}
	released, _ := acquire(t, m, "a", time.Hour)
	held, ok, err := m.Hold(context.Background(), "h", time.Hour)
	if !ok || err != nil {
		t.Fatalf("Hold: ok=%v err=%v", ok, err)
	}
	if n := m.leaseCount(); n != 2 {
		t.Fatalf("%d leases while two are held, want 2", n)
	}
	released()
	held()
	if n := m.leaseCount(); n != 0 {
		t.Fatalf("%d leases left after every holder released", n)
	}
}

// TestInFlightExpiry: on the fake clock a lock lapses exactly at its ttl.
func TestInFlightExpiry(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	if _, ok := acquire(t, m, "k", 5*time.Second); !ok {
		t.Fatal("first Acquire refused")
	}
	clk.Set(5*time.Second - 1)
	if _, ok := acquire(t, m, "k", 5*time.Second); ok {
		t.Fatal("Acquire succeeded 1ns before expiry")
	}
	clk.Set(5 * time.Second)
	if _, ok := acquire(t, m, "k", 5*time.Second); !ok {
		t.Fatal("Acquire refused at expiry")
	}
}

func TestInFlightExpiredLeasesAreSwept(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	for i := range 20000 {
		if _, ok := acquire(t, m, fmt.Sprint("req-", i), time.Second); !ok {
			t.Fatalf("Acquire %d refused", i)
		}
		clk.Advance(time.Second) // every earlier lease has expired
	}
	if n, limit := m.leaseCount(), numShards*minSweepAt; n > limit {
		t.Fatalf("%d leases stored, want at most %d", n, limit)
	}
}
