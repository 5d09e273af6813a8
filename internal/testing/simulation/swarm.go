package simulation

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/topupd/topupd/internal/testing/dbfault"
)

// mix is one seed's mix of faults: which kinds are on, and how often each
// falls (swarm testing: Groce, Zhang, Eide, Chen and Regehr, "Swarm
// testing", ISSTA 2012). A seed with every kind on at a fixed rate tests
// each kind alongside all the others; a bug that needs a long quiet
// stretch, or many faults of one kind, is found by the seeds that leave
// the others out. Each seed draws its mix from a PCG of its own, so the
// mix, like everything else, is the seed's; the trace's first lines say
// it. Rates are per mille of the points they may fall at, or percent
// where the name says so.
type mix struct {
	// crash and stall are per mille of a node's store calls (and of its
	// waits for a pending answer) at which it stops, or stalls past its
	// leases.
	crash, stall int
	// opCrash and hookCrash are the percent of the operator's and of the
	// webhook node's writes that the node serving them stops before, and
	// as many after.
	opCrash, hookCrash int
	// Between a store call's parts (between.go): betweenStall is the
	// percent of first writes before which the node stalls; interleave
	// the percent of points where other orders run first.
	betweenStall, interleave int
	// dbFault is the per mille of store calls meeting a fault at the SQL
	// driver, of one of dbKinds.
	dbFault int
	dbKinds []dbfault.Kind
	// Suppliers, in percent: of the submits, refused (half of them late),
	// timing out before applying, applied with the answer lost, applied
	// with the answer late; of the status lookups, stale or lost; of the
	// codes delivered, one already held in stock. outages: suppliers go
	// down and run out of our balance there.
	refuse, timeout, answerLost, answerLate int
	stale, statusLost                       int
	usedCode                                int
	outages                                 bool
	// Clients, in percent of the requests: hung up mid-request (hangUp,
	// per mille), hung up before reading the answer, sent again while the
	// first copy is in flight.
	hangUp, hungUp, duplicate int
	// clockSteps: nodes' clocks are stepped as NTP steps them.
	clockSteps bool
	// Webhook receivers, in percent of deliveries: down for minutes,
	// timing out, answering 503.
	hookDown, hookTimeout, hook503 int
	// burst is the per mille of steps that are concurrent bursts
	// (burst.go), when the run has them (Config.Bursts).
	burst int
}

// fullMix is every kind of fault on, at its base rate: the mix of every
// seed before swarm testing (Config.FullMix).
var fullMix = mix{crash: 12, stall: 8, opCrash: 5, hookCrash: 2, betweenStall: 10, interleave: 50,
	dbFault: 30, dbKinds: []dbfault.Kind{dbfault.Waited, dbfault.Busy, dbfault.Lost, dbfault.AnswerLost},
	refuse: 12, timeout: 6, answerLost: 8, answerLate: 6, stale: 10, statusLost: 6, usedCode: 17, outages: true,
	hangUp: 83, hungUp: 10, duplicate: 4, clockSteps: true, hookDown: 4, hookTimeout: 6, hook503: 8, burst: 30}

// drawMix draws a seed's mix: each kind of fault is on with a chance of
// two in three, at a rate between half and three times its base rate
// (fullMix), within the bounds its draws leave room for. Swarm testing's
// usual chance is one in two; at two in three a seed still leaves out
// about seven kinds of the twenty-one, and each mutant
// (internal/testing/mutants) is still found within a few seeds: at one in
// two, lease was first found by seed 17 and most mutants by fewer seeds
// of 1-40 than with every kind on.
func drawMix(seed uint64) mix {
	g := mixDraw{rand.New(rand.NewPCG(seed, 0x6d6978))}
	f := fullMix
	m := mix{crash: g.rate(f.crash, 50), stall: g.rate(f.stall, 40), opCrash: g.rate(f.opCrash, 15), hookCrash: g.rate(f.hookCrash, 10),
		betweenStall: g.rate(f.betweenStall, 30), interleave: g.rate(f.interleave, 60), dbFault: g.rate(f.dbFault, 100)}
	for _, k := range f.dbKinds {
		if g.on() {
			m.dbKinds = append(m.dbKinds, k)
		}
	}
	if len(m.dbKinds) == 0 {
		m.dbFault = 0
	}
	m.refuse, m.timeout, m.answerLost, m.answerLate = g.rate(f.refuse, 36), g.rate(f.timeout, 18), g.rate(f.answerLost, 24), g.rate(f.answerLate, 18)
	m.stale, m.statusLost, m.usedCode, m.outages = g.rate(f.stale, 30), g.rate(f.statusLost, 18), g.rate(f.usedCode, 40), g.on()
	m.hangUp, m.hungUp, m.duplicate = g.rate(f.hangUp, 250), g.rate(f.hungUp, 30), g.rate(f.duplicate, 12)
	m.clockSteps = g.on()
	m.hookDown, m.hookTimeout, m.hook503 = g.rate(f.hookDown, 12), g.rate(f.hookTimeout, 18), g.rate(f.hook503, 24)
	// Drawn last, so that the draws before it are as they were before
	// bursts; read only in a run with bursts, where it is always on.
	m.burst = min(90, f.burst/2+g.rng.IntN(f.burst*5/2+1))
	return m
}

// mixDraw draws a mix.
type mixDraw struct{ rng *rand.Rand }

// on is a kind of fault on, two times in three.
func (g mixDraw) on() bool { return g.rng.IntN(3) > 0 }

// rate is a kind's rate: off one time in three, else between half and
// three times base, at most most.
func (g mixDraw) rate(base, most int) int {
	if !g.on() {
		return 0
	}
	return min(most, max(1, base/2+g.rng.IntN(base*5/2+1)))
}

// lines describes the mix for the trace's first lines.
func (m mix) lines() []string {
	db := "off"
	if m.dbFault > 0 {
		var kinds []string
		for _, k := range m.dbKinds {
			kinds = append(kinds, k.String())
		}
		db = permille(m.dbFault) + " of calls (" + strings.Join(kinds, "; ") + ")"
	}
	return []string{
		fmt.Sprintf("mix: node crashes %s of store calls, stalls %s; the operator's node crashes %s, the webhook node %s",
			permille(m.crash), permille(m.stall), percent(m.opCrash), percent(m.hookCrash)),
		fmt.Sprintf("mix: between a call's parts stalls %s, other orders %s; SQL driver faults %s",
			percent(m.betweenStall), percent(m.interleave), db),
		fmt.Sprintf("mix: submits refused %s, timed out %s, answers lost %s, late %s; lookups stale %s, lost %s; used codes %s; outages %s",
			percent(m.refuse), percent(m.timeout), percent(m.answerLost), percent(m.answerLate), percent(m.stale), percent(m.statusLost),
			percent(m.usedCode), onOff(m.outages)),
		fmt.Sprintf("mix: clients hang up mid-request %s, before the answer %s, send again in flight %s; clocks stepped %s; receivers down %s, time out %s, 503 %s",
			permille(m.hangUp), percent(m.hungUp), percent(m.duplicate), onOff(m.clockSteps), percent(m.hookDown), percent(m.hookTimeout), percent(m.hook503)),
	}
}

func permille(n int) string {
	if n == 0 {
		return "off"
	}
	return fmt.Sprintf("%.1f%%", float64(n)/10)
}

func percent(n int) string {
	if n == 0 {
		return "off"
	}
	return fmt.Sprintf("%d%%", n)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
