package ratelimit

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/limittest"
)

// spec is the product's limit: 40 calls in any rolling 1 s and 200 in any rolling 60 s.
var spec = []Window{{Limit: 40, Period: time.Second}, {Limit: 200, Period: time.Minute}}

// keyCount reports how many keys m currently remembers.
func (m *Memory) keyCount() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += len(sh.logs)
		sh.mu.Unlock()
	}
	return n
}

// allow calls m.Allow with a background context and fails the test on error.
func allow(t testing.TB, m *Memory, key string) Decision {
	t.Helper()
	d, err := m.Allow(context.Background(), key)
	if err != nil {
		t.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

// expect checks one decision; wantRetry is only checked when the call is refused.
func expect(t *testing.T, got Decision, wantAllowed bool, wantRetry time.Duration, what string) {
	t.Helper()
	if got.Allowed != wantAllowed {
		t.Fatalf("%s: Allowed = %v, want %v (RetryAfter %v)", what, got.Allowed, wantAllowed, got.RetryAfter)
	}
	if got.Allowed && got.RetryAfter != 0 {
		t.Fatalf("%s: allowed with RetryAfter %v", what, got.RetryAfter)
	}
	if !got.Allowed && got.RetryAfter != wantRetry {
		t.Fatalf("%s: RetryAfter = %v, want %v", what, got.RetryAfter, wantRetry)
	}
}

func TestNewMemoryPanicsOnBadWindows(t *testing.T) {
	tests := []struct {
		name    string
		windows []Window
	}{
		{"none", nil},
		{"zero limit", []Window{{Limit: 0, Period: time.Second}}},
		{"negative limit", []Window{{Limit: -1, Period: time.Second}}},
		{"zero period", []Window{{Limit: 1, Period: 0}}},
		{"negative period", []Window{{Limit: 1, Period: -time.Second}}},
		{"one bad of two", []Window{{Limit: 40, Period: time.Second}, {Limit: 200, Period: 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("NewMemory did not panic")
				}
			}()
			NewMemory(tt.windows, nil)
		})
	}
}

// TestMemoryLimiterSuite runs the behaviour suite of every limiter on
// Memory, on the real clock.
func TestMemoryLimiterSuite(t *testing.T) {
	t.Parallel()
	limittest.RunLimiter(t, func(t *testing.T, windows []limittest.Window) topupd.RateLimiter {
		return NewMemory(windowsOf(windows), nil)
	})
}

// windowsOf converts the suite's windows.
func windowsOf(ws []limittest.Window) []Window {
	out := make([]Window, len(ws))
	for i, w := range ws {
		out[i] = Window(w)
	}
	return out
}

// TestMemoryCanceledContextStoresNoKey: a call failed for its context (the
// suite's CancelledContext) does not even create its key's log.
func TestMemoryCanceledContextStoresNoKey(t *testing.T) {
	m := NewMemory(spec, newFakeClock().Now)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Allow(ctx, "a"); err == nil {
		t.Fatal("Allow with a canceled context succeeded")
	}
	if n := m.keyCount(); n != 0 {
		t.Fatalf("canceled call recorded a key: %d keys", n)
	}
}

func TestMemoryBurstAtOneInstant(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(spec, clk.Now)
	for i := range 40 {
		expect(t, allow(t, m, "acct"), true, 0, fmt.Sprintf("call %d at t0", i+1))
	}
	expect(t, allow(t, m, "acct"), false, time.Second, "41st call at t0")
	clk.Set(999 * time.Millisecond)
	expect(t, allow(t, m, "acct"), false, time.Millisecond, "call at t0+999ms")
	clk.Set(time.Second - time.Nanosecond)
	expect(t, allow(t, m, "acct"), false, time.Nanosecond, "call at t0+1s-1ns")
	clk.Set(time.Second)
	for i := range 40 {
		expect(t, allow(t, m, "acct"), true, 0, fmt.Sprintf("call %d at t0+1s", i+1))
	}
	expect(t, allow(t, m, "acct"), false, time.Second, "41st call at t0+1s")
}

func TestMemoryBoundaries(t *testing.T) {
	every := func(n int, step time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = time.Duration(i) * step
		}
		return out
	}
	tests := []struct {
		name        string
		windows     []Window
		calls       []time.Duration // all must be allowed
		probe       time.Duration
		wantAllowed bool
		wantRetry   time.Duration
	}{
		{"1/1s at Period-1ns", []Window{{1, time.Second}}, every(1, 0), time.Second - 1, false, 1},
		{"1/1s at Period", []Window{{1, time.Second}}, every(1, 0), time.Second, true, 0},
		{"40/1s burst at Period-1ns", spec, every(40, 0), time.Second - 1, false, 1},
		{"40/1s burst at Period", spec, every(40, 0), time.Second, true, 0},
		{"40/1s spread at Period-1ns", spec, every(40, 10*time.Millisecond), time.Second - 1, false, 1},
		{"40/1s spread at Period", spec, every(40, 10*time.Millisecond), time.Second, true, 0},
		{"40/1s spread, 2nd call still inside", spec, every(40, 10*time.Millisecond), time.Second + 10*time.Millisecond - 1, true, 0},
		{"200/60s at Period-1ns", spec, every(200, 250*time.Millisecond), time.Minute - 1, false, 1},
		{"200/60s at Period", spec, every(200, 250*time.Millisecond), time.Minute, true, 0},
		{"200/60s mid-window", spec, every(200, 250*time.Millisecond), 50 * time.Second, false, 10 * time.Second},
		{"both full: longest wait wins", []Window{{2, time.Second}, {3, 10 * time.Second}}, []time.Duration{0, 2 * time.Second, 2 * time.Second}, 2 * time.Second, false, 8 * time.Second},
		{"both full at 10s", []Window{{2, time.Second}, {3, 10 * time.Second}}, []time.Duration{0, 2 * time.Second, 2 * time.Second}, 10 * time.Second, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			m := NewMemory(tt.windows, clk.Now)
			for i, c := range tt.calls {
				clk.Set(c)
				expect(t, allow(t, m, "acct"), true, 0, fmt.Sprintf("setup call %d at +%v", i, c))
			}
			clk.Set(tt.probe)
			expect(t, allow(t, m, "acct"), tt.wantAllowed, tt.wantRetry, fmt.Sprintf("probe at +%v", tt.probe))
		})
	}
}

