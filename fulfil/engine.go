// Package fulfil is the engine that moves orders from processing to a final
// state. Workers claim due orders under a lease, call the order's provider,
// and settle the outcome: completed, cancelled and refunded once, or retried
// with backoff until the order's deadline.
package fulfil

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/internal/metrics"
)

// DeadlineExceeded is the error of an order cancelled because its deadline passed.
const DeadlineExceeded = "DEADLINE EXCEEDED"

// The defaults of Config, which are also the defaults of topupd serve's flags.
const (
	// DefaultCallTimeout bounds each supplier call.
	DefaultCallTimeout = 20 * time.Second
	// DefaultLease is how long a claim holds an order: the call timeout and 10 s more.
	DefaultLease = DefaultCallTimeout + 10*time.Second
	// DefaultBackoffBase is the first delay before retrying a supplier.
	DefaultBackoffBase = time.Second
	// DefaultBackoffMax is the longest delay between retries of a supplier.
	DefaultBackoffMax = 5 * time.Minute
	// DefaultHealthHold is how long an unhealthy supplier is passed over.
	DefaultHealthHold = time.Minute
)

// Config is everything an Engine needs.
type Config struct {
	Store     topupd.FulfilmentStore
	Providers map[string]topupd.Provider
	Now       func() time.Time
	Logger    *slog.Logger
	// Owner names this engine's node in leases: stable across restarts of a
	// node, and different between nodes that run at the same time.
	Owner string
	// Lease is how long a claim holds an order; it must exceed CallTimeout.
	Lease time.Duration
	// CallTimeout bounds each supplier call.
	CallTimeout time.Duration
	// Poll is the longest the engine sleeps between looks for due orders.
	Poll time.Duration
	// Workers is how many orders are worked on at once.
	Workers int
	// BackoffBase and BackoffMax shape the retry delays after transient errors.
	BackoffBase, BackoffMax time.Duration
	// Drain is how long a stopping engine lets calls in progress finish.
	Drain time.Duration
	// Metrics, when set, count supplier calls and orders going final.
	Metrics *metrics.Metrics
	// HealthHold is how long a supplier found unhealthy is passed over by
	// orders that list another (see docs/failover.md).
	HealthHold time.Duration
	// CheckTimeout bounds a player check (CheckPlayer), all its suppliers
	// together; topupd.PlayerCheckTimeout by default.
	CheckTimeout time.Duration
	// Jitter, when set, draws the retry delays' jitter instead of the
	// process's random source: a deterministic simulation sets a seeded
	// one. It is not safe for concurrent use, so an engine given one must
	// be driven from one goroutine (Claim and Process, not Run).
	Jitter *rand.Rand
	// Sleep, when set, waits out d on the engine's clock (Now) before a
	// worker asks a supplier again in memory (waitOut); an error ends the
	// wait early. A deterministic simulation sets one that moves its own
	// clock. By default a timer, ended early by ctx or the engine's stop.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Engine claims processing orders and settles them.
type Engine struct {
	cfg    Config
	sem    chan struct{}
	wake   chan struct{}
	health *healthBook

	mu       sync.Mutex
	stopping bool
	inflight sync.WaitGroup
	// base is the context of supplier calls; cancelled once draining times out.
	base   context.Context
	cancel context.CancelFunc
}

// New checks the configuration and returns an engine.
func New(cfg Config) (*Engine, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("fulfil.New: a store is required")
	case len(cfg.Providers) == 0:
		return nil, errors.New("fulfil.New: providers are required")
	case cfg.Owner == "":
		return nil, errors.New("fulfil.New: an owner is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Logger = logctx.Logger(cfg.Logger)
	setDefault(&cfg.CallTimeout, DefaultCallTimeout)
	setDefault(&cfg.Lease, cfg.CallTimeout+(DefaultLease-DefaultCallTimeout))
	setDefault(&cfg.Poll, 250*time.Millisecond)
	setDefault(&cfg.BackoffBase, DefaultBackoffBase)
	setDefault(&cfg.BackoffMax, DefaultBackoffMax)
	setDefault(&cfg.Drain, 10*time.Second)
	setDefault(&cfg.HealthHold, DefaultHealthHold)
	setDefault(&cfg.CheckTimeout, topupd.PlayerCheckTimeout)
	if cfg.Lease <= cfg.CallTimeout {
		return nil, fmt.Errorf("fulfil.New: lease %v must exceed call timeout %v", cfg.Lease, cfg.CallTimeout)
	}
	if cfg.Workers <= 0 {
		// Supplier calls mostly wait (on the supplier, then on a commit),
		// so many run at once on few cores.
		cfg.Workers = 256
	}
	base, cancel := context.WithCancel(context.Background())
	return &Engine{cfg: cfg, sem: make(chan struct{}, cfg.Workers), wake: make(chan struct{}, 1), health: newHealthBook(),
		base: base, cancel: cancel}, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// Recover lets go of the leases this engine's owner held in a previous life
// (a process that crashed), so that its orders are claimed at once instead of
// after their leases run out. Call it before serving, as the node's owner
// name must be its own.
func (e *Engine) Recover(ctx context.Context) error {
	return e.cfg.Store.ReleaseLeases(ctx, e.cfg.Owner)
}

// Health reports how each supplier's recent calls from this node went.
func (e *Engine) Health() []topupd.Health { return e.health.snapshot() }

// Owner is the name this engine leases orders under.
func (e *Engine) Owner() string { return e.cfg.Owner }

// LeaseUntil is when a lease taken now would run out.
func (e *Engine) LeaseUntil(now time.Time) time.Time { return now.Add(e.cfg.Lease) }

// Run claims and works on due orders until ctx ends, then drains: it stops
// claiming, lets calls in progress finish (up to Drain), and releases every
// lease it still holds.
func (e *Engine) Run(ctx context.Context) error {
	defer e.drain()
	for {
		// A read first: claiming is a write, which an idle engine should
		// not make on every poll.
		wait := e.cfg.Poll
		next, ok, err := e.cfg.Store.NextDue(ctx, e.cfg.Now())
		if err != nil && ctx.Err() == nil {
			e.cfg.Logger.Error("fulfil: next due", "err", err)
		}
		if d := next.Sub(e.cfg.Now()); err == nil && ok && d <= 0 {
			n, err := e.claimOnce(ctx)
			if err != nil && ctx.Err() == nil {
				e.cfg.Logger.Error("fulfil: claim", "err", err)
			}
			if n > 0 && err == nil {
				continue
			}
		} else if err == nil && ok && d < wait {
			wait = d
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-e.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// Wake asks the engine to look for due orders now.
func (e *Engine) Wake() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// claimOnce claims as many due orders as there are free workers and starts them.
func (e *Engine) claimOnce(ctx context.Context) (int, error) {
	free := cap(e.sem) - len(e.sem)
	if free == 0 {
		select { // wait for a worker to come free
		case e.sem <- struct{}{}:
			<-e.sem
		case <-ctx.Done():
		}
		return 0, nil
	}
	orders, err := e.Claim(ctx, free)
	if err != nil {
		return 0, err
	}
	for _, o := range orders {
		if !e.start(context.Background(), o, false, time.Time{}, nil) {
			break
		}
	}
	return len(orders), nil
}

// Claim leases up to limit due orders to this engine, for Process: the
// claim of Run's loop, which a caller that drives the engine step by step
// (the deterministic simulator) makes itself.
func (e *Engine) Claim(ctx context.Context, limit int) ([]topupd.Order, error) {
	now := e.cfg.Now()
	return e.cfg.Store.ClaimDue(ctx, e.cfg.Owner, now, e.LeaseUntil(now), limit)
}

// Process works on one order leased to this engine (by Claim, or placed
// with its lease), in the caller's goroutine: one round of supplier calls
// and its settlement, as Run's workers and Attempt make it. fresh means no
// call for the order can have reached its current supplier yet (an order
// just placed). It returns the order as it stands afterwards.
func (e *Engine) Process(ctx context.Context, o topupd.Order, fresh bool) topupd.Order {
	return e.process(ctx, o, fresh, time.Time{})
}

// ProcessPlaced works on an order just placed and leased to this engine,
// in the caller's goroutine, as Attempt's worker does: a pending answer to
// its first submit that falls due by waitUntil, and early enough in its
// lease, is waited out in memory and the supplier asked again (waitOut).
func (e *Engine) ProcessPlaced(ctx context.Context, o topupd.Order, waitUntil time.Time) topupd.Order {
	return e.process(ctx, o, true, e.holdUntil(o, waitUntil))
}

// start works on one leased order in the background; done, if not nil,
// receives the order as it stands afterwards. It reports false once the
// engine is stopping. logCtx is the context of its log lines only (it
// carries the placing request's id); the work does not end with it. hold
// is process's.
func (e *Engine) start(logCtx context.Context, o topupd.Order, fresh bool, hold time.Time, done chan<- topupd.Order) bool {
	e.mu.Lock()
	if e.stopping {
		e.mu.Unlock()
		return false
	}
	e.inflight.Add(1)
	e.mu.Unlock()
	// A claimed order takes a worker slot here, in the claim loop, so that
	// the loop never claims more than it has workers for; a request's own
	// first attempt takes none (the request already bounds it), so that
	// incoming orders never starve the queue of orders already waiting.
	if !fresh {
		e.sem <- struct{}{}
	}
	go func() {
		defer e.inflight.Done()
		if !fresh {
			defer func() { <-e.sem }()
		}
		out := e.process(logCtx, o, fresh, hold)
		if done != nil {
			done <- out
		}
	}()
	return true
}

// Attempt makes the first supplier call for an order just placed and leased
// to this engine, and waits up to wait for it (or until ctx ends, when the
// caller has gone). It returns the order as it then stands; a call that takes
// longer goes on in the background. A pending answer that falls due within
// the wait is waited out, as ProcessPlaced does.
func (e *Engine) Attempt(ctx context.Context, o topupd.Order, wait time.Duration) topupd.Order {
	done := make(chan topupd.Order, 1)
	if !e.start(logctx.Detach(ctx), o, true, e.holdUntil(o, e.cfg.Now().Add(wait)), done) {
		return o
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case out := <-done:
		return out
	case <-t.C:
		return o
	case <-ctx.Done():
		return o
	}
}

// Answered records the first supplier call of an order its placement
// answered by the sim rules (topupd.PlaceOrder.Sim): the call's log
// line and metric, the supplier's health, and the final line of one it
// completed, as process and settle write them for a call. One it left
// pending is due for this engine's loop, as after a recorded pending answer.
func (e *Engine) Answered(ctx context.Context, o topupd.Order) {
	e.health.record(&o, e.cfg.Now(), nil)
	if !o.Status.Final() {
		e.logCall(ctx, &o, topupd.Outcome{State: topupd.OutcomePending}, nil, time.Now())
		return
	}
	e.logCall(ctx, &o, topupd.Outcome{State: topupd.OutcomeCompleted}, nil, time.Now())
	e.logFinal(ctx, &o)
}

// drain stops claiming, waits for calls in progress, and releases leases.
func (e *Engine) drain() {
	e.mu.Lock()
	e.stopping = true
	e.mu.Unlock()
	finished := make(chan struct{})
	go func() { e.inflight.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(e.cfg.Drain):
		e.cancel()
		<-finished
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.cfg.Store.ReleaseLeases(ctx, e.cfg.Owner); err != nil {
		e.cfg.Logger.Error("fulfil: release leases", "err", err)
	}
	e.cancel()
}

// backoff is an exponential delay with full jitter for the n-th retry.
func (e *Engine) backoff(n int) time.Duration {
	d := e.cfg.BackoffBase
	for i := 0; i < n && d < e.cfg.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, e.cfg.BackoffMax)
	if e.cfg.Jitter != nil {
		return d/2 + time.Duration(e.cfg.Jitter.Int64N(int64(d/2+1)))
	}
	return d/2 + rand.N(d/2+1)
}
