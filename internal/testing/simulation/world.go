// Package simulation is topupd's deterministic simulator: one seed runs one
// reproducible history of the real fulfilment engine, store and service
// layer, under a simulated clock, simulated suppliers, clients, operators
// and node crashes, with every step chosen by a seeded scheduler and the
// books' invariants checked as it goes. See docs/simulation.md.
package simulation

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/internal/sqlstore"
	"github.com/topupd/topupd/internal/testing/dbcount"
	"github.com/topupd/topupd/internal/testing/dbfault"
	"github.com/topupd/topupd/internal/testing/fakeclock"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/provider/manual"
	"github.com/topupd/topupd/provider/sim"
	"github.com/topupd/topupd/service"
	"github.com/topupd/topupd/sqlite"
)

// Config is one run of the simulator.
type Config struct {
	// Seed chooses the whole history.
	Seed uint64
	// Steps is how many steps the scheduler takes while faults may happen;
	// then faults stop and time runs on until every order is final.
	Steps int
	// Dir is where a SQLite database is made (a directory of the run's own).
	Dir string
	// Postgres, when set, is a URL of a database (or search_path schema)
	// of the run's own, used instead of SQLite.
	Postgres string
	// Trace, when set, receives the trace line by line.
	Trace io.Writer
	// FullMix turns every kind of fault on at its base rate, instead of
	// the mix the seed draws (swarm.go).
	FullMix bool
	// Bursts adds concurrent bursts to the steps (burst.go): the run
	// replays its schedule, but not what each burst's goroutines did.
	Bursts bool
}

// Result is what one run found.
type Result struct {
	Seed uint64
	// Store names the database: sqlite or postgres.
	Store string
	// Steps and Events count the scheduler's steps and the trace's lines.
	Steps, Events int
	// Orders is how many orders were placed.
	Orders int
	// Violation, when set, is the first invariant found broken.
	Violation string
	// Trace is every line of the trace, for a replay to compare.
	Trace []string
}

// The simulation's fixed shape.
const (
	nodes     = 2
	deadline  = 3 * time.Minute
	callLimit = 20 * time.Second
	lease     = 30 * time.Second
)

// node is one simulated topupd process: an engine over the store.
type node struct {
	w     *World
	name  string
	gen   int
	owner string
	dead  bool
	// skew is how far the node's clock is off the simulated one: it
	// changes at each start, so a restarted node's clock may be behind
	// where it was.
	skew time.Duration
	st   *crashStore
	eng  *fulfil.Engine
	// api is the node's reseller API handler.
	api http.Handler
}

// now is the node's clock: the simulated one, off by the node's skew.
func (n *node) now() time.Time { return n.w.clk.Now().Add(n.skew) }

// World is one run's state: the real components and the simulated ones.
type World struct {
	cfg Config
	// ords names orders in the trace (ord).
	ords map[int64]int
	rng  *rand.Rand
	// simAtOnce: the sim supplier answers at once (simDelayStep).
	simAtOnce bool
	clk       *fakeclock.Clock
	began     time.Time
	store     topupd.Store
	svc       *service.Service
	root      service.Actor
	nodes     []*node
	sups      upstreams
	supOrd    []*supplier
	// faults is set while faults may happen; crashes counts the crashes so far.
	faults  bool
	crashes int
	// calling is the node whose supplier call is in progress, if any.
	calling *node
	depth   int
	step    int
	trace   []string
	model   model
	codeSeq int
	// violation is the first invariant found broken.
	violation string
	// hooks is the webhook side: notifier, deliverer and receivers.
	hooks *hooks
	// deps is the deposit side: clients, the bank and two operators.
	deps *deposits
	// db counts the store's statements by the node's call that ran them
	// (betweenTx); calls counts the calls, to tag each.
	db    *dbcount.Counter
	calls int
	// dbf injects faults at the SQL driver (dbfaults.go).
	dbf *dbFaults
	// mix is the seed's mix of faults (swarm.go).
	mix mix
	// bursts, when set, are the run's concurrent bursts (Config.Bursts).
	bursts *bursts
}

