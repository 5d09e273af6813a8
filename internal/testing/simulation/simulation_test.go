package simulation

import (
	"context"
	"os"
	"slices"
	"testing"
)

// ciSeeds are the seeds every run of the tests replays on SQLite (and the
// first pgSeeds of them on PostgreSQL); ciSteps their length. Under -race
// too: .ci/run leaves SQLite's transpiled C uninstrumented, and the 10 seeds
// take about 15 s on both stores. A longer run is `go run ./cmd/topupd-sim -seeds 100000`.
const (
	ciSeeds = 10
	pgSeeds = 10
	ciSteps = 150
)

// TestSeeds runs a fixed set of seeds on SQLite and, when
// TOPUPD_TEST_POSTGRES is set, on PostgreSQL: no invariant may break, and
// a seed run on both has one history, line for line.
func TestSeeds(t *testing.T) {
	seeds, steps := uint64(ciSeeds), ciSteps
	r := newRunner(t, steps)
	for seed := uint64(1); seed <= seeds; seed++ {
		r.Postgres = os.Getenv("TOPUPD_TEST_POSTGRES")
		if seed > pgSeeds {
			r.Postgres = ""
		}
		res, err := r.Seed(context.Background(), seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, r := range res {
			if r.Violation != "" {
				t.Errorf("seed %d on %s: %s (replay: go run ./cmd/topupd-sim -seed %d -steps %d -v)", seed, r.Store, r.Violation, seed, steps)
			}
			if r.Orders == 0 {
				t.Errorf("seed %d on %s placed no order", seed, r.Store)
			}
		}
		if len(res) == 2 {
			if i := firstDiff(res[0].Trace, res[1].Trace); i >= 0 {
				t.Errorf("seed %d ran one history on %s and another on %s; first difference at line %d:\n%s\n%s",
					seed, res[0].Store, res[1].Store, i, at(res[0].Trace, i), at(res[1].Trace, i))
			}
		}
	}
}

// TestReplay runs one seed twice: the same seed gives the same history,
// line for line, and another seed another one.
func TestReplay(t *testing.T) {
	steps := 100
	r := newRunner(t, steps)
	trace := func(seed uint64) []string {
		res, err := r.Seed(context.Background(), seed)
		if err != nil {
			t.Fatal(err)
		}
		return res[0].Trace
	}
	a, b := trace(11), trace(11)
	if i := firstDiff(a, b); i >= 0 {
		t.Fatalf("seed 11 ran two histories; first difference at line %d:\n%s\n%s", i, at(a, i), at(b, i))
	}
	if slices.Equal(a, trace(12)) {
		t.Fatal("seeds 11 and 12 ran the same history")
	}
}

// newRunner makes a runner of SQLite seeds for one test.
func newRunner(t *testing.T, steps int) *Runner {
	t.Helper()
	r, err := NewRunner(context.Background(), "", steps, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// firstDiff is the first line where two traces differ, or -1.
func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if at(a, i) != at(b, i) {
			return i
		}
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(end)"
}

// regressionSeeds are seeds that once broke an invariant of the real code,
// each with what it found; they must hold now.
var regressionSeeds = []struct {
	seed uint64
	bug  string
}{
	// A node claimed three orders and stalled (PAUSE) while working on the
	// first, past its lease; another node claimed the third, found no
	// order at its supplier, was refused there, and cancelled and refunded
	// it. The first node then went on with its stale claim, found no order
	// either, and submitted it: the supplier delivered an order refunded.
	// Fixed in fulfil: a submit again after a lookup found no order is
	// marked in the store first, which only the lease holder can do.
	{17, "a stalled worker submitted an order another node had refunded"},
}

// TestRegressionSeeds replays the regression seeds on SQLite.
func TestRegressionSeeds(t *testing.T) {
	r := newRunner(t, DefaultSteps)
	for _, s := range regressionSeeds {
		res, err := r.Seed(context.Background(), s.seed)
		if err != nil {
			t.Fatalf("seed %d: %v", s.seed, err)
		}
		if v := res[0].Violation; v != "" {
			t.Errorf("seed %d (once: %s): %s", s.seed, s.bug, v)
		}
	}
}
