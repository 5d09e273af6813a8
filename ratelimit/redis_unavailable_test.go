package ratelimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/topupd/topupd/internal/testing/limittest"
)

func TestRedisUnavailableFailsFast(t *testing.T) {
	tests := []struct {
		name string
		opt  func(t *testing.T) *redis.Options
	}{
		{"closed port", func(t *testing.T) *redis.Options { return &redis.Options{Addr: limittest.ClosedAddr(t)} }},
		{"silent server", func(t *testing.T) *redis.Options { return &redis.Options{Addr: limittest.SilentAddr(t)} }},
		{"silent server, context timeouts", func(t *testing.T) *redis.Options {
			return &redis.Options{Addr: limittest.SilentAddr(t), ContextTimeoutEnabled: true}
		}},
	}
	const limit = time.Second // DefaultRedisTimeout plus generous slack
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := redis.NewClient(tt.opt(t))
			t.Cleanup(func() { c.Close() })
			l := NewRedis(c, spec)
			for range 2 { // the second call may meet a pool that already saw the failure
				start := time.Now()
				d, err := l.Allow(context.Background(), "k")
				if took := time.Since(start); err == nil || took > limit {
					t.Fatalf("Allow = (%+v, %v) after %v, want an error within %v", d, err, took, limit)
				}
				t.Logf("Allow failed after %v: %v", time.Since(start), err)
			}
			start := time.Now()
			d, err := l.AllowOrder(context.Background(), "k", []string{"trx:1"}, time.Second)
			if took := time.Since(start); err == nil || took > limit {
				t.Fatalf("AllowOrder = (%+v, %v) after %v, want an error within %v", d, err, took, limit)
			}
			t.Logf("AllowOrder failed after %v: %v", time.Since(start), err)
		})
	}
}

func TestCallAbandonsSlowCall(t *testing.T) {
	unblock := make(chan struct{})
	ended := make(chan struct{})
	start := time.Now()
	v, err := call(context.Background(), 20*time.Millisecond, func(ctx context.Context) (int, error) {
		defer close(ended)
		<-unblock // ignores ctx, like a client without context timeouts
		return 7, nil
	})
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || v != 0 || took > time.Second {
		t.Fatalf("call = (%d, %v) after %v, want (0, deadline exceeded) promptly", v, err, took)
	}
	close(unblock)
	select {
	case <-ended: // the abandoned call could hand its result over and end
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned call never ended")
	}

	v, err = call(context.Background(), time.Second, func(ctx context.Context) (int, error) { return 3, nil })
	if v != 3 || err != nil {
		t.Fatalf("call = (%d, %v), want (3, nil)", v, err)
	}
}
