package ratelimit

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// InFlight holds short-lived exclusive locks, used to detect a duplicate request while the first is still running (the domain's InFlight).
type InFlight = topupd.InFlight

// ErrInvalidTTL is returned by Acquire when ttl is not positive.
var ErrInvalidTTL = errors.New("ratelimit: in-flight ttl must be positive")

// MemoryInFlight is an InFlight over an in-memory map of key to (token, expiry).
//
// A lock taken at time t with ttl is held during [t, t+ttl). Expired entries
// are removed lazily when a shard's map has doubled in size since its last
// sweep, so memory stays proportional to the keys held recently.
type MemoryInFlight struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [numShards]inflightShard
}

var _ InFlight = (*MemoryInFlight)(nil)

// inflightShard is one independently locked part of the key space.
type inflightShard struct {
	mu        sync.Mutex
	locks     map[string]lease
	nextToken uint64
	sweepAt   int // sweep expired leases when len(locks) reaches this
	_         [64]byte
}

// lease is one held lock: its holder's token and when it lapses.
type lease struct {
	token   uint64
	expires time.Time
}

// minSweepAt is the smallest map size at which a shard sweeps expired leases.
const minSweepAt = 64

// NewMemoryInFlight returns an empty MemoryInFlight reading the time from now (time.Now when nil).
func NewMemoryInFlight(now func() time.Time) *MemoryInFlight {
	if now == nil {
		now = time.Now
	}
	m := &MemoryInFlight{now: now, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].locks = make(map[string]lease)
		m.shards[i].sweepAt = minSweepAt
	}
	return m
}

// Acquire takes key for at most ttl unless a live lock holds it; release is never nil (a no-op when ok is false), and err is ErrInvalidTTL or ctx's error.
func (m *MemoryInFlight) Acquire(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error) {
	sh, token, ok, err := m.acquire(ctx, key, ttl)
	if !ok || err != nil {
		return noRelease, ok, err
	}
	return func() { sh.release(key, token) }, true, nil
}

// Hold takes key as Acquire does and extends it every ttl/RenewEvery until release or until ctx ends.
func (m *MemoryInFlight) Hold(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error) {
	sh, token, ok, err := m.acquire(ctx, key, ttl)
	if !ok || err != nil {
		return noRelease, ok, err
	}
	extend := func() bool { return sh.extend(key, token, m.now().Add(ttl)) }
	return keepAlive(ctx, ttl, extend, func() { sh.release(key, token) }), true, nil
}

// acquire takes key for ttl and returns its shard and the lease's token.
func (m *MemoryInFlight) acquire(ctx context.Context, key string, ttl time.Duration) (*inflightShard, uint64, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, false, err
	}
	if ttl <= 0 {
		return nil, 0, false, ErrInvalidTTL
	}
	now := m.now()
	sh := &m.shards[shardIndex(m.seed, key)]
	sh.mu.Lock()
	defer sh.mu.Unlock()

	if l, held := sh.locks[key]; held && now.Before(l.expires) {
		return nil, 0, false, nil
	}
	if len(sh.locks) >= sh.sweepAt {
		for k, l := range sh.locks {
			if !now.Before(l.expires) {
				delete(sh.locks, k)
			}
		}
		sh.sweepAt = max(minSweepAt, 2*len(sh.locks))
	}
	sh.nextToken++
	token := sh.nextToken
	sh.locks[key] = lease{token: token, expires: now.Add(ttl)}
	return sh, token, true, nil
}

// extend moves key's lease to expire at until, only if it still carries
// token (nobody took the key over); it reports whether it did.
func (sh *inflightShard) extend(key string, token uint64, until time.Time) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	l, held := sh.locks[key]
	if !held || l.token != token {
		return false
	}
	l.expires = until
	sh.locks[key] = l
	return true
}

// release deletes key's lease only if it still carries token (compare-and-delete).
func (sh *inflightShard) release(key string, token uint64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if l, held := sh.locks[key]; held && l.token == token {
		delete(sh.locks, key)
	}
}

// noRelease is the release returned when no lock was taken.
func noRelease() {}
