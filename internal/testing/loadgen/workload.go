package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// pollEvery is the shortest time between two polls of the same processing order.
const pollEvery = time.Second

// Config is one run of the generator.
type Config struct {
	API        string // reseller API base URL
	Admin      string // admin API base URL
	AdminToken string

	Duration    time.Duration // how long the load runs
	Accounts    int           // accounts, each with its own key, pacer and client
	Concurrency int           // workers, each doing one action at a time

	// RatePerSecond and RatePerMinute are the limits the server runs with;
	// every account is paced to stay inside them.
	RatePerSecond, RatePerMinute int
	// Burst paces with the sliding log only (bursts up to the one-second
	// limit until the minute is used up); by default calls are also spread
	// evenly at the rate both windows sustain.
	Burst bool

	Seed uint64 // seeds every worker's choices
	Mix  Mix    // action weights (DefaultMix when nil)
	// InvalidPlayerPct is the share of top-up orders for a 9999 player,
	// which sim cancels and refunds.
	InvalidPlayerPct float64
	// ReplayPct is the share of orders that resend an earlier order
	// byte for byte, which must answer that same order.
	ReplayPct float64
	// SimDelay is set as the server's simDelayMs for the run so that top-ups
	// stay processing for a while and get polled; negative leaves the
	// setting alone. The previous value is restored afterwards.
	SimDelay time.Duration

	WaitFinal time.Duration // how long the checker waits for processing orders
	Grace     time.Duration // how long calls in flight may run past Duration
	Baseline  time.Duration // how long the bare net/http baseline runs (0: none)

	// Client retries (client.WithRetries / WithBackoff); 0 keeps the client's defaults.
	Retries                 int
	BackoffBase, BackoffMax time.Duration

	// Progress receives a line every second (nil: none).
	Progress io.Writer
	// ProgressExtra, when set, is appended to each progress line.
	ProgressExtra func() string
	// Cleanup disables the run's lines and accounts after the checks.
	Cleanup bool
	// DuringLoad, when set, runs while the load runs (chaos); its context
	// ends with the load, and Run waits for it to return before checking.
	DuringLoad func(ctx context.Context)
}

func (c *Config) defaults() error {
	if c.Duration <= 0 {
		return errors.New("the duration must be positive")
	}
	if c.Accounts < 1 || c.Concurrency < 1 {
		return errors.New("accounts and concurrency must be at least 1")
	}
	if c.RatePerSecond < 1 || c.RatePerMinute < 1 {
		return errors.New("the rate limits must be at least 1")
	}
	if c.Mix == nil {
		c.Mix = DefaultMix
	}
	if c.Grace <= 0 {
		c.Grace = 15 * time.Second
	}
	for _, u := range []string{c.API, c.Admin} {
		if err := CheckLoopback(u); err != nil {
			return err
		}
	}
	return nil
}

// gen is one run in progress.
type gen struct {
	cfg      Config
	runID    string
	admin    *client.Admin
	cat      *catalog
	accounts []*account
	rec      *Recorder
	stopAt   time.Time
	reqCtx   context.Context
	next     atomic.Int64 // round-robin over the accounts

	ops     [6]opCount
	orders  orderCounts
	errs    errorLog
	knownMu sync.Mutex
	known   map[string]*KnownOrder

	replayBad violations
	restock   chan struct{}
}

var actionIndex = map[Action]int{ActProducts: 0, ActServices: 1, ActBalance: 2, ActOrder: 3, ActPoll: 4, ActHistory: 5}

type opCount struct{ ok, failed, aborted atomic.Int64 }

// orderCounts are what the client saw of its orders.
type orderCounts struct {
	placed, completedAtOnce, processingAtOnce, cancelledAtOnce atomic.Int64
	finishedByPoll, replays, retriedReplays                    atomic.Int64
	rejectedStock, rejectedOther, invalidPlayers, codes        atomic.Int64
	byKind                                                     [4]atomic.Int64
}

// errorLog counts the calls that failed after the client's retries, by kind.
type errorLog struct {
	n  atomic.Int64
	mu sync.Mutex
	m  map[string]int
}

