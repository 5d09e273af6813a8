package topupd

import (
	"context"
	"time"
)

// The reseller spec's rolling limits per account, topupd serve's defaults.
const (
	// DefaultRatePerSecond is the calls allowed in any rolling second.
	DefaultRatePerSecond = 40
	// DefaultRatePerMinute is the calls allowed in any rolling minute.
	DefaultRatePerMinute = 200
	// DefaultRateInvalidKeyPerMinute is the calls without a valid key (none,
	// malformed, unknown or revoked; on the admin API, without a valid
	// token) allowed from one client IP in any rolling minute.
	DefaultRateInvalidKeyPerMinute = 120
)

// RateDecision is a rate limiter's answer to one call.
type RateDecision struct {
	// Allowed says whether the call was allowed (and recorded).
	Allowed bool
	// RetryAfter, when refused, is how long until a call would be allowed
	// (above 0); zero when allowed.
	RetryAfter time.Duration
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1:
// the value of a refusal's Retry-After header.
func (d RateDecision) RetryAfterSeconds() int {
	return max(int((d.RetryAfter+time.Second-1)/time.Second), 1)
}

// RateLimiter decides whether one more call under a key (an account) is
// allowed in its rolling windows; an allowed call is recorded, a refused one
// is not. Package ratelimit implements it in memory and on Redis.
type RateLimiter interface {
	// Allow decides on, and if allowed records, one call under key now.
	Allow(ctx context.Context, key string) (RateDecision, error)
}

// RateLimiterFunc is a function that is a RateLimiter.
type RateLimiterFunc func(ctx context.Context, key string) (RateDecision, error)

// Allow calls f.
func (f RateLimiterFunc) Allow(ctx context.Context, key string) (RateDecision, error) {
	return f(ctx, key)
}

// OrderLimiter admits a call that places an order in one step (one round
// trip on Redis): the account's rate limit, as RateLimiter decides it, and
// the request's in-flight hints. A hint is a key (its trxid, its
// idempotency key) taken for a ttl and never given back: it lapses. It only
// spares work; the store's unique constraints decide. A call that finds a
// hint held tells the store, which then answers 429 while the first
// request's supplier call runs (PlaceOrder.HintHeld). Package ratelimit
// implements it in memory and on Redis.
type OrderLimiter interface {
	// AllowOrder decides on, and if allowed records, one call under key as
	// RateLimiter.Allow does. An allowed call then takes every hint in
	// hints for ttl, unless one of them is held already: it then takes none
	// and reports Held. A refused call takes none.
	AllowOrder(ctx context.Context, key string, hints []string, ttl time.Duration) (OrderDecision, error)
}

// OrderDecision is an OrderLimiter's answer to one call.
type OrderDecision struct {
	RateDecision
	// Held, on an allowed call, says that one of its hints was held: a call
	// with the same trxid or idempotency key began less than ttl ago.
	Held bool
}

// Invalidations carry word between the nodes of a deployment that what
// decides who may call (keys, accounts, settings) changed, so that no node
// keeps admitting a call on what it remembered from before. Package
// broadcast implements them on Redis and on PostgreSQL.
type Invalidations interface {
	// Announce tells every node, this one too, and returns once each node
	// that heard it has forgotten, or once within has passed, whichever
	// comes first. A node that remembers for at most within has then
	// forgotten too.
	Announce(ctx context.Context, within time.Duration) error
	// Listen calls forget on each announcement, until ctx ends. hearing
	// says whether announcements reach this node: while they do not (before
	// the first connection, and while it is lost) the node must not
	// remember anything, since it may miss the word.
	Listen(ctx context.Context, forget func(), hearing func(bool))
}
