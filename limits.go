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

// InFlight holds short locks that tell a duplicate request while the first
// one runs. They only spare work: the store's unique constraints decide.
type InFlight interface {
	// Acquire takes key for at most ttl; ok is false when someone else
	// holds it. release gives it back (safe to call twice, and it never
	// releases a lock that lapsed and was taken by someone else).
	Acquire(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error)
	// Hold takes key as Acquire does and keeps it while its holder lives:
	// it is extended to ttl from then, ttl/4 apart, until release or until
	// ctx ends. A holder that dies (or whose ctx ends) stops extending, so
	// its lock lapses within ttl.
	Hold(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error)
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
