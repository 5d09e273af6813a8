package ratelimit

import (
	"context"
	"time"
)

// DefaultRedisTimeout bounds every Redis call made by Redis unless WithTimeout says otherwise.
const DefaultRedisTimeout = 200 * time.Millisecond

// DefaultLimitPrefix is the default key prefix of the Redis limiter.
const DefaultLimitPrefix = "topupd:rl:"

// DefaultHintPrefix is the default key prefix of the in-flight hints.
const DefaultHintPrefix = "topupd:if:"

// RedisOption configures NewRedis.
type RedisOption func(*redisConfig)

// redisConfig is what the options set.
type redisConfig struct {
	prefix     string
	hintPrefix string
	timeout    time.Duration
}

// WithPrefix puts prefix in front of every rate limit key (the default is DefaultLimitPrefix).
func WithPrefix(prefix string) RedisOption {
	return func(c *redisConfig) { c.prefix = prefix }
}

// WithHintPrefix puts prefix in front of every in-flight hint's key (the default is DefaultHintPrefix).
func WithHintPrefix(prefix string) RedisOption {
	return func(c *redisConfig) { c.hintPrefix = prefix }
}

// WithTimeout bounds every Redis call by d on top of the caller's context; d must be positive.
func WithTimeout(d time.Duration) RedisOption {
	return func(c *redisConfig) { c.timeout = d }
}

// newRedisConfig applies opts over the defaults; it panics on a non-positive timeout.
func newRedisConfig(prefix string, opts []RedisOption) redisConfig {
	c := redisConfig{prefix: prefix, hintPrefix: DefaultHintPrefix, timeout: DefaultRedisTimeout}
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
// background and its result is dropped.
func call[T any](ctx context.Context, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1) // buffered: an abandoned fn can still send and end
	go func() {
		v, err := fn(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
