// Package ratelimit enforces exact rolling-window rate limits per key and,
// for calls that place orders, takes the short-lived in-flight hints that
// tell a duplicate request, in the same step.
//
// The in-memory implementations here are the reference semantics; other
// backends must behave the same way behind the Limiter and OrderLimiter
// interfaces.
package ratelimit

import (
	"time"

	"github.com/topupd/topupd"
)

// Window is one rolling window: at most Limit calls in any Period.
type Window struct {
	Limit  int           // maximum allowed calls in any rolling Period; must be >= 1
	Period time.Duration // length of the rolling window; must be > 0
}

// Decision is the answer to one call (the domain's RateDecision).
type Decision = topupd.RateDecision

// Limiter decides whether one more call under key is allowed; an allowed call is recorded, a refused one is not (the domain's RateLimiter).
type Limiter = topupd.RateLimiter