func (e *errorLog) add(key string) {
	e.n.Add(1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.m == nil {
		e.m = map[string]int{}
	}
	if _, ok := e.m[key]; ok || len(e.m) < 50 {
		e.m[key]++
	} else {
		e.m["(other)"]++
	}
}

// Run sets up the accounts and catalog on the server, runs the load, checks
// the books and returns the report. An error means the run could not be
// made (setup failed, the admin API could not be read); broken invariants
// are in the report (Pass false).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	admin, err := NewAdminClient(cfg.Admin, cfg.AdminToken)
	if err != nil {
		return nil, err
	}
	g := &gen{cfg: cfg, runID: NewRunID(), admin: admin, rec: NewRecorder(),
		known: map[string]*KnownOrder{}, restock: make(chan struct{}, 1), replayBad: violations{m: map[string]*Check{}}}
	rep := &Report{Version: 1, StartedAt: time.Now().UTC(), API: cfg.API, Admin: cfg.Admin, RunID: g.runID,
		Config: reportConfig(cfg)}
	rep.Notes = append(rep.Notes, limitNotes(cfg)...)

	before, err := g.admin.Settings(ctx)
	if err != nil {
		if client.StatusCode(err) == http.StatusUnauthorized {
			return nil, fmt.Errorf("the admin API refused the token (401): pass the server's TOPUPD_ADMIN_TOKEN with --admin-token: %w", err)
		}
		return nil, fmt.Errorf("the admin API at %s: %w", cfg.Admin, err)
	}
	if before.Maintenance || before.OrdersDisabled {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the server has maintenance=%v ordersDisabled=%v: orders will be refused", before.Maintenance, before.OrdersDisabled))
	}
	restore := func() {}
	if want := int(cfg.SimDelay / time.Millisecond); cfg.SimDelay >= 0 && want != before.SimDelayMs {
		if err := g.admin.Do(ctx, "PATCH", "/admin/settings", map[string]any{"simDelayMs": want}, nil); err != nil {
			return nil, fmt.Errorf("setting simDelayMs: %w", err)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("settings changed for this run: simDelayMs %d → %d (restored afterwards)", before.SimDelayMs, want))
		var once sync.Once
		restore = func() {
			once.Do(func() {
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer cancel()
				if err := g.admin.Do(rctx, "PATCH", "/admin/settings", map[string]any{"simDelayMs": before.SimDelayMs}, nil); err != nil {
					rep.Notes = append(rep.Notes, fmt.Sprintf("could not restore simDelayMs %d: %v", before.SimDelayMs, err))
				}
			})
		}
		defer restore()
	}

	if g.cat, err = setupCatalog(ctx, g.admin, g.runID); err != nil {
		return nil, err
	}
	stock := g.initialStock()
	for _, p := range g.cat.stocked() {
		if _, err := addStock(ctx, g.admin, g.runID, p, stock); err != nil {
			return nil, err
		}
	}
	if g.accounts, err = setupAccounts(ctx, g.admin, g.runID, cfg.Accounts); err != nil {
		return nil, err
	}
	rep.Setup = fmt.Sprintf("%d accounts (%s USD each), lines lg-%s-{topup,zone,key,card}, %d codes per stocked pack to start",
		cfg.Accounts, openingCredit, g.runID, stock)

	elapsed, err := g.load(ctx)
	if err != nil {
		return nil, err
	}
	rep.ElapsedSec = elapsed.Seconds()
	rep.Routes, rep.Total = g.rec.Stats(elapsed)
	rep.Actions = g.actionStats()
	rep.Orders = g.orderStats()
	rep.Errors = g.errorStats()

	restore() // now, so that what is still processing ends as the server normally would

	checker := &Checker{Admin: g.admin, WaitFinal: cfg.WaitFinal, Known: g.knownOrders()}
	for _, a := range g.accounts {
		checker.Accounts = append(checker.Accounts, a.id)
	}
	checks, err := checker.Check(ctx)
	if err != nil {
		return nil, fmt.Errorf("checking the books: %w", err)
	}
	for _, name := range []string{CheckReplays, CheckFinalStable} {
		c := Check{Name: name}
		if got := g.replayBad.m[name]; got != nil {
			c = *got
		}
		checks.Add(c)
	}
	rep.Checks = checks

	if cfg.Baseline > 0 {
		size := max(g.rec.MeanOKBytes(), 64)
		b, err := RunBaseline(ctx, cfg.Baseline, cfg.Concurrency, size)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		rep.Baseline = b
		if b.PerSecond > 0 {
			for i := range rep.Routes {
				r := rep.Routes[i].PerSecond / b.PerSecond
				rep.Routes[i].BaselineRatio = &r
			}
			r := rep.Total.PerSecond / b.PerSecond
			rep.Total.BaselineRatio = &r
		}
	}
	if cfg.Cleanup {
		rep.Notes = append(rep.Notes, g.cleanup(ctx))
	}
	rep.Pass = checks.OK
	return rep, nil
}

