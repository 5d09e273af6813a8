package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

func TestInFlightHeldThenReleased(t *testing.T) {
	m := NewMemoryInFlight(newFakeClock().Now)
	release, ok := acquire(t, m, "req-1", time.Minute)
	if !ok {
		t.Fatal("first Acquire refused")
	}
	if _, ok := acquire(t, m, "req-1", time.Minute); ok {
		t.Fatal("second Acquire succeeded while held")
	}
	if _, ok := acquire(t, m, "req-2", time.Minute); !ok {
		t.Fatal("Acquire of another key refused")
	}
	release()
	release() // safe twice
	release2, ok := acquire(t, m, "req-1", time.Minute)
	if !ok {
		t.Fatal("Acquire after release refused")
	}
	release() // the first holder's release again must not free the new holder
	if _, ok := acquire(t, m, "req-1", time.Minute); ok {
		t.Fatal("a repeated old release freed the new holder")
	}
	release2()
}

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

func TestInFlightStaleReleaseKeepsNewHolder(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	staleRelease, ok := acquire(t, m, "k", time.Second)
	if !ok {
		t.Fatal("A: Acquire refused")
	}
	clk.Advance(2 * time.Second)
	releaseB, ok := acquire(t, m, "k", time.Minute)
	if !ok {
		t.Fatal("B: Acquire after A expired refused")
	}
	staleRelease()
	staleRelease()
	if _, ok := acquire(t, m, "k", time.Minute); ok {
		t.Fatal("C: Acquire succeeded; A's stale release freed B's lock")
	}
	releaseB()
	if _, ok := acquire(t, m, "k", time.Minute); !ok {
		t.Fatal("C: Acquire after B released refused")
	}
}

func TestInFlightErrors(t *testing.T) {
	m := NewMemoryInFlight(newFakeClock().Now)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		ttl  time.Duration
		want error
	}{
		{"zero ttl", context.Background(), 0, ErrInvalidTTL},
		{"negative ttl", context.Background(), -time.Second, ErrInvalidTTL},
		{"canceled context", canceled, time.Second, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release, ok, err := m.Acquire(tt.ctx, "k", tt.ttl)
			if !errors.Is(err, tt.want) || ok || release == nil {
				t.Fatalf("Acquire = (release nil: %v, %v, %v), want (non-nil, false, %v)", release == nil, ok, err, tt.want)
			}
			release()
		})
	}
	if n := m.leaseCount(); n != 0 {
		t.Fatalf("failed Acquires left %d leases", n)
	}
}

func TestInFlightConcurrentAcquireOneWinner(t *testing.T) {
	clk := newFakeClock()
	m := NewMemoryInFlight(clk.Now)
	for round := range 20 {
		key := fmt.Sprint("req-", round)
		var winners atomic.Int64
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				release, ok, err := m.Acquire(context.Background(), key, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					winners.Add(1)
				}
				_ = release
			})
		}
		wg.Wait()
		if got := winners.Load(); got != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1", round, got)
		}
	}
}

func TestInFlightConcurrentAcquireRelease(t *testing.T) {
	m := NewMemoryInFlight(newFakeClock().Now)
	var holders [8]atomic.Int64 // current holders per key; must never exceed 1
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(holders)
				release, ok, err := m.Acquire(context.Background(), fmt.Sprint("k", k), time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue
				}
				if n := holders[k].Add(1); n != 1 {
					t.Errorf("key %d has %d holders", k, n)
				}
				holders[k].Add(-1)
				release()
				release()
			}
		})
	}
	wg.Wait()
	if n := m.leaseCount(); n != 0 {
		t.Fatalf("%d leases left after every holder released", n)
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
