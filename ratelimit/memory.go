package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// Memory is a Limiter over an in-memory sliding log per key.
//
// For every key it keeps the timestamps of the last max(Limit) allowed calls
// in a ring buffer. A call at time t is allowed iff, for every window, fewer
// than Limit allowed calls have a timestamp in (t-Period, t]; a call exactly
// Period after an earlier one no longer counts that earlier one. Each window
// is checked in O(1) by looking at the Limit-th most recent allowed call.
//
// Times are measured from a reading taken in NewMemory, so with time.Now the
// monotonic clock is used and wall-clock steps do not matter. Still, time never
// runs backwards inside a shard: a call whose reading is older than the newest
// time already seen by its shard (a clock stepping back, or concurrent callers
// reaching the lock out of order) is treated as happening at that newest time.
// The log therefore stays sorted and no window of the recorded timeline ever
// holds more than Limit calls. RetryAfter is measured from the caller's own
// reading.
//
// Keys whose newest allowed call is at least the longest Period old are
// forgotten: each shard sweeps itself lazily inside Allow at most once per
// longest Period, and Sweep sweeps all shards on demand. No goroutines are
// started, so there is nothing to close.
type Memory struct {
	windows   []window
	maxLimit  int   // ring capacity: largest Limit of all windows
	maxPeriod int64 // longest Period, in nanoseconds
	now       func() time.Time
	epoch     time.Time // timestamps are stored as nanoseconds since epoch
	seed      maphash.Seed
	shards    [numShards]memShard
}

var _ Limiter = (*Memory)(nil)

// window is a validated Window with its period in nanoseconds.
type window struct {
	limit  int
	period int64
}

// memShard is one independently locked part of the key space.
type memShard struct {
	mu        sync.Mutex
	logs      map[string]*callLog
	latest    int64 // newest time seen by this shard; calls are clamped to it
	nextSweep int64 // time at or after which Allow sweeps this shard
	_         [64]byte
}

// callLog is a ring buffer of the most recent allowed call times of one key,
// oldest first. It grows lazily up to the limiter's largest Limit.
type callLog struct {
	ts   []int64
	head int // index of the oldest entry
	n    int // number of entries
}

// NewMemory returns a Memory enforcing every window in windows at once, reading
// the time from now (time.Now when nil). It panics if windows is empty or any
// window has Limit < 1 or Period <= 0, since that is a programming error.
func NewMemory(windows []Window, now func() time.Time) *Memory {
	if len(windows) == 0 {
		panic("ratelimit: NewMemory needs at least one window")
	}
	if now == nil {
		now = time.Now
	}
	m := &Memory{
		now:  now,
		seed: maphash.MakeSeed(),
	}
	for _, w := range windows {
		if w.Limit < 1 {
			panic("ratelimit: window Limit must be at least 1")
		}
		if w.Period <= 0 {
			panic("ratelimit: window Period must be positive")
		}
		m.windows = append(m.windows, window{limit: w.Limit, period: int64(w.Period)})
		m.maxLimit = max(m.maxLimit, w.Limit)
		m.maxPeriod = max(m.maxPeriod, int64(w.Period))
	}
	m.epoch = now()
	for i := range m.shards {
		m.shards[i].logs = make(map[string]*callLog)
		m.shards[i].latest = math.MinInt64
	}
	return m
}

// Allow allows and records one call under key if every window has room, and otherwise refuses it with the wait until one would be allowed; it fails only if ctx is already done.
func (m *Memory) Allow(ctx context.Context, key string) (Decision, error) {
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	now := m.offset(m.now())
	sh := &m.shards[shardIndex(m.seed, key)]
	sh.mu.Lock()
	defer sh.mu.Unlock()

	t := sh.clamp(now)
	if t >= sh.nextSweep {
		sh.sweep(t, m.maxPeriod)
		sh.nextSweep = t + m.maxPeriod
	}
	lg := sh.logs[key]
	if lg == nil {
		lg = &callLog{}
		sh.logs[key] = lg
	}

	full := false
	var wait int64
	for _, w := range m.windows {
		if lg.n < w.limit {
			continue
		}
		// The window holds Limit calls iff the Limit-th most recent allowed
		// call lies in (t-Period, t]; every recorded time is <= t.
		blocking := lg.recent(w.limit)
		if t-blocking < w.period {
			full = true
			// A call is allowed again once blocking falls out: at blocking+Period.
			wait = max(wait, blocking+w.period-now)
		}
	}
	if full {
		return Decision{RetryAfter: time.Duration(wait)}, nil
	}
	lg.push(t, m.maxLimit)
	return Decision{Allowed: true}, nil
}

// Sweep forgets every key whose newest allowed call is at least the longest Period old.
func (m *Memory) Sweep() {
	now := m.offset(m.now())
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		t := sh.clamp(now)
		sh.sweep(t, m.maxPeriod)
		sh.nextSweep = t + m.maxPeriod
		sh.mu.Unlock()
	}
}

// offset converts a clock reading to nanoseconds since m.epoch.
func (m *Memory) offset(t time.Time) int64 {
	return int64(t.Sub(m.epoch))
}

// clamp returns max(now, newest time seen) and records it; sh.mu must be held.
func (sh *memShard) clamp(now int64) int64 {
	if now < sh.latest {
		return sh.latest
	}
	sh.latest = now
	return now
}

// sweep drops keys with no allowed call in (t-maxPeriod, t]; sh.mu must be held.
// Such keys cannot affect any later decision since later calls have time >= t.
func (sh *memShard) sweep(t, maxPeriod int64) {
	for k, lg := range sh.logs {
		if lg.n == 0 || t-lg.recent(1) >= maxPeriod {
			delete(sh.logs, k)
		}
	}
}

// recent returns the i-th most recent entry, 1 <= i <= l.n.
func (l *callLog) recent(i int) int64 {
	return l.ts[(l.head+l.n-i)%len(l.ts)]
}

// push appends t as the newest entry, dropping the oldest once capacity entries are held.
func (l *callLog) push(t int64, capacity int) {
	switch {
	case l.n < len(l.ts):
		l.ts[(l.head+l.n)%len(l.ts)] = t
		l.n++
	case len(l.ts) < capacity:
		grown := make([]int64, min(capacity, max(4, 2*len(l.ts))))
		k := copy(grown, l.ts[l.head:])
		copy(grown[k:], l.ts[:l.head])
		l.ts, l.head = grown, 0
		l.ts[l.n] = t
		l.n++
	default:
		l.ts[l.head] = t
		l.head = (l.head + 1) % len(l.ts)
	}
}
