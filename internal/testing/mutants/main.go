// Command mutants proves the simulator finds bugs: for each mutant (a
// deliberate bug, mutants.go) it compiles the bug into the real code with
// go test -overlay, never touching the working tree, and runs the
// simulator's TestMutantFound, which must find it within its seeds. It
// exits 1 when a mutant does not apply, does not build, or is not found.
// See docs/simulation.md "Mutants".
//
//	go run ./internal/testing/mutants                    # every mutant
//	go run ./internal/testing/mutants -only lease -v     # one, with go test's output
//	go run ./internal/testing/mutants -list
//
// -print-overlay writes one mutant's overlay and prints its path, for any
// go command to build that mutant, as go run -overlay=$(…) ./cmd/topupd-sim.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

// The environment through which the command tells TestMutantFound
// (internal/testing/simulation) which mutant it runs under, and how many
// seeds it has to find it.
const (
	envMutant = "TOPUPD_MUTANT"
	envSeeds  = "TOPUPD_MUTANT_SEEDS"
)

// run runs the mutants the flags select; any not found is an error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("only", "", "run only the mutant of this name")
	seeds := fs.Int("seeds", 20, "the seeds (1 to this) within which the simulator must find each mutant")
	list := fs.Bool("list", false, "list the mutants and exit")
	verbose := fs.Bool("v", false, "print go test's output")
	printOverlay := fs.Bool("print-overlay", false, "write the overlay of the -only mutant into a new temporary directory, print its path and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *list {
		for _, m := range mutants {
			fmt.Fprintf(stdout, "%-12s %s\n", m.Name, m.Bug)
		}
		return nil
	}
	if *seeds < 1 {
		return fmt.Errorf("-seeds %d: at least 1", *seeds)
	}
	root, err := moduleRoot(".")
	if err != nil {
		return err
	}
	var chosen []Mutant
	for _, m := range mutants {
		if *only == "" || m.Name == *only {
			chosen = append(chosen, m)
		}
	}
	if len(chosen) == 0 {
		return fmt.Errorf("no mutant named %q (-list lists them)", *only)
	}
	if *printOverlay {
		if *only == "" {
			return errors.New("-print-overlay needs -only")
		}
		path, err := keepOverlay(root, chosen[0])
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
		return nil
	}
	start, failed := time.Now(), 0
	for _, m := range chosen {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t0 := time.Now()
		res, out := runMutant(ctx, root, m, max(*seeds, m.Seeds))
		took := time.Since(t0).Round(100 * time.Millisecond)
		if res.err != nil {
			failed++
			fmt.Fprintf(stdout, "mutant %-12s FAILED (%v): %v\n", m.Name, took, res.err)
		} else {
			fmt.Fprintf(stdout, "mutant %-12s found by seed %d (%v): %s\n", m.Name, res.seed, took, res.violation)
		}
		if *verbose || (res.err != nil && len(out) > 0) {
			stdout.Write(out)
		}
	}
	fmt.Fprintf(stdout, "%d mutants, %d found, in %v\n", len(chosen), len(chosen)-failed, time.Since(start).Round(100*time.Millisecond))
	if failed > 0 {
		return fmt.Errorf("%d of %d mutants failed", failed, len(chosen))
	}
	return nil
}

// keepOverlay writes m's overlay into a new temporary directory, which it
// leaves, and returns the overlay's path.
func keepOverlay(root string, m Mutant) (string, error) {
	files, err := Apply(root, m)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "topupd-mutant-"+m.Name+"-")
	if err != nil {
		return "", err
	}
	return writeOverlay(dir, root, files)
}

// result is what running one mutant came to: the seed that found it and
// its violation, or why it was not found.
type result struct {
	seed      int
	violation string
	err       error
}

// foundLine is the line TestMutantFound logs when a seed finds its mutant.
var foundLine = regexp.MustCompile(`mutant (\S+) found by seed (\d+): (.*)`)

// runMutant applies m in an overlay and runs TestMutantFound under it. It
// returns go test's output too.
func runMutant(ctx context.Context, root string, m Mutant, seeds int) (result, []byte) {
	files, err := Apply(root, m)
	if err != nil {
		return result{err: fmt.Errorf("does not apply: %w", err)}, nil
	}
	dir, err := os.MkdirTemp("", "topupd-mutant-"+m.Name+"-")
	if err != nil {
		return result{err: err}, nil
	}
	defer os.RemoveAll(dir)
	overlay, err := writeOverlay(dir, root, files)
	if err != nil {
		return result{err: err}, nil
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-overlay="+overlay, "-run=^TestMutantFound$", "-v",
		"./internal/testing/simulation")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), envMutant+"="+m.Name, envSeeds+"="+strconv.Itoa(seeds))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if g := foundLine.FindSubmatch(out.Bytes()); g != nil && runErr == nil && string(g[1]) == m.Name {
		seed, _ := strconv.Atoi(string(g[2]))
		return result{seed: seed, violation: strings.TrimSpace(string(g[3]))}, out.Bytes()
	}
	var exit *exec.ExitError
	switch {
	case runErr == nil:
		err = errors.New("TestMutantFound passed without saying which seed found the mutant (did it run?)")
	case bytes.Contains(out.Bytes(), []byte("[build failed]")) || bytes.Contains(out.Bytes(), []byte("[setup failed]")):
		err = errors.New("does not build")
	case errors.As(runErr, &exit) && bytes.Contains(out.Bytes(), []byte("no seed of")):
		err = fmt.Errorf("NOT FOUND in seeds 1 to %d", seeds)
	default:
		err = fmt.Errorf("go test: %v", runErr)
	}
	return result{err: err}, out.Bytes()
}
