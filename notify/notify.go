// Package notify reads the event stream and hands its events to the
// notifiers registered with it (metrics, the messaging bot's notices, and
// later webhooks), in the shape of gitea's services/notify fed from one
// place. Each notifier has a cursor of its own in the database, held under
// a lease: of the nodes of a deployment one tells a notifier's events at a
// time, and after a crash another takes over from the cursor, so every
// committed event is told at least once.
package notify

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// Store is what the dispatcher needs of the database.
type Store interface {
	Events(ctx context.Context, after topupd.StreamPos, limit int) ([]topupd.Event, error)
	TakeConsumer(ctx context.Context, name, owner string, now, until time.Time) (topupd.StreamPos, bool, error)
	AdvanceConsumer(ctx context.Context, name, owner string, pos topupd.StreamPos) error
	ReleaseConsumer(ctx context.Context, name, owner string) error
}

// Defaults of Config.
const (
	DefaultLease = 15 * time.Second
	DefaultPoll  = 250 * time.Millisecond
	DefaultBatch = 200
)

// Config shapes a Dispatcher.
type Config struct {
	// Store is the database; Owner names this node in the cursors' leases.
	Store Store
	Owner string
	// Lease is how long a node holds a notifier's cursor unrenewed; Poll is
	// how long an idle dispatcher waits before reading again; Batch is the
	// most events handed over at once. Zero takes the defaults.
	Lease, Poll time.Duration
	Batch       int
	// Now is the clock of the leases; nil is time.Now.
	Now func() time.Time
	// Logger gets what goes wrong; nil discards it.
	Logger *slog.Logger
}

// Dispatcher tells each registered notifier of the stream's events.
type Dispatcher struct {
	cfg       Config
	notifiers []topupd.Notifier
	wake      chan struct{}
	// stepped is each notifier's cursor as Step holds it.
	stepped []held
}

// New returns a dispatcher for the notifiers; Run starts it.
func New(cfg Config, notifiers ...topupd.Notifier) *Dispatcher {
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Dispatcher{cfg: cfg, notifiers: notifiers, wake: make(chan struct{}, 1)}
}

// Wake tells the dispatcher that events were written, so that it reads
// before its next poll.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run tells every notifier of its events until ctx ends, then lets go of
// the leases it holds.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wakes := make([]chan struct{}, len(d.notifiers))
	for i, n := range d.notifiers {
		wakes[i] = make(chan struct{}, 1)
		wg.Go(func() { d.run(ctx, n, wakes[i]) })
	}
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-d.wake:
			for _, w := range wakes {
				select {
				case w <- struct{}{}:
				default:
				}
			}
		}
	}
}

// Step does one round of every notifier's loop in the caller's goroutine,
// as Run's loops do each in its own, and says whether there may be more
// to read at once. For a caller that decides every interleaving itself
// (the simulator); a deployment Runs the dispatcher.
func (d *Dispatcher) Step(ctx context.Context) bool {
	if d.stepped == nil {
		d.stepped = make([]held, len(d.notifiers))
	}
	more := false
	for i, n := range d.notifiers {
		if d.step(ctx, n, &d.stepped[i]) == 0 {
			more = true
		}
	}
	return more
}

// held is where a notifier's cursor stands while this node holds its
// lease: renewed a third of the way through, so that an idle dispatcher
// reads the stream each poll but writes to the database only to renew.
type held struct {
	pos   topupd.StreamPos
	until time.Time // zero: not held
}

// run is one notifier's loop: take or renew its cursor's lease, read what
// follows the cursor, hand it over, and move the cursor on.
func (d *Dispatcher) run(ctx context.Context, n topupd.Notifier, wake <-chan struct{}) {
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := d.cfg.Store.ReleaseConsumer(rctx, n.Name(), d.cfg.Owner); err != nil {
			d.cfg.Logger.Warn("notify: letting go of a cursor", "notifier", n.Name(), "err", err)
		}
	}()
	var h held
	pause := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-time.After(pause):
		}
		pause = d.step(ctx, n, &h)
	}
}

// step does one round of a notifier's loop and says how long to wait
// before the next: nothing when there may be more to read.
func (d *Dispatcher) step(ctx context.Context, n topupd.Notifier, h *held) time.Duration {
	if now := d.cfg.Now(); h.until.IsZero() || !now.Before(h.until.Add(-2*d.cfg.Lease/3)) {
		pos, ok, err := d.cfg.Store.TakeConsumer(ctx, n.Name(), d.cfg.Owner, now, now.Add(d.cfg.Lease))
		switch {
		case err != nil:
			h.until = time.Time{}
			d.warn(ctx, n, "taking its cursor", err)
			return d.cfg.Poll * 4
		case !ok:
			h.until = time.Time{}
			return min(d.cfg.Lease/3, time.Second) // another node tells this notifier's events, or let go of them
		}
		h.pos, h.until = pos, now.Add(d.cfg.Lease)
	}
	events, err := d.cfg.Store.Events(ctx, h.pos, d.cfg.Batch)
	if err != nil {
		d.warn(ctx, n, "reading the stream", err)
		return d.cfg.Poll * 4
	}
	if len(events) == 0 {
		return d.cfg.Poll
	}
	if err := n.Notify(ctx, events); err != nil {
		d.warn(ctx, n, "telling its events", err)
		return d.cfg.Poll * 4
	}
	// What was told is recorded even when the dispatcher is stopping, so
	// that a graceful stop tells nothing twice.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	last := events[len(events)-1].Pos
	if err := d.cfg.Store.AdvanceConsumer(actx, n.Name(), d.cfg.Owner, last); err != nil {
		h.until = time.Time{} // another node took over: take again, from the cursor it left
		d.warn(ctx, n, "moving its cursor on", err)
		return d.cfg.Poll
	}
	h.pos = last
	if len(events) == d.cfg.Batch {
		return 0
	}
	return d.cfg.Poll
}

// warn logs a failure, unless the dispatcher is stopping.
func (d *Dispatcher) warn(ctx context.Context, n topupd.Notifier, doing string, err error) {
	if ctx.Err() == nil {
		d.cfg.Logger.Warn("notify: "+doing, "notifier", n.Name(), "err", err)
	}
}