// Run runs one seed to its end, or to its first violation.
func Run(ctx context.Context, cfg Config) (Result, error) {
	start := time.Date(2026, 11, 1, 23, 45, 0, 0, time.UTC) // the run crosses midnight: daily limits and roll-ups by day
	w := &World{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x70707570)), clk: fakeclock.New(start), began: start,
		faults: true, model: newModel(), db: dbcount.New(), mix: drawMix(cfg.Seed)}
	if cfg.FullMix {
		w.mix = fullMix
	}
	for _, l := range w.mix.lines() {
		w.logf("%s", l)
	}
	if cfg.Bursts {
		w.logf("mix: concurrent bursts %s of steps", permille(w.mix.burst))
	}
	if err := w.open(ctx); err != nil {
		return Result{}, err
	}
	defer w.store.Close()
	if cfg.Bursts {
		w.bursts = w.newBursts()
	}
	if err := w.setup(ctx); err != nil {
		return Result{}, fmt.Errorf("seed %d: setup: %w", cfg.Seed, err)
	}
	err := w.run(ctx)
	res := Result{Seed: cfg.Seed, Steps: w.step, Events: len(w.trace), Orders: len(w.model.orders), Violation: w.violation, Trace: w.trace}
	return res, err
}

// open opens the run's store.
func (w *World) open(ctx context.Context) error {
	store := dbfault.SQLite
	if w.cfg.Postgres != "" {
		store = dbfault.Postgres
	}
	w.dbf = w.newDBFaults(store)
	// The faults stand next to the driver; dbcount counts what reaches them.
	wrap := sqlstore.WithConnector(func(c driver.Connector) driver.Connector { return w.db.Connector(w.dbf.in.Connector(c)) })
	if w.cfg.Postgres != "" {
		st, err := postgres.Open(ctx, w.cfg.Postgres, vault(), sqlstore.WithClock(w.clk.Now), wrap)
		if err != nil {
			return err
		}
		w.store = st
		return nil
	}
	st, err := sqlite.Open(ctx, filepath.Join(w.cfg.Dir, "sim.db"), vault(), sqlstore.WithClock(w.clk.Now), wrap)
	if err != nil {
		return err
	}
	w.store = st
	return nil
}

// vault seals the run's secrets (upstream keys, codes) under a fixed key:
// a run's database is thrown away.
func vault() *topupd.Vault {
	v, err := topupd.NewVault([]byte(strings.Repeat("s", 32)))
	if err != nil {
		panic(err) // a fixed key of the right length
	}
	return v
}

// logf adds a line to the trace.
func (w *World) logf(format string, args ...any) {
	line := fmt.Sprintf("%s ", w.clk.Now().Format("15:04:05.000")) + fmt.Sprintf(format, args...)
	w.trace = append(w.trace, line)
	if w.cfg.Trace != nil {
		fmt.Fprintln(w.cfg.Trace, line)
	}
}

// fail records a violation: the first one ends the run.
func (w *World) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	w.logf("VIOLATION: %s", msg)
	if w.violation == "" {
		w.violation = msg
	}
}

// faultN draws a fault's number below n; with faults stopped it is always
// n-1 (no fault).
func (w *World) faultN(n int) int {
	r := w.rng.IntN(n)
	if !w.faults {
		return n - 1
	}
	return r
}

// crashHere decides whether a node stops at this store call.
func (w *World) crashHere() bool {
	return w.faults && w.rng.IntN(1000) < w.mix.crash
}

// pauseHere decides whether a node stalls before this store call.
func (w *World) pauseHere() bool {
	return w.faults && w.depth == 0 && w.rng.IntN(1000) < w.mix.stall
}

