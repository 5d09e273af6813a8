package ratelimit

import (
	"math/rand"
	"sort"
	"testing"
	"time"
)

// reference is a brute-force sliding log: the sorted times of allowed calls.
type reference struct {
	windows []Window
	allowed []time.Duration
}

// inWindow counts allowed calls in (at-p, at].
func (r *reference) inWindow(at, p time.Duration) int {
	hi := sort.Search(len(r.allowed), func(i int) bool { return r.allowed[i] > at })
	lo := sort.Search(len(r.allowed), func(i int) bool { return r.allowed[i] > at-p })
	return hi - lo
}

// wouldAllow reports whether a call at at fits every window.
func (r *reference) wouldAllow(at time.Duration) bool {
	for _, w := range r.windows {
		if r.inWindow(at, w.Period) >= w.Limit {
			return false
		}
	}
	return true
}

// record inserts an allowed call, keeping allowed sorted.
func (r *reference) record(at time.Duration) {
	i := sort.Search(len(r.allowed), func(i int) bool { return r.allowed[i] > at })
	r.allowed = append(r.allowed, 0)
	copy(r.allowed[i+1:], r.allowed[i:])
	r.allowed[i] = at
}

// checkAllWindows verifies no window (a-Period, a] over the allowed calls exceeds its Limit.
func (r *reference) checkAllWindows(t *testing.T) {
	t.Helper()
	for _, w := range r.windows {
		for _, a := range r.allowed { // a window's count peaks when its right end is a call
			if n := r.inWindow(a, w.Period); n > w.Limit {
				t.Fatalf("window %d/%v ending at +%v holds %d allowed calls", w.Limit, w.Period, a, n)
			}
		}
	}
}

var propertyConfigs = []struct {
	name    string
	windows []Window
	scale   time.Duration // typical gap between calls
}{
	{"spec", spec, 300 * time.Millisecond},
	{"1/1s", []Window{{Limit: 1, Period: time.Second}}, time.Second / 2},
	{"3/1s,5/4s", []Window{{Limit: 3, Period: time.Second}, {Limit: 5, Period: 4 * time.Second}}, time.Second / 2},
	{"three windows", []Window{{Limit: 2, Period: 10 * time.Millisecond}, {Limit: 7, Period: time.Second}, {Limit: 20, Period: 10 * time.Second}}, time.Second / 4},
	{"same period twice", []Window{{Limit: 4, Period: time.Second}, {Limit: 2, Period: time.Second}}, time.Second / 2},
}

// nextGap draws a forward step mixing same-instant calls, short and long
// gaps, and landing exactly on (or 1ns before) a window boundary.
func nextGap(rng *rand.Rand, now, scale time.Duration, ref *reference) time.Duration {
	switch r := rng.Intn(100); {
	case r < 25:
		return 0
	case r < 45:
		return time.Duration(rng.Int63n(int64(scale / 100)))
	case r < 85:
		return time.Duration(rng.Int63n(int64(scale)))
	case r < 90:
		return time.Duration(rng.Int63n(int64(10 * scale)))
	default: // land exactly on, or 1ns before, the moment an allowed call leaves a window
		w := ref.windows[rng.Intn(len(ref.windows))]
		lo := sort.Search(len(ref.allowed), func(i int) bool { return ref.allowed[i] > now-w.Period })
		if lo == len(ref.allowed) {
			return 0
		}
		a := ref.allowed[lo+rng.Intn(len(ref.allowed)-lo)]
		gap := a + w.Period - time.Duration(rng.Intn(2)) - now
		if gap < 0 || gap > 10*scale { // keep the timeline dense enough to fill long windows
			return 0
		}
		return gap
	}
}

// canFill reports whether windows[i] can ever hold Limit calls, i.e. no
// window with at least its Period has a smaller Limit.
func canFill(windows []Window, i int) bool {
	for _, w := range windows {
		if w.Period >= windows[i].Period && w.Limit < windows[i].Limit {
			return false
		}
	}
	return true
}

func TestMemoryMatchesBruteForce(t *testing.T) {
	for _, cfg := range propertyConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			clk := newFakeClock()
			m := NewMemory(cfg.windows, clk.Now)
			keys := []string{"a", "b", "c"}
			refs := map[string]*reference{}
			for _, k := range keys {
				refs[k] = &reference{windows: cfg.windows}
			}
			var now time.Duration
			allowed, refused, burst := 0, 0, 0
			fullCount := make([]int, len(cfg.windows)) // refusals per window that was full
			key := keys[0]
			for i := 0; i < 5000; i++ {
				if burst > 0 { // same key, same instant
					burst--
				} else {
					key = keys[rng.Intn(len(keys))]
					now += nextGap(rng, now, cfg.scale, refs[key])
					if rng.Intn(100) == 0 {
						burst = rng.Intn(60)
					}
				}
				ref := refs[key]
				clk.Set(now)
				want := ref.wouldAllow(now)
				got := allow(t, m, key)
				if got.Allowed != want {
					t.Fatalf("call %d key %q at +%v: Allowed = %v, brute force says %v", i, key, now, got.Allowed, want)
				}
				if got.Allowed {
					allowed++
					ref.record(now)
					continue
				}
				refused++
				for wi, w := range cfg.windows {
					if ref.inWindow(now, w.Period) >= w.Limit {
						fullCount[wi]++
					}
				}
				if got.RetryAfter <= 0 || ref.wouldAllow(now+got.RetryAfter-1) || !ref.wouldAllow(now+got.RetryAfter) {
					t.Fatalf("call %d key %q at +%v: RetryAfter %v is not the exact wait", i, key, now, got.RetryAfter)
				}
			}
			for _, k := range keys {
				refs[k].checkAllWindows(t)
			}
			t.Logf("%d allowed, %d refused, refusals by full window %v", allowed, refused, fullCount)
			if allowed < 500 || refused < 200 {
				t.Fatalf("weak coverage: %d allowed, %d refused", allowed, refused)
			}
			for wi, n := range fullCount {
				if n == 0 && canFill(cfg.windows, wi) {
					t.Fatalf("weak coverage: window %+v never refused a call", cfg.windows[wi])
				}
			}
		})
	}
}

func TestMemoryClockGoingBackwards(t *testing.T) {
	for _, cfg := range propertyConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(2))
			clk := newFakeClock()
			m := NewMemory(cfg.windows, clk.Now)
			ref := &reference{windows: cfg.windows} // on the limiter's clamped timeline
			var now, latest time.Duration
			for i := 0; i < 3000; i++ {
				if rng.Intn(10) == 0 {
					now -= time.Duration(rng.Int63n(int64(3 * time.Second)))
				} else {
					now += nextGap(rng, now, cfg.scale, ref)
				}
				clk.Set(now)
				latest = max(latest, now)
				want := ref.wouldAllow(latest)
				got := allow(t, m, "acct")
				if got.Allowed != want {
					t.Fatalf("call %d at +%v (clamped +%v): Allowed = %v, want %v", i, now, latest, got.Allowed, want)
				}
				if got.Allowed {
					ref.record(latest)
					continue
				}
				// Measured from the caller's clock: at now+RetryAfter a call is allowed, 1ns earlier it is not.
				if got.RetryAfter <= 0 || ref.wouldAllow(max(latest, now+got.RetryAfter-1)) || !ref.wouldAllow(now+got.RetryAfter) {
					t.Fatalf("call %d at +%v (clamped +%v): bad RetryAfter %v", i, now, latest, got.RetryAfter)
				}
			}
			ref.checkAllWindows(t)
		})
	}
}
