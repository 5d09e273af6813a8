package ratelimit

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"time"
)

// InFlight holds short-lived exclusive locks, used to detect a duplicate request while the first is still running.
type InFlight interface {
	// Acquire takes key for at most ttl; ok is false when someone else holds it. release gives it back (safe to call twice, and must not release a lock that expired and was taken by someone else).
	Acquire(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error)
}

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
	if err := ctx.Err(); err != nil {
		return noRelease, false, err
	}
	if ttl <= 0 {
		return noRelease, false, ErrInvalidTTL
	}
	now := m.now()
	sh := &m.shards[shardIndex(m.seed, key)]
	sh.mu.Lock()
	defer sh.mu.Unlock()

	if l, held := sh.locks[key]; held && now.Before(l.expires) {
		return noRelease, false, nil
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
	return func() { sh.release(key, token) }, true, nil
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
