package limittest

import (
	"context"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/racer"
)

// race runs run in n goroutines let go at once, each with its index, and
// returns the sum of what they return.
func race(n int, run func(i int) int64) int64 {
	var sum int64
	for _, v := range racer.Run(n, run) {
		sum += v
	}
	return sum
}

// testConcurrentOneKey: callers racing on one key are allowed exactly Limit
// calls in all.
func testConcurrentOneKey(t *testing.T, l *limiter) {
	const callers, each = 64, 3
	w := l.windows[0]
	got := race(callers, func(int) (allowed int64) {
		for range each {
			began := time.Now()
			d, err := l.l.Allow(context.Background(), "k")
			if err != nil {
				t.Errorf("Allow: %v", err)
				return allowed
			}
			// A racing caller's call may be recorded at a time later than
			// this call's own reading, by up to this call's duration.
			if err := l.valid(d, w.Period+time.Since(began)); err != nil {
				t.Errorf("Allow: %v", err)
			}
			if d.Allowed {
				allowed++
			}
		}
		return allowed
	})
	if got != int64(w.Limit) {
		t.Fatalf("%d of %d racing calls allowed, want exactly %d", got, callers*each, w.Limit)
	}
}
