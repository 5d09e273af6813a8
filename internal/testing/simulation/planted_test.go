//go:build simbug_refundguard || simbug_failover || simbug_codeunique || simbug_chargeapart || simbug_lease

package simulation

import (
	"context"
	"testing"
)

// plantedSeeds bounds the seeds a planted bug must be found within.
const plantedSeeds = 20

// TestPlantedBugFound runs with one planted bug compiled into the real
// code (go test -tags simbug_refundguard, simbug_failover, simbug_codeunique,
// simbug_chargeapart or simbug_lease): some seed
// within plantedSeeds must break an invariant, and the test prints it.
func TestPlantedBugFound(t *testing.T) {
	r := newRunner(t, DefaultSteps)
	for seed := uint64(1); seed <= plantedSeeds; seed++ {
		res, err := r.Seed(context.Background(), seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if v := res[0].Violation; v != "" {
			t.Logf("seed %d finds the planted bug: %s", seed, v)
			return
		}
	}
	t.Fatalf("no seed of %d found the planted bug", plantedSeeds)
}