func TestMemory200In60sRefusedWith1sWindowFree(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(spec, clk.Now)
	for i := range 200 { // 4 calls per second: never near 40/1s
		clk.Set(time.Duration(i) * 250 * time.Millisecond)
		expect(t, allow(t, m, "acct"), true, 0, fmt.Sprintf("call %d", i+1))
	}
	clk.Set(50 * time.Second) // only 3 allowed calls in (49s, 50s]
	expect(t, allow(t, m, "acct"), false, 10*time.Second, "201st call at +50s")
	if allow(t, m, "other").Allowed != true {
		t.Fatal("another key was refused")
	}
	clk.Set(time.Minute - 1)
	expect(t, allow(t, m, "acct"), false, 1, "call at +60s-1ns")
	clk.Set(time.Minute)
	expect(t, allow(t, m, "acct"), true, 0, "call at +60s (first call left the window)")
	// Now the 200th most recent call is the one at +0.25s.
	expect(t, allow(t, m, "acct"), false, 250*time.Millisecond, "second call at +60s")
}

func TestMemoryRetryAfterIsExact(t *testing.T) {
	configs := [][]Window{
		spec,
		{{Limit: 1, Period: time.Second}},
		{{Limit: 3, Period: 100 * time.Millisecond}, {Limit: 5, Period: time.Second}, {Limit: 8, Period: 5 * time.Second}},
	}
	rng := rand.New(rand.NewSource(7))
	for ci, windows := range configs {
		clk := newFakeClock()
		m := NewMemory(windows, clk.Now)
		refusals := 0
		for i := 0; i < 3000; i++ {
			clk.Advance(time.Duration(rng.Int63n(int64(30 * time.Millisecond))))
			d := allow(t, m, "acct")
			if d.Allowed {
				continue
			}
			refusals++
			if d.RetryAfter <= 0 {
				t.Fatalf("config %d: refused with RetryAfter %v", ci, d.RetryAfter)
			}
			clk.Advance(d.RetryAfter - 1)
			if got := allow(t, m, "acct"); got.Allowed || got.RetryAfter != 1 {
				t.Fatalf("config %d: after RetryAfter-1ns got %+v, want refused with 1ns", ci, got)
			}
			clk.Advance(1)
			if got := allow(t, m, "acct"); !got.Allowed {
				t.Fatalf("config %d: after RetryAfter got %+v, want allowed", ci, got)
			}
		}
		if refusals < 100 {
			t.Fatalf("config %d: only %d refusals; test does not exercise the limit", ci, refusals)
		}
	}
}

