package loadgen

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/topupd/topupd/client"
)

// ErrStopped is the cause of a call the generator dropped because its
// account's next free slot lies after the end of the run.
var ErrStopped = errors.New("loadgen: the run is over")

// Window is one rolling limit of the server: at most Limit calls in any
// Period. Margin is added to the period on the generator's side, to absorb
// the difference between when a call is sent and when the server counts it.
type Window struct {
	Limit  int
	Period time.Duration
	Margin time.Duration
}

// Pacer keeps one account within the server's rolling windows with a local
// sliding log that mirrors the server's (ratelimit.Memory): a call at time t
// is allowed when, for every window, fewer than Limit calls lie in
// (t-Period, t]. Callers reserve a slot and sleep until it, so the calls of
// an account go out in the order they asked, never faster than the windows
// allow.
//
// With Spacing above zero the pacer also spreads the calls evenly, at least
// Spacing apart ("smooth" pacing); without it an account bursts up to the
// one-second limit until the minute window is full, then waits ("burst").
//
// Every retry of the client goes through the pacer too, since it paces the
// HTTP exchanges themselves (see Transport).
type Pacer struct {
	windows []Window
	spacing time.Duration
	now     func() time.Time

	mu      sync.Mutex
	log     []time.Time   // reserved slots, oldest first, non-decreasing
	keep    int           // longest Limit: how many slots the log needs at most
	horizon time.Duration // longest Period+Margin: older slots never count
}

// NewPacer returns a pacer for windows, spacing calls at least spacing
// apart (0: no spreading). now is time.Now when nil.
func NewPacer(windows []Window, spacing time.Duration, now func() time.Time) *Pacer {
	if now == nil {
		now = time.Now
	}
	p := &Pacer{windows: windows, spacing: spacing, now: now}
	for _, w := range windows {
		p.keep = max(p.keep, w.Limit)
		p.horizon = max(p.horizon, w.Period+w.Margin)
	}
	return p
}

// ServerWindows are the pacer windows matching a server started with
// --rate-per-second perSecond and --rate-per-minute perMinute.
func ServerWindows(perSecond, perMinute int) []Window {
	return []Window{
		{Limit: perSecond, Period: time.Second, Margin: 25 * time.Millisecond},
		{Limit: perMinute, Period: time.Minute, Margin: 250 * time.Millisecond},
	}
}

// SmoothSpacing is the even spacing that stays inside both limits for ever:
// the longer of 1 s/perSecond and 60 s/perMinute, plus 2%.
func SmoothSpacing(perSecond, perMinute int) time.Duration {
	d := max(time.Second/time.Duration(perSecond), time.Minute/time.Duration(perMinute))
	return d + d/50
}

// Reserve books the earliest slot the windows allow and returns it. When
// that slot would be after notAfter (unless notAfter is zero) nothing is
// booked and ok is false.
func (p *Pacer) Reserve(notAfter time.Time) (slot time.Time, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	n := len(p.log)
	if n > 0 {
		last := p.log[n-1]
		if p.spacing > 0 {
			last = last.Add(p.spacing)
		}
		if last.After(t) {
			t = last
		}
	}
	for _, w := range p.windows {
		if w.Limit > 0 && n >= w.Limit {
			// The Limit-th newest call must have left the window.
			if free := p.log[n-w.Limit].Add(w.Period + w.Margin); free.After(t) {
				t = free
			}
		}
	}
	if !notAfter.IsZero() && t.After(notAfter) {
		return t, false
	}
	p.log = append(p.log, t)
	p.trim(t)
	return t, true
}

// trim forgets the slots that can no longer count: all but the newest keep,
// and those older than the longest window before now.
func (p *Pacer) trim(now time.Time) {
	cut := now.Add(-p.horizon)
	drop := max(len(p.log)-p.keep, sort.Search(len(p.log), func(i int) bool { return p.log[i].After(cut) }))
	if drop > 64 && drop > len(p.log)/2 {
		p.log = append(p.log[:0], p.log[drop:]...)
	}
}

// Wait books a slot and sleeps until it. It returns ErrStopped when the slot
// would be after notAfter, and ctx's error when ctx ends first (at once
// when ctx's deadline comes before the slot, as client.Sleep does).
func (p *Pacer) Wait(ctx context.Context, notAfter time.Time) error {
	slot, ok := p.Reserve(notAfter)
	if !ok {
		return ErrStopped
	}
	d := slot.Sub(p.now())
	if d <= 0 {
		return ctx.Err()
	}
	return client.Sleep(ctx, d)
}
