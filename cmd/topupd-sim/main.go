// Command topupd-sim runs the deterministic simulator (internal/testing/simulation)
// over a range of seeds: each seed one reproducible history of the real
// engine, store and service layer under simulated faults. A seed that
// breaks an invariant is printed, with the command that replays it.
//
//	go run ./cmd/topupd-sim -seeds 100
//	go run ./cmd/topupd-sim -seed 42 -v
//	go run ./cmd/topupd-sim -seeds 100 -bursts   # with concurrent bursts
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/topupd/topupd/internal/testing/simulation"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "topupd-sim:", err)
		os.Exit(1)
	}
}

// run parses the flags and runs the seeds; a violation is an error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("topupd-sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seeds := fs.Int("seeds", 1, "how many seeds to run, from -seed on")
	seed := fs.Uint64("seed", 1, "the first seed")
	steps := fs.Int("steps", simulation.DefaultSteps, "steps per seed while faults happen")
	verbose := fs.Bool("v", false, "print each seed's trace")
	swarm := fs.Bool("swarm", true, "each seed draws its mix of faults; false: every kind on, at its base rate")
	bursts := fs.Bool("bursts", false, "add concurrent bursts: a replay repeats the schedule, not each burst's interleaving")
	pg := fs.String("postgres", getenv("TOPUPD_TEST_POSTGRES"), "a PostgreSQL URL: each seed runs in a schema of its own there too")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var trace io.Writer
	if *verbose {
		trace = stdout
	}
	r, err := simulation.NewRunner(ctx, *pg, *steps, trace)
	if err != nil {
		return err
	}
	defer r.Close()
	r.FullMix, r.Bursts = !*swarm, *bursts
	replayFlags, note := "", ""
	if !*swarm {
		replayFlags = " -swarm=false"
	}
	if *bursts {
		replayFlags += " -bursts"
		note = " (repeats the schedule, not necessarily each burst's interleaving)"
	}
	start, events, bad := time.Now(), 0, 0
	for i := range *seeds {
		if ctx.Err() != nil {
			break
		}
		s := *seed + uint64(i)
		res, err := r.Seed(ctx, s)
		for _, r := range res {
			events += r.Events
			if r.Violation != "" {
				bad++
				fmt.Fprintf(stdout, "seed %d (%s): VIOLATION at step %d: %s\n  replay%s: go run ./cmd/topupd-sim -seed %d -steps %d%s -v\n",
					s, r.Store, r.Steps, r.Violation, note, s, *steps, replayFlags)
			}
		}
		if err != nil {
			return fmt.Errorf("seed %d: %w", s, err)
		}
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "%d seeds, %d violations, %d events in %v (%.0f events/s)\n", *seeds, bad, events, el.Round(time.Millisecond), float64(events)/el.Seconds())
	if bad > 0 {
		return fmt.Errorf("%d seeds broke an invariant", bad)
	}
	return nil
}
