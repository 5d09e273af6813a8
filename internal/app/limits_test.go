package app

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/limittest"
)

// TestRedisTimeout: the limiter, the order limiter and the readiness
// check all wait --redis-timeout for a Redis that does not answer, not the
// built-in 200 ms, and then fail.
func TestRedisTimeout(t *testing.T) {
	const timeout = 800 * time.Millisecond
	l, err := newLimits(Config{Redis: "redis://" + limittest.SilentAddr(t) + "/0", RedisTimeout: timeout, RedisPrefix: "test:",
		RatePerSecond: 10, RatePerMinute: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	ctx := context.Background()
	calls := map[string]func() error{
		"limiter": func() error { _, err := l.limiter.Allow(ctx, "acct"); return err },
		"order limiter": func() error {
			_, err := l.orders.AllowOrder(ctx, "acct", []string{"trx:1"}, time.Minute)
			return err
		},
		"readiness check": func() error { return l.checks["redis"](ctx) },
	}
	var wg sync.WaitGroup
	for name, f := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			err := f()
			// A deadline cannot pass early, so the lower bound is safe on a
			// busy machine; the upper one only catches a call that hangs.
			if d := time.Since(start); err == nil || d < timeout-50*time.Millisecond || d > 10*time.Second {
				t.Errorf("%s with Redis silent and --redis-timeout %v: %v after %v", name, timeout, err, d)
			}
		}()
	}
	wg.Wait()
	if _, err := newLimits(Config{Redis: "redis://127.0.0.1:1/0", RatePerSecond: 10, RatePerMinute: 100}); err == nil {
		t.Error("newLimits took a Redis timeout of 0")
	}
}
