// Package ratelimit enforces exact rolling-window rate limits per key and
// holds short-lived in-flight locks used to detect duplicate requests.
//
// The in-memory implementations here are the reference semantics; other
// backends must behave the same way behind the Limiter and InFlight interfaces.
package ratelimit

import (
	"context"
	"time"
)

// Window is one rolling window: at most Limit calls in any Period.
type Window struct {
	Limit  int           // maximum allowed calls in any rolling Period; must be >= 1
	Period time.Duration // length of the rolling window; must be > 0
}

// Decision is the answer to one call.
type Decision struct {
	Allowed    bool          // whether the call was allowed (and recorded)
	RetryAfter time.Duration // when refused: how long until a call would be allowed (> 0); zero when allowed
}

// Limiter decides whether one more call under key is allowed; an allowed call is recorded, a refused one is not.
type Limiter interface {
	// Allow decides on, and if allowed records, one call under key at the current time.
	Allow(ctx context.Context, key string) (Decision, error)
}

// RetryAfterSeconds rounds d up to whole seconds for a Retry-After header, returning at least 1.
func RetryAfterSeconds(d time.Duration) int {
	s := d / time.Second
	if d%time.Second > 0 {
		s++
	}
	if s < 1 {
		return 1
	}
	return int(s)
}