// TestMemoryConcurrentOneKeyOneInstant: callers racing at one instant of the
// fake clock are allowed exactly Limit calls, and every refusal is told the
// exact wait (the suite's ConcurrentOneKey races on the real clock).
func TestMemoryConcurrentOneKeyOneInstant(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(spec, clk.Now)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 100 {
				d, err := m.Allow(context.Background(), "acct")
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				} else if d.RetryAfter != time.Second {
					t.Errorf("RetryAfter = %v, want 1s", d.RetryAfter)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != 40 {
		t.Fatalf("allowed %d calls, want exactly 40", got)
	}
}

func TestMemoryConcurrentManyKeys(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(spec, clk.Now)
	const keys = 100
	var allowed [keys]atomic.Int64
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for i := range 500 {
				k := (g + i) % keys
				d, err := m.Allow(context.Background(), fmt.Sprint("acct-", k))
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					allowed[k].Add(1)
				}
				if i%100 == 0 {
					m.Sweep() // must not drop anything at this instant, nor race
				}
			}
		})
	}
	wg.Wait()
	for k := range allowed {
		if got := allowed[k].Load(); got != 40 {
			t.Errorf("key %d: allowed %d, want 40", k, got)
		}
	}
}

// oneKeyPerShard returns, for each shard of m, a key with prefix that lands in it.
func oneKeyPerShard(m *Memory, prefix string) []string {
	out := make([]string, numShards)
	found := 0
	for i := 0; found < numShards; i++ {
		k := fmt.Sprint(prefix, i)
		if s := shardIndex(m.seed, k); out[s] == "" {
			out[s] = k
			found++
		}
	}
	return out
}

func TestMemorySweep(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(spec, clk.Now)
	for i := range 100 {
		allow(t, m, fmt.Sprint("k", i))
	}
	clk.Set(30 * time.Second)
	allow(t, m, "k0")
	if n := m.keyCount(); n != 100 {
		t.Fatalf("keyCount = %d, want 100", n)
	}
	clk.Set(time.Minute - 1)
	m.Sweep()
	if n := m.keyCount(); n != 100 {
		t.Fatalf("after sweep at +60s-1ns: keyCount = %d, want 100", n)
	}
	clk.Set(time.Minute)
	m.Sweep()
	if n := m.keyCount(); n != 1 {
		t.Fatalf("after sweep at +60s: keyCount = %d, want 1 (k0)", n)
	}
	clk.Set(90 * time.Second)
	m.Sweep()
	if n := m.keyCount(); n != 0 {
		t.Fatalf("after sweep at +90s: keyCount = %d, want 0", n)
	}
}

func TestMemoryLazySweepInAllow(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(spec, clk.Now)
	for _, k := range oneKeyPerShard(m, "old-") {
		allow(t, m, k)
	}
	clk.Set(time.Minute - 1)
	for _, k := range oneKeyPerShard(m, "mid-") {
		allow(t, m, k)
	}
	if n := m.keyCount(); n != 2*numShards {
		t.Fatalf("before +60s: keyCount = %d, want %d", n, 2*numShards)
	}
	clk.Set(time.Minute)
	for _, k := range oneKeyPerShard(m, "new-") {
		allow(t, m, k)
	}
	if n := m.keyCount(); n != 2*numShards {
		t.Fatalf("at +60s: keyCount = %d, want %d (old keys dropped)", n, 2*numShards)
	}
	clk.Set(3 * time.Minute)
	for _, k := range oneKeyPerShard(m, "late-") {
		allow(t, m, k)
	}
	if n := m.keyCount(); n != numShards {
		t.Fatalf("at +3m: keyCount = %d, want %d", n, numShards)
	}
}

func TestCallLogRing(t *testing.T) {
	var l callLog
	const capacity = 7
	for i := range int64(30) {
		l.push(i, capacity)
		if want := min(int(i)+1, capacity); l.n != want || len(l.ts) > capacity {
			t.Fatalf("after %d pushes: n=%d len=%d", i+1, l.n, len(l.ts))
		}
		for j := 1; j <= l.n; j++ {
			if got := l.recent(j); got != i-int64(j-1) {
				t.Fatalf("after push %d: recent(%d) = %d, want %d", i, j, got, i-int64(j-1))
			}
		}
	}
}

func BenchmarkMemoryAllow(b *testing.B) {
	m := NewMemory(spec, nil)
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = fmt.Sprint("acct-", i)
	}
	var seq atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seq.Add(1)) * 7919
		ctx := context.Background()
		for pb.Next() {
			if _, err := m.Allow(ctx, keys[i%len(keys)]); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