// cleanup takes the run's lines out of the catalog and turns its accounts'
// API access off; the books keep every order and entry.
func (g *gen) cleanup(ctx context.Context) string {
	failed := 0
	for slug, line := range g.cat.lines {
		line["status"] = "disabled"
		if err := g.admin.Do(ctx, "PUT", "/admin/services/"+slug, line, nil); err != nil {
			failed++
		}
	}
	for _, a := range g.accounts {
		if err := g.admin.Do(ctx, "PATCH", "/admin/accounts/"+a.id, map[string]any{"adminDisabled": true}, nil); err != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Sprintf("cleanup: %d admin calls failed while disabling the run's lines and accounts", failed)
	}
	return fmt.Sprintf("cleanup: the run's 4 lines are disabled and its %d accounts have adminDisabled set (the books keep everything)", len(g.accounts))
}

// limitNotes says when the run's limits differ from the spec's.
func limitNotes(cfg Config) []string {
	var notes []string
	if cfg.RatePerSecond > topupd.DefaultRatePerSecond || cfg.RatePerMinute > topupd.DefaultRatePerMinute {
		notes = append(notes, fmt.Sprintf("limits raised for this run: %d calls/s and %d calls/min per account (the spec's are %d and %d); the server must run with the same --rate-per-second and --rate-per-minute",
			cfg.RatePerSecond, cfg.RatePerMinute, topupd.DefaultRatePerSecond, topupd.DefaultRatePerMinute))
	} else if cfg.RatePerSecond < topupd.DefaultRatePerSecond || cfg.RatePerMinute < topupd.DefaultRatePerMinute {
		notes = append(notes, fmt.Sprintf("limits lowered for this run: %d calls/s and %d calls/min per account", cfg.RatePerSecond, cfg.RatePerMinute))
	}
	return notes
}

// callsPerAccount is the most calls the pacing lets one account make in d.
func callsPerAccount(cfg Config, d time.Duration) float64 {
	if !cfg.Burst {
		return d.Seconds()/SmoothSpacing(cfg.RatePerSecond, cfg.RatePerMinute).Seconds() + 1
	}
	minutes := float64(int(d/time.Minute) + 1)
	return min(float64(cfg.RatePerSecond)*d.Seconds(), float64(cfg.RatePerMinute)*minutes)
}

// initialStock is enough codes per stocked pack for the whole run at the
// paced rate (with room to spare), capped at 10,000: beyond that the
// restocker keeps adding while the run goes.
func (g *gen) initialStock() int {
	total := 0
	for _, w := range g.cfg.Mix {
		total += w
	}
	orders := callsPerAccount(g.cfg, g.cfg.Duration) * float64(g.cfg.Accounts) * float64(g.cfg.Mix[ActOrder]) / float64(max(total, 1))
	perPack := orders * 0.25 * 3 * 1.5 // at most a quarter of the orders per stocked pack, up to 3 codes each
	return int(min(max(perPack, 200), 10_000))
}

