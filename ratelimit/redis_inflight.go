package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisInFlight is an InFlight over Redis keys shared by every node.
//
// Acquire runs SET key token NX PX ttl with a fresh random token; release
// deletes the key only while it still holds that token (a Lua
// compare-and-delete), so a release after the lock expired and was taken by
// someone else frees nothing. A failed release is ignored: the lock lapses at
// its ttl. A lock that Redis granted only after Acquire gave up is released in
// the background.
type RedisInFlight struct {
	client redis.UniversalClient
	cfg    redisConfig
}

var _ InFlight = (*RedisInFlight)(nil)

// releaseScript deletes KEYS[1] only if its value is ARGV[1]; it returns the number of keys deleted.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// extendScript sets KEYS[1] to expire ARGV[2] ms from now only if its value is ARGV[1]; it returns 1 if it did.
var extendScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// NewRedisInFlight returns a RedisInFlight on client; it panics if client is nil.
func NewRedisInFlight(client redis.UniversalClient, opts ...RedisOption) *RedisInFlight {
	if client == nil {
		panic("ratelimit: NewRedisInFlight needs a client")
	}
	return &RedisInFlight{client: client, cfg: newRedisConfig(DefaultInFlightPrefix, opts)}
}

// Acquire takes key for at most ttl (rounded up to whole milliseconds) unless someone holds it; release is never nil (a no-op when ok is false), and err is ErrInvalidTTL, ctx's error or a Redis failure or timeout.
func (l *RedisInFlight) Acquire(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error) {
	lk, ok, err := l.acquire(ctx, key, ttl)
	if !ok || err != nil {
		return noRelease, ok, err
	}
	var once sync.Once
	return func() { once.Do(func() { l.release(lk.key, lk.token) }) }, true, nil
}

// Hold takes key as Acquire does and extends it every ttl/RenewEvery until
// release or until ctx ends. An extension that fails (Redis slow or down)
// is tried again at the next tick; one that finds the key lost stops.
func (l *RedisInFlight) Hold(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error) {
	lk, ok, err := l.acquire(ctx, key, ttl)
	if !ok || err != nil {
		return noRelease, ok, err
	}
	extend := func() bool {
		n, err := call(context.WithoutCancel(ctx), l.cfg.timeout, func(ctx context.Context) (int64, error) {
			return extendScript.Run(ctx, l.client, []string{lk.key}, lk.token, lk.ttl.Milliseconds()).Int64()
		}, nil)
		return err != nil || n == 1
	}
	return keepAlive(ctx, lk.ttl, extend, func() { l.release(lk.key, lk.token) }), true, nil
}

// redisLock is one lock Redis granted: its key, its holder's token, and
// its ttl rounded up to whole milliseconds.
type redisLock struct {
	key, token string
	ttl        time.Duration
}

// acquire runs SET NX for key. The closures handed to call may still run
// after call returns (a late answer is released in the background), so they
// capture only variables that are never written again.
func (l *RedisInFlight) acquire(ctx context.Context, key string, ttl time.Duration) (redisLock, bool, error) {
	if err := ctx.Err(); err != nil {
		return redisLock{}, false, err
	}
	if ttl <= 0 {
		return redisLock{}, false, ErrInvalidTTL
	}
	lk := redisLock{key: l.cfg.prefix + key, token: rand.Text(), ttl: (ttl + time.Millisecond - 1) / time.Millisecond * time.Millisecond}
	ok, err := call(ctx, l.cfg.timeout, func(ctx context.Context) (bool, error) {
		return l.client.SetNX(ctx, lk.key, lk.token, lk.ttl).Result()
	}, func(late bool, err error) {
		if err == nil && late {
			l.release(lk.key, lk.token)
		}
	})
	if err != nil {
		return redisLock{}, false, fmt.Errorf("ratelimit: redis acquire: %w", err)
	}
	return lk, ok, nil
}

// release deletes key if it still holds token, within the timeout; errors are dropped since the lock lapses anyway.
func (l *RedisInFlight) release(key, token string) {
	_, _ = call(context.Background(), l.cfg.timeout, func(ctx context.Context) (any, error) {
		return releaseScript.Run(ctx, l.client, []string{key}, token).Result()
	}, nil)
}
