package ratelimit

import (
	"context"
	"time"
)

// DefaultRedisTimeout bounds every Redis call made by Redis and RedisInFlight unless WithTimeout says otherwise.
const DefaultRedisTimeout = 200 * time.Millisecond

// DefaultLimitPrefix is the default key prefix of the Redis limiter.
const DefaultLimitPrefix = "topupd:rl:"

// DefaultInFlightPrefix is the default key prefix of the Redis in-flight locks.
const DefaultInFlightPrefix = "topupd:if:"

// RedisOption configures NewRedis and NewRedisInFlight.
type RedisOption func(*redisConfig)

// redisConfig is what the options set.
type redisConfig struct {
	prefix  string
	timeout time.Duration
}

// WithPrefix puts prefix in front of every Redis key (the defaults are DefaultLimitPrefix and DefaultInFlightPrefix).
func WithPrefix(prefix string) RedisOption {
	return func(c *redisConfig) { c.prefix = prefix }
}

// WithTimeout bounds every Redis call by d on top of the caller's context; d must be positive.
func WithTimeout(d time.Duration) RedisOption {
	return func(c *redisConfig) { c.timeout = d }
}

// newRedisConfig applies opts over the defaults; it panics on a non-positive timeout.
func newRedisConfig(prefix string, opts []RedisOption) redisConfig {
	c := redisConfig{prefix: prefix, timeout: DefaultRedisTimeout}
	for _, o := range opts {
		o(&c)
	}
	if c.timeout <= 0 {
		panic("ratelimit: Redis timeout must be positive")
	}
	return c
}

// call runs fn under a context bounded by timeout and returns as soon as fn
// returns or that context ends, whichever comes first, so that a connection
// that never answers cannot hang the caller whatever the client's own
// timeouts are. When the context ends first, fn keeps running in the
// background and its eventual result goes to late when late is not nil
// (used to undo a lock taken too late to be reported).
func call[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) (T, error), late func(T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result) // unbuffered: a send succeeds only if we are still waiting
	abandoned := make(chan struct{})
	go func() {
		v, err := fn(ctx)
		select {
		case ch <- result{v, err}:
		case <-abandoned:
			if late != nil {
				late(v, err)
			}
		}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		close(abandoned)
		var zero T
		return zero, ctx.Err()
	}
}
