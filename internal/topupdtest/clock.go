package topupdtest

import (
	"sync"
	"time"
)

// Clock is a manually driven clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at the current wall time (whole second), so that times
// the store keeps stay plausible.
func NewClock() *Clock {
	return &Clock{t: time.Now().UTC().Truncate(time.Second)}
}

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
