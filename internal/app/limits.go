package app

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/broadcast"
	"github.com/topupd/topupd/ratelimit"
)

// limits are the rate limiter and the orders' in-flight hints: in memory
// on one node, or shared by every node through Redis.
type limits struct {
	limiter ratelimit.Limiter
	// orders counts POST /orders with limiter's windows and takes its
	// hints, in one call.
	orders ratelimit.OrderLimiter
	// keyless counts calls without a valid key (or admin token) per client IP.
	keyless ratelimit.Limiter
	checks  map[string]func(context.Context) error
	close   func()
	// invalidations tell every node that uses the same Redis; nil without Redis.
	invalidations topupd.Invalidations
}

// newLimits builds the limits --redis asks for.
func newLimits(cfg Config) (*limits, error) {
	windows := []ratelimit.Window{
		{Limit: cfg.RatePerSecond, Period: time.Second},
		{Limit: cfg.RatePerMinute, Period: time.Minute},
	}
	keylessWindows := []ratelimit.Window{{Limit: cmp.Or(cfg.RateInvalidKeyPerMinute, topupd.DefaultRateInvalidKeyPerMinute), Period: time.Minute}}
	if cfg.Redis == "" {
		limiter := ratelimit.NewMemory(windows, cfg.Now)
		return &limits{limiter: limiter, orders: ratelimit.NewMemoryOrders(limiter, cfg.Now),
			keyless: ratelimit.NewMemory(keylessWindows, cfg.Now), close: func() {}}, nil
	}
	if cfg.RedisTimeout <= 0 {
		return nil, fmt.Errorf("--redis-timeout must be above 0")
	}
	opts, err := redis.ParseURL(cfg.Redis)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	// Calls give up at their context's deadline (--redis-timeout) instead of
	// the client's read timeout.
	opts.ContextTimeoutEnabled = true
	client := redis.NewClient(opts)
	if cfg.RedisHook != nil {
		client.AddHook(cfg.RedisHook)
	}
	timeout := ratelimit.WithTimeout(cfg.RedisTimeout)
	limiter := ratelimit.NewRedis(client, windows, ratelimit.WithPrefix(cfg.RedisPrefix+"rl:"), ratelimit.WithHintPrefix(cfg.RedisPrefix+"if:"), timeout)
	return &limits{
		limiter: limiter,
		orders:  limiter,
		keyless: ratelimit.NewRedis(client, keylessWindows, ratelimit.WithPrefix(cfg.RedisPrefix+"rlip:"), timeout),
		checks: map[string]func(context.Context) error{"redis": func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, cfg.RedisTimeout)
			defer cancel()
			return client.Ping(ctx).Err()
		}},
		close:         func() { client.Close() },
		invalidations: broadcast.NewRedis(client, cfg.RedisPrefix, cfg.RedisTimeout, cfg.Logger),
	}, nil
}

// reachable checks, at start, that Redis answers when there is one, so
// that a wrong --redis stops the server with one line instead of failing
// every call.
func (l *limits) reachable(ctx context.Context) error {
	check, ok := l.checks["redis"]
	if !ok {
		return nil
	}
	// A few tries over some seconds: one call may take at most
	// --redis-timeout, which a busy machine can miss once.
	var err error
	for try := 0; try < 5; try++ {
		if err = check(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("--redis: Redis does not answer: %w", err)
}
