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

func TestRedisInFlightHeldThenReleased(t *testing.T) {
	c, prefix := testRedis(t)
	l := NewRedisInFlight(c, WithPrefix(prefix))
	release, ok := redisAcquire(t, l, "req-1", time.Minute)
	if !ok {
		t.Fatal("first Acquire refused")
	}
	if _, ok := redisAcquire(t, l, "req-1", time.Minute); ok {
		t.Fatal("second Acquire succeeded while held")
	}
	if _, ok := redisAcquire(t, l, "req-2", time.Minute); !ok {
		t.Fatal("Acquire of another key refused")
	}
	release()
	release() // safe twice
	if n := c.Exists(context.Background(), prefix+"req-1").Val(); n != 0 {
		t.Fatal("key still present after release")
	}
	release2, ok := redisAcquire(t, l, "req-1", time.Minute)
	if !ok {
		t.Fatal("Acquire after release refused")
	}
	release() // the first holder's release again must not free the new holder
	if _, ok := redisAcquire(t, l, "req-1", time.Minute); ok {
		t.Fatal("a repeated old release freed the new holder")
	}
	release2()
}

func TestRedisInFlightExpiry(t *testing.T) {
	c, prefix := testRedis(t)
	l := NewRedisInFlight(c, WithPrefix(prefix))
	const ttl = 150 * time.Millisecond
	if _, ok := redisAcquire(t, l, "k", ttl); !ok {
		t.Fatal("first Acquire refused")
	}
	if pttl := c.PTTL(context.Background(), prefix+"k").Val(); pttl <= 0 || pttl > ttl {
		t.Fatalf("PTTL = %v, want in (0, %v]", pttl, ttl)
	}
	if _, ok := redisAcquire(t, l, "k", ttl); ok {
		t.Fatal("Acquire succeeded while held")
	}
	time.Sleep(ttl + 50*time.Millisecond)
	if _, ok := redisAcquire(t, l, "k", ttl); !ok {
		t.Fatal("Acquire refused after the ttl")
	}
}

func TestRedisInFlightStaleReleaseKeepsNewHolder(t *testing.T) {
	c, prefix := testRedis(t)
	l := NewRedisInFlight(c, WithPrefix(prefix))
	staleRelease, ok := redisAcquire(t, l, "k", 100*time.Millisecond)
	if !ok {
		t.Fatal("A: Acquire refused")
	}
	time.Sleep(150 * time.Millisecond)
	releaseB, ok := redisAcquire(t, l, "k", time.Minute)
	if !ok {
		t.Fatal("B: Acquire after A expired refused")
	}
	staleRelease()
	staleRelease()
	if _, ok := redisAcquire(t, l, "k", time.Minute); ok {
		t.Fatal("C: Acquire succeeded; A's stale release freed B's lock")
	}
	releaseB()
	if _, ok := redisAcquire(t, l, "k", time.Minute); !ok {
		t.Fatal("C: Acquire after B released refused")
	}
}

func TestRedisInFlightConcurrentAcquireOneWinner(t *testing.T) {
	c, prefix := testRedis(t)
	l := NewRedisInFlight(c, WithPrefix(prefix))
	for round := range 5 {
		key := fmt.Sprint("req-", round)
		var winners atomic.Int64
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				_, ok, err := l.Acquire(context.Background(), key, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					winners.Add(1)
				}
			})
		}
		wg.Wait()
		if got := winners.Load(); got != 1 {
			t.Fatalf("round %d: %d winners, want exactly 1", round, got)
		}
	}
}

func TestRedisInFlightErrors(t *testing.T) {
	c, prefix := testRedis(t)
	l := NewRedisInFlight(c, WithPrefix(prefix))
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
			release, ok, err := l.Acquire(tt.ctx, "k", tt.ttl)
			if !errors.Is(err, tt.want) || ok || release == nil {
				t.Fatalf("Acquire = (release nil: %v, %v, %v), want (non-nil, false, %v)", release == nil, ok, err, tt.want)
			}
			release()
		})
	}
	if n := c.Exists(context.Background(), prefix+"k").Val(); n != 0 {
		t.Fatal("a failed Acquire left a lock")
	}
}
