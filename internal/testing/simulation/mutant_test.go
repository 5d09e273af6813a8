package simulation

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// mutantSeeds bounds the seeds a mutant must be found within, unless
// TOPUPD_MUTANT_SEEDS says otherwise.
const mutantSeeds = 20

// TestMutantFound runs under a mutant, a deliberate bug that
// internal/testing/mutants compiles into the real code with go test
// -overlay and names in TOPUPD_MUTANT: some seed within mutantSeeds must
// break an invariant, and the test logs which. Without a mutant it skips.
func TestMutantFound(t *testing.T) {
	name := os.Getenv("TOPUPD_MUTANT")
	if name == "" {
		t.Skip("no mutant compiled in: go run ./internal/testing/mutants runs this test under each")
	}
	seeds := uint64(mutantSeeds)
	if s := os.Getenv("TOPUPD_MUTANT_SEEDS"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			t.Fatalf("TOPUPD_MUTANT_SEEDS=%q: want a count of seeds", s)
		}
		seeds = n
	}
	r := newRunner(t, DefaultSteps)
	for seed := uint64(1); seed <= seeds; seed++ {
		res, err := r.Seed(context.Background(), seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if v := res[0].Violation; v != "" {
			t.Logf("mutant %s found by seed %d: %s", name, seed, v)
			return
		}
	}
	t.Fatalf("mutant %s: no seed of 1 to %d broke an invariant", name, seeds)
}
