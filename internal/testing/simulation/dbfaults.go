package simulation

import (
	"math/rand/v2"

	"github.com/topupd/topupd/internal/testing/dbfault"
)

// dbFaults is the faults at the SQL driver (internal/testing/dbfault): the
// injector in front of the store's connections, and the source the faults
// are drawn from, of its own (same seed), so that drawing them changes no
// other draw of the seed's history.
type dbFaults struct {
	in  *dbfault.Injector
	rng *rand.Rand
	// calls names the armed store calls, innermost last, for the trace.
	calls []string
	// fell counts the faults that fell, by kind.
	fell map[dbfault.Kind]int
}

// newDBFaults makes the injector of a run on store.
func (w *World) newDBFaults(store dbfault.Store) *dbFaults {
	d := &dbFaults{rng: rand.New(rand.NewPCG(w.cfg.Seed, 0x64626674)), fell: map[dbfault.Kind]int{}}
	d.in = dbfault.New(store, func(f dbfault.Fired) {
		d.fell[f.Kind]++
		w.logf("  DB FAULT in %s: %s", d.calls[len(d.calls)-1], f)
	})
	return d
}

// armDB draws the fault of one store call named name (most draw none)
// from the world's source of driver faults, and arms it; the func it
// returns ends the call and reports whether a fault fell in it.
func (w *World) armDB(name string) func() bool { return w.armDBFrom(w.dbf.rng, name) }

// armDBFrom is armDB drawing from rng: the webhook node draws from its
// own source (hooks.rng), so that its rounds change no other draw.
func (w *World) armDBFrom(rng *rand.Rand, name string) func() bool {
	d := w.dbf
	var f dbfault.Fault
	if w.faults && rng.IntN(1000) < w.mix.dbFault {
		f = draw(rng, w.mix.dbKinds)
	}
	d.calls = append(d.calls, name)
	c := d.in.Arm(f)
	return func() bool {
		fell := len(c.Done()) > 0
		d.calls = d.calls[:len(d.calls)-1]
		return fell
	}
}

// draw is one fault: its kind, one of kinds, and where in the call it
// falls: most often in the call's first write transaction (most calls
// have one), at its begin, one of its first statements, or its commit.
func draw(rng *rand.Rand, kinds []dbfault.Kind) dbfault.Fault {
	f := dbfault.Fault{Kind: kinds[rng.IntN(len(kinds))], Tx: 1, Deadlock: rng.IntN(2) == 0}
	if rng.IntN(5) == 0 {
		f.Tx = 2
	}
	switch r := rng.IntN(4); {
	case r == 0:
		f.At = dbfault.AtBegin
	case r == 1:
		f.At = dbfault.AtCommit
	default:
		f.At, f.Stmt = dbfault.AtStatement, 1+rng.IntN(6)
	}
	return f
}
