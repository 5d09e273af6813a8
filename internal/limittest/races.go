package limittest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/racer"
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

// testOneWinner: of callers racing to take one key, exactly one wins.
func testOneWinner(t *testing.T, f *inFlight) {
	const rounds, callers = 20, 64
	for round := range rounds {
		key := fmt.Sprint("req-", round)
		winners := race(callers, func(int) int64 {
			_, ok, err := f.f.Acquire(context.Background(), key, time.Minute)
			if err != nil {
				t.Errorf("Acquire: %v", err)
			}
			if ok {
				return 1
			}
			return 0
		})
		if winners != 1 {
			t.Fatalf("round %d: %d of %d racing callers won, want exactly 1", round, winners, callers)
		}
	}
}

// testAcquireReleaseRace: callers taking and releasing a few keys at once
// never hold one key together, and every key is free once they are done.
func testAcquireReleaseRace(t *testing.T, f *inFlight) {
	const callers, each = 64, 200
	var holders [8]atomic.Int64 // current holders per key
	race(callers, func(g int) int64 {
		for i := range each {
			k := (g + i) % len(holders)
			release, ok, err := f.f.Acquire(context.Background(), fmt.Sprint("k", k), time.Hour)
			if err != nil {
				t.Errorf("Acquire: %v", err)
				return 0
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
		return 0
	})
	for k := range holders {
		f.mustHold(fmt.Sprint("k", k), "once every holder released")
	}
}