// load runs the workers until the duration is over and the calls in flight
// have ended, and returns how long that took.
func (g *gen) load(ctx context.Context) (time.Duration, error) {
	cfg := g.cfg
	base, err := url.Parse(cfg.API)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	g.stopAt = start.Add(cfg.Duration)
	reqCtx, cancelReq := context.WithDeadline(ctx, g.stopAt.Add(cfg.Grace))
	defer cancelReq()
	g.reqCtx = reqCtx

	shared := &http.Transport{
		Proxy:               nil, // loopback only, never through a proxy
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        2 * cfg.Concurrency,
		MaxIdleConnsPerHost: 2 * cfg.Concurrency,
		IdleConnTimeout:     90 * time.Second,
	}
	defer shared.CloseIdleConnections()
	windows := ServerWindows(cfg.RatePerSecond, cfg.RatePerMinute)
	spacing := SmoothSpacing(cfg.RatePerSecond, cfg.RatePerMinute)
	if cfg.Burst {
		spacing = 0
	}
	for _, a := range g.accounts {
		tr := &Transport{Base: shared, Pacer: NewPacer(windows, spacing, nil), Rec: g.rec, BasePath: base.Path, StopAt: g.stopAt}
		hc := &http.Client{Transport: tr, Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		opts := []client.Option{client.WithHTTPClient(hc), client.WithUserAgent("topupd-bench/1")}
		if cfg.Retries > 0 {
			opts = append(opts, client.WithRetries(cfg.Retries))
		}
		if cfg.BackoffBase > 0 && cfg.BackoffMax >= cfg.BackoffBase {
			opts = append(opts, client.WithBackoff(cfg.BackoffBase, cfg.BackoffMax))
		}
		if a.c, err = client.New(cfg.API, a.key, opts...); err != nil {
			return 0, err
		}
		// A shop starts by reading the catalog and its balance; then orders
		// of two kinds, a poll and a look at its history. This also makes
		// sure a short run touches every route.
		a.warm = []Action{ActServices, ActProducts, ActBalance, ActOrder, ActOrder, ActPoll, ActHistory}
		a.kinds = []OrderKind{OrderKinds[a.idx%4], OrderKinds[(a.idx+1)%4]}
	}

	loadCtx, stopLoad := context.WithDeadline(ctx, g.stopAt)
	defer stopLoad()
	var side sync.WaitGroup
	if cfg.DuringLoad != nil {
		side.Go(func() { cfg.DuringLoad(loadCtx) })
	}
	side.Go(func() { g.restocker(loadCtx) })
	progressDone := make(chan struct{})
	go func() { g.progress(loadCtx, start); close(progressDone) }()

	var workers sync.WaitGroup
	for i := range cfg.Concurrency {
		workers.Go(func() { g.worker(i) })
	}
	workers.Wait()
	// Throughput is over the whole run, even when the pacing left every
	// account with nothing more to send before its end.
	elapsed := max(time.Since(start), cfg.Duration)
	stopLoad()
	<-progressDone
	side.Wait()
	if g.cfg.Progress != nil {
		fmt.Fprintf(g.cfg.Progress, "load done after %.1fs: %d requests, %d orders, %d errors\n",
			elapsed.Seconds(), g.rec.Requests(), g.orders.placed.Load(), g.errs.n.Load())
	}
	if err := ctx.Err(); err != nil {
		return elapsed, err
	}
	return elapsed, nil
}

// progress prints a line every second until ctx ends.
func (g *gen) progress(ctx context.Context, start time.Time) {
	if g.cfg.Progress == nil {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n := g.rec.Requests()
		extra := ""
		if g.cfg.ProgressExtra != nil {
			extra = "  " + g.cfg.ProgressExtra()
		}
		fmt.Fprintf(g.cfg.Progress, "%5.0fs  requests %7d (%5d/s)  orders %6d  errors %4d  5xx/net %4d  429s %4d%s\n",
			time.Since(start).Seconds(), n, n-last, g.orders.placed.Load(), g.errs.n.Load(), g.rec.Failed(), g.rec.RateLimited(), extra)
		last = n
	}
}

// restocker keeps the stocked packs supplied, as an operator would: when an
// order found the stock short, or every few seconds, it tops up the packs
// running low.
func (g *gen) restocker(ctx context.Context) {
	initial := g.initialStock()
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-g.restock:
		}
		packs, err := g.admin.Products(ctx)
		if err != nil {
			continue // the server may be restarting
		}
		avail := map[string]int{}
		for _, p := range packs {
			avail[p.PID] = p.Available
		}
		for _, p := range g.cat.stocked() {
			if avail[p.PID] < initial/2 {
				addStock(ctx, g.admin, g.runID, p, initial)
			}
		}
	}
}

// worker does one action after another, going round the accounts, until
// the run is over.
func (g *gen) worker(i int) {
	r := rand.New(rand.NewPCG(g.cfg.Seed, uint64(i)+1))
	for time.Now().Before(g.stopAt) && g.reqCtx.Err() == nil {
		a := g.pickAccount()
		if a == nil {
			return // every account's pacing reaches past the end of the run
		}
		act, kind := a.nextAction(r, g.cfg.Mix)
		ctx, cancel := withStop(g.reqCtx)
		err := g.do(ctx, r, a, act, kind)
		oc := &g.ops[actionIndex[act]]
		switch {
		case err == nil:
			oc.ok.Add(1)
		case errors.Is(context.Cause(ctx), ErrStopped):
			// Slots only move later: this account is done for the run.
			a.exhausted.Store(true)
			oc.aborted.Add(1)
		case g.reqCtx.Err() != nil:
			oc.aborted.Add(1)
		default:
			oc.failed.Add(1)
			g.errs.add(errorKey(act, err))
		}
		cancel(nil)
	}
}

// pickAccount goes round the accounts, skipping those with no slot left
// before the end of the run; nil when there are none.
func (g *gen) pickAccount() *account {
	for range len(g.accounts) {
		a := g.accounts[int(g.next.Add(1)-1)%len(g.accounts)]
		if !a.exhausted.Load() {
			return a
		}
	}
	return nil
}
