package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/loadgen"
)

// benchConfig is everything bench needs, from flags and the environment.
type benchConfig struct {
	loadgen.Config
	JSON             string
	BaselineOn       bool
	BaselineDuration time.Duration
	Chaos            time.Duration
	Pace             string
}

// secondsValue is a duration flag that also takes a plain number of seconds.
type secondsValue struct{ d *time.Duration }

func (v secondsValue) String() string {
	if v.d == nil {
		return "0"
	}
	return v.d.String()
}

func (v secondsValue) Set(s string) error {
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		*v.d = time.Duration(n * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want seconds or a duration such as 2s")
	}
	*v.d = d
	return nil
}

const benchUsage = `usage: topupd bench [flags]

Drives a running topupd through the reseller API's Go client (client/) from
many accounts at once, each paced to stay within the server's rolling rate
limits, then checks the books through the admin API and fails (exit status 1)
when an invariant is broken. Everything it creates (accounts, lines, packs,
stock) is new and named after a random run id. Its top-up packs are
fulfilled by sim, so the server must run with --sim on (or --demo): never
bench a production server. With --chaos it starts its own server instead
(with --sim on) and kills it with SIGKILL every N seconds during the load.

The mix (--mix action=weight,...) draws each account's next call:
  products  GET /products     services  GET /services     balance  GET /balance
  order     POST /orders (top-up 40, zone 25, game key 20, gift card 15)
  poll      GET /orders/{id} of a processing order, else a recent one
  history   GET /history, paged (first page mostly), sometimes simple mode

flags:
`

// parseBench reads bench's flags; flags win over the environment.
func parseBench(args []string, getenv func(string) string, stderr io.Writer) (benchConfig, error) {
	var c benchConfig
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), benchUsage)
		printFlags(fs)
	}
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fe := &flagEnv{fs: fs} // numbers and durations from the environment, read strictly
	var seed uint64
	var mix string
	fs.StringVar(&c.API, "api", env("TOPUPD_BENCH_API", "http://127.0.0.1:8080"), "reseller API base URL, loopback only (TOPUPD_BENCH_API)")
	fs.StringVar(&c.Admin, "admin", env("TOPUPD_BENCH_ADMIN", "http://127.0.0.1:8081"), "admin API base URL, loopback only (TOPUPD_BENCH_ADMIN)")
	fs.StringVar(&c.AdminToken, "admin-token", getenv("TOPUPD_ADMIN_TOKEN"), "the server's admin bearer token (TOPUPD_ADMIN_TOKEN)")
	fe.Duration(&c.Duration, "duration", "TOPUPD_BENCH_DURATION", 30*time.Second, "how long the load runs")
	fe.Int(&c.Accounts, "accounts", "TOPUPD_BENCH_ACCOUNTS", 50, "accounts, each with its own key and pacing")
	fe.Int(&c.Concurrency, "concurrency", "TOPUPD_BENCH_CONCURRENCY", 64, "concurrent workers")
	fs.StringVar(&c.JSON, "json", getenv("TOPUPD_BENCH_JSON"), "also write the report as JSON to this file (TOPUPD_BENCH_JSON)")
	fe.Int(&c.RatePerSecond, "rate-per-second", "TOPUPD_RATE_PER_SECOND", topupd.DefaultRatePerSecond, "the server's --rate-per-second: each account stays within it")
	fe.Int(&c.RatePerMinute, "rate-per-minute", "TOPUPD_RATE_PER_MINUTE", topupd.DefaultRatePerMinute, "the server's --rate-per-minute: each account stays within it")
	fs.StringVar(&c.Pace, "pace", env("TOPUPD_BENCH_PACE", "smooth"), "smooth: each account's calls evenly spread at the rate both windows sustain; burst: up to the 1 s limit until the minute is used up (TOPUPD_BENCH_PACE)")
	fe.Uint64(&seed, "seed", "TOPUPD_BENCH_SEED", 0, "seed of the workers' choices; 0 picks one (printed)")
	fs.StringVar(&mix, "mix", env("TOPUPD_BENCH_MIX", ""), "action weights, for example order=50,poll=20; actions not named keep their default weight, and 0 turns one off (default "+loadgen.DefaultMix.String()+")")
	fs.Float64Var(&c.InvalidPlayerPct, "invalid-players", 3, "percent of top-up orders for a 9999 player (sim cancels and refunds them)")
	fs.Float64Var(&c.ReplayPct, "replays", 2, "percent of orders that resend an earlier order byte for byte (must answer that same order)")
	fs.DurationVar(&c.SimDelay, "sim-delay", time.Second, "simDelayMs set on the server for the run (restored after), so top-ups stay processing and get polled; negative leaves it alone")
	fs.DurationVar(&c.WaitFinal, "wait-final", 30*time.Second, "how long to wait after the load for processing orders to end")
	fs.BoolVar(&c.Cleanup, "cleanup", true, "after the checks, disable the run's lines and set adminDisabled on its accounts (the books keep everything)")
	fs.BoolVar(&c.BaselineOn, "baseline", false, "also measure a bare net/http handler serving a same-sized JSON answer, and report each route as a ratio of it")
	fs.DurationVar(&c.BaselineDuration, "baseline-duration", 3*time.Second, "how long the baseline runs")
	fs.Var(secondsValue{&c.Chaos}, "chaos", "N: start the server here and SIGKILL it every N seconds, restarting it on the same database and ports (0: drive --api/--admin)")
	envErr := fe.apply(getenv)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if envErr != nil {
		return c, envErr
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("bench: unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.Mix, err = loadgen.ParseMix(mix); err != nil {
		return c, err
	}
	switch c.Pace {
	case "smooth":
	case "burst":
		c.Burst = true
	default:
		return c, fmt.Errorf("--pace: smooth or burst")
	}
	if c.Duration <= 0 || c.Accounts < 1 || c.Concurrency < 1 {
		return c, errors.New("--duration, --accounts and --concurrency must be positive")
	}
	if c.RatePerSecond < 1 || c.RatePerMinute < 1 {
		return c, errors.New("--rate-per-second and --rate-per-minute must be at least 1")
	}
	if c.InvalidPlayerPct < 0 || c.InvalidPlayerPct > 100 || c.ReplayPct < 0 || c.ReplayPct > 100 {
		return c, errors.New("--invalid-players and --replays are percentages")
	}
	if c.Chaos < 0 {
		return c, errors.New("--chaos must not be negative")
	}
	if c.BaselineOn {
		if c.BaselineDuration <= 0 {
			return c, errors.New("--baseline-duration must be positive")
		}
		c.Baseline = c.BaselineDuration
	}
	if seed == 0 {
		seed = rand.Uint64()>>1 | 1
	}
	c.Seed = seed
	if c.Chaos == 0 {
		for _, u := range []string{c.API, c.Admin} {
			if err := loadgen.CheckLoopback(u); err != nil {
				return c, err
			}
		}
		if c.AdminToken == "" {
			return c, errors.New("bench: the admin token is required (--admin-token or TOPUPD_ADMIN_TOKEN)")
		}
	}
	return c, nil
}