// crash stops a node.
func (w *World) crash(n *node, where string) {
	n.dead = true
	w.crashes++
	w.logf("  CRASH %s %s", n.owner, where)
}

// quiet discards the components' logs: the trace is the simulator's.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// start makes (or, after a crash, remakes) a node's engine. A node comes
// back under its own owner name and lets go of its leases (as topupd
// serve does), or as a new node whose predecessor's leases run out.
func (w *World) start(ctx context.Context, n *node) {
	same := n.gen > 0 && w.rng.IntN(2) == 0
	if !same {
		n.gen++
		n.owner = fmt.Sprintf("%s.%d", n.name, n.gen)
	}
	n.dead = false
	n.skew = time.Duration(w.rng.IntN(6001)-3000) * time.Millisecond
	n.st = &crashStore{Store: w.store, n: n}
	provs := map[string]topupd.Provider{
		topupd.ProviderManual:   nodeProvider{n, manual.New()},
		topupd.ProviderSim:      nodeProvider{n, sim.New(n.st, n.now)},
		topupd.ProviderSandbox:  nodeProvider{n, sim.New(n.st, n.now)}, // as internal/app wires it
		topupd.ProviderUpstream: nodeProvider{n, w.sups},
	}
	eng, err := fulfil.New(fulfil.Config{Store: n.st, Providers: provs, Now: n.now, Logger: quiet, Owner: n.owner,
		Lease: lease, CallTimeout: callLimit, BackoffBase: time.Second, BackoffMax: time.Minute,
		Jitter: rand.New(rand.NewPCG(w.rng.Uint64(), 1)), Sleep: w.sleeper(n)})
	if err != nil {
		panic(err) // a configuration error of the simulator itself
	}
	n.eng = eng
	n.api = w.newAPI(n)
	w.logf("start %s (clock %+v)", n.owner, n.skew)
	if same {
		if err := eng.Recover(ctx); err != nil {
			w.logf("  recover %s: %v", n.owner, errText(err))
		}
	}
}

// supplierCode is a new code a supplier delivers; now and then (with
// faults) one the supplier delivered before or that is held in stock.
func (w *World) supplierCode(name string) string {
	if w.faults && w.rng.IntN(100) < w.mix.usedCode && len(w.model.stock) > 0 {
		return w.model.stock[w.rng.IntN(len(w.model.stock))]
	}
	w.codeSeq++
	return fmt.Sprintf("%s-CODE-%d", strings.ToUpper(name), w.codeSeq)
}

// meanwhile runs, inside a supplier call that answers late or a node's
// stall, what happens while the caller waits: time passes beyond the
// caller's lease and another node (not the stalled or calling one) takes
// every order due, the caller's among them, as its engine's loop would in
// that time (a node that had crashed starts again first).
func (w *World) meanwhile(stalled *node) {
	if w.depth > 0 {
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	w.clk.Advance(lease + 2*maxSkew + time.Duration(w.rng.IntN(10))*time.Second)
	n := w.nodes[w.rng.IntN(len(w.nodes))]
	for n == stalled {
		n = w.nodes[w.rng.IntN(len(w.nodes))]
	}
	w.logf("  meanwhile:")
	if n.dead {
		w.start(context.Background(), n)
	}
	w.workUpTo(context.Background(), n, meanwhileClaims)
}

// meanwhileClaims bounds what a node claims while another waits: in the
// lease's time its engine's loop would claim every order due.
const meanwhileClaims = 100

// ord is the number an order goes by in the trace: the order in which the
// trace first named it, not its seq, which PostgreSQL's sequence hands
// out with gaps (a rolled-back insert spends one). One seed's trace is
// then the same on both stores (TestReplayAcrossStores).
func (w *World) ord(seq int64) int {
	n, ok := w.ords[seq]
	if !ok {
		if w.ords == nil {
			w.ords = map[int64]int{}
		}
		n = len(w.ords) + 1
		w.ords[seq] = n
	}
	return n
}
