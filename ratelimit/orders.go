package ratelimit

import (
	"context"
	"errors"
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// OrderLimiter admits a call that places an order: the rate limit and the
// in-flight hints in one step (the domain's OrderLimiter).
type OrderLimiter = topupd.OrderLimiter

// OrderDecision is an OrderLimiter's answer (the domain's OrderDecision).
type OrderDecision = topupd.OrderDecision

// ErrInvalidTTL is returned by AllowOrder when ttl is not positive.
var ErrInvalidTTL = errors.New("ratelimit: hint ttl must be positive")

// MemoryOrders is an OrderLimiter on one node: a Limiter (Memory, or any
// other) for the rate limit, then the hints in an in-memory map of key to
// expiry. The two steps are not one atomic step, and need not be: each is
// atomic, and a hint only spares work.
//
// A hint taken at time t with ttl is held during [t, t+ttl). Expired
// entries are removed lazily when a shard's map has doubled in size since
// its last sweep, so memory stays proportional to the hints taken recently.
type MemoryOrders struct {
	limiter Limiter
	now     func() time.Time
	seed    maphash.Seed
	shards  [numShards]hintShard
}

var _ OrderLimiter = (*MemoryOrders)(nil)

// hintShard is one independently locked part of the hints' key space.
type hintShard struct {
	mu      sync.Mutex
	expires map[string]time.Time
	sweepAt int // sweep expired hints when len(expires) reaches this
	_       [64]byte
}

// minSweepAt is the smallest map size at which a shard sweeps expired hints.
const minSweepAt = 64

// NewMemoryOrders returns a MemoryOrders counting calls with limiter and
// reading the hints' time from now (time.Now when nil); it panics if
// limiter is nil.
func NewMemoryOrders(limiter Limiter, now func() time.Time) *MemoryOrders {
	if limiter == nil {
		panic("ratelimit: NewMemoryOrders needs a limiter")
	}
	if now == nil {
		now = time.Now
	}
	m := &MemoryOrders{limiter: limiter, now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].expires = make(map[string]time.Time)
		m.shards[i].sweepAt = minSweepAt
	}
	return m
}

// AllowOrder counts the call under key and, when allowed, takes every hint
// for ttl unless one is held (then none, and Held); err is ErrInvalidTTL,
// ctx's error or the limiter's.
func (m *MemoryOrders) AllowOrder(ctx context.Context, key string, hints []string, ttl time.Duration) (OrderDecision, error) {
	if ttl <= 0 {
		return OrderDecision{}, ErrInvalidTTL
	}
	d, err := m.limiter.Allow(ctx, key)
	if err != nil || !d.Allowed {
		return OrderDecision{RateDecision: d}, err
	}
	return OrderDecision{RateDecision: d, Held: !m.take(hints, ttl)}, nil
}

// take takes every hint for ttl unless one is held; it reports whether it
// took them. The shards involved are locked in index order, all at once.
func (m *MemoryOrders) take(hints []string, ttl time.Duration) bool {
	idx := make([]int, 0, len(hints))
	for _, h := range hints {
		idx = append(idx, shardIndex(m.seed, h))
	}
	locked := slices.Compact(slices.Sorted(slices.Values(idx)))
	for _, i := range locked {
		m.shards[i].mu.Lock()
	}
	defer func() {
		for _, i := range locked {
			m.shards[i].mu.Unlock()
		}
	}()
	now := m.now()
	for k, h := range hints {
		if until, held := m.shards[idx[k]].expires[h]; held && now.Before(until) {
			return false
		}
	}
	for k, h := range hints {
		sh := &m.shards[idx[k]]
		if len(sh.expires) >= sh.sweepAt {
			sh.sweep(now)
		}
		sh.expires[h] = now.Add(ttl)
	}
	return true
}

// sweep drops the hints that lapsed by now; sh.mu must be held.
func (sh *hintShard) sweep(now time.Time) {
	for k, until := range sh.expires {
		if !now.Before(until) {
			delete(sh.expires, k)
		}
	}
	sh.sweepAt = max(minSweepAt, 2*len(sh.expires))
}
