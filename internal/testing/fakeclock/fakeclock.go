// Package fakeclock is a clock that tests move by hand, safe for
// concurrent use. Every test clock of the project is one.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is a manually driven clock.
type Clock struct {
	mu    sync.Mutex
	start time.Time
	t     time.Time
}

// New returns a clock standing at start.
func New(start time.Time) *Clock { return &Clock{start: start, t: start} }

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

// Set moves the clock to d after its start (possibly backwards).
func (c *Clock) Set(d time.Duration) { c.SetTime(c.start.Add(d)) }

// SetTime moves the clock to t (possibly backwards).
func (c *Clock) SetTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