// runBench is `topupd bench`.
func runBench(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if slices.ContainsFunc(args, isHelp) { // the usage goes to stdout; a bad flag's to stderr
		parseBench([]string{"-h"}, func(string) string { return "" }, stdout)
		return flag.ErrHelp
	}
	cfg, err := parseBench(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return err
	}
	return bench(ctx, cfg, stdout, stderr)
}

// bench runs the load generator and prints its report; the error is non-nil
// when the run failed or an invariant of the books broke.
func bench(ctx context.Context, cfg benchConfig, stdout, stderr io.Writer) (err error) {
	cfg.Progress = stderr
	var chaos *loadgen.Chaos
	var chaosErr error
	if cfg.Chaos > 0 {
		if chaos, err = startChaos(ctx, &cfg, stderr); err != nil {
			return err
		}
		defer func() {
			chaos.Stop()
			if err != nil {
				fmt.Fprintf(stderr, "bench: chaos database and server log kept in %s\n", chaos.Dir)
			} else {
				os.RemoveAll(chaos.Dir)
			}
		}()
		cfg.DuringLoad = func(ctx context.Context) { chaosErr = chaos.Run(ctx) }
		cfg.ProgressExtra = func() string { return fmt.Sprintf("kills %d", chaos.Stats().Kills) }
	}
	fmt.Fprintf(stderr, "bench: %v against %s with %d accounts, concurrency %d, seed %d\n",
		cfg.Duration, cfg.API, cfg.Accounts, cfg.Concurrency, cfg.Seed)
	rep, err := loadgen.Run(ctx, cfg.Config)
	if chaosErr != nil {
		return fmt.Errorf("bench: chaos: %w", chaosErr)
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if chaos != nil {
		st := chaos.Stats()
		rep.Chaos = &st
		rep.Notes = append(rep.Notes, fmt.Sprintf("chaos: the server was started by the bench and killed with SIGKILL every %v; errors during the outages are expected", cfg.Chaos))
	}
	rep.WriteText(stdout)
	if cfg.JSON != "" {
		if err := rep.WriteJSON(cfg.JSON); err != nil {
			return fmt.Errorf("bench: writing %s: %w", cfg.JSON, err)
		}
		fmt.Fprintf(stderr, "bench: JSON report written to %s\n", cfg.JSON)
	}
	if !rep.Pass {
		return fmt.Errorf("bench: INVARIANTS BROKEN: %s", strings.Join(rep.Checks.Failed(), "; "))
	}
	return nil
}

// startChaos starts a server of our own on a fresh database, as a child
// process of this very binary, and points the run at it.
func startChaos(ctx context.Context, cfg *benchConfig, stderr io.Writer) (*loadgen.Chaos, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	dir, err := os.MkdirTemp("", "topupd-chaos-")
	if err != nil {
		return nil, err
	}
	token := cfg.AdminToken
	if token == "" {
		token = loadgen.NewRunID() + loadgen.NewRunID() + loadgen.NewRunID() + loadgen.NewRunID()
	}
	ch := &loadgen.Chaos{Exe: exe, Dir: dir, Token: token, Every: cfg.Chaos, Env: os.Environ(),
		Args: []string{"--rate-per-second", strconv.Itoa(cfg.RatePerSecond), "--rate-per-minute", strconv.Itoa(cfg.RatePerMinute),
			"--redis=", "--trusted-proxies=", "--node-id", "bench-chaos", "--log-level", "warn"}}
	if err := ch.Start(ctx); err != nil {
		ch.Stop()
		return nil, fmt.Errorf("%w (files kept in %s)", err, dir)
	}
	cfg.API, cfg.Admin, cfg.AdminToken = ch.API(), ch.AdminURL(), token
	// Ride out the outages: enough retries to span a restart.
	cfg.Retries, cfg.BackoffBase, cfg.BackoffMax = 12, 100*time.Millisecond, 2*time.Second
	fmt.Fprintf(stderr, "bench: chaos: started %s serve on %s and %s (db %s)\n", exe, cfg.API, cfg.Admin, ch.DB())
	return ch, nil
}
