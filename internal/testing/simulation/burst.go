package simulation

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/logctx"
	"github.com/topupd/topupd/provider/manual"
	"github.com/topupd/topupd/provider/sim"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/service"
)

// Concurrent bursts (Config.Bursts; docs/simulation.md "Concurrent
// bursts"): a step in which several requests, engine rounds and operator
// requests run at once, in goroutines a barrier releases together, on the
// real store. Everything else in a run happens in one goroutine, as the
// scheduler decides; a burst's interleaving is the Go scheduler's and the
// databases', so a run with bursts replays its schedule but not
// necessarily what each burst's goroutines did. The burst's goroutines
// touch none of the world's state: they reach the store directly (no
// crashes, stalls or driver faults), the suppliers through burstSups, and
// report what they were answered; the world's goroutine checks and records
// it once they have all returned.
type bursts struct {
	// rng draws whether a step is a burst, and each burst's plan: a
	// source of its own, so that a run without bursts draws as before.
	rng *rand.Rand
	// svc is the operator's service in bursts, over the store directly.
	svc *service.Service
	n   int
}

// newBursts makes the bursts of a run.
func (w *World) newBursts() *bursts {
	svc, err := service.New(service.Deps{Store: w.store, Now: w.clk.Now, Deadline: deadline, Logger: quiet})
	if err != nil {
		panic(err) // a configuration error of the simulator itself
	}
	return &bursts{rng: rand.New(rand.NewPCG(w.cfg.Seed, 0x6275727374)), svc: svc}
}

// burstDue draws whether this step is a burst.
func (w *World) burstDue() bool {
	return w.bursts != nil && w.faults && w.bursts.rng.IntN(1000) < w.mix.burst
}

// burstNode is one node as a burst runs it: an engine of its own under the
// node's owner name, over the store directly, and the node's reseller API
// over it.
type burstNode struct {
	owner string
	eng   *fulfil.Engine
	api   http.Handler
}

// errNoWait ends an engine's wait for a pending answer in a burst: the
// clock does not move while one runs.
var errNoWait = errors.New("simulation: no waiting in a burst")

// burstNodeOf builds node n's burst twin.
func (w *World) burstNodeOf(n *node, sups *burstSups) *burstNode {
	st := burstStore{w.store, sups, n.owner}
	provs := map[string]topupd.Provider{
		topupd.ProviderManual:   manual.New(),
		topupd.ProviderSim:      sim.New(st, n.now),
		topupd.ProviderSandbox:  sim.New(st, n.now),
		topupd.ProviderUpstream: burstProvider{sups, n.owner},
	}
	eng, err := fulfil.New(fulfil.Config{Store: st, Providers: provs, Now: n.now, Logger: quiet, Owner: n.owner,
		Lease: lease, CallTimeout: callLimit, BackoffBase: time.Second, BackoffMax: time.Minute,
		Sleep: func(context.Context, time.Duration) error { return errNoWait }})
	if err != nil {
		panic(err) // a configuration error of the simulator itself
	}
	windows := []ratelimit.Window{{Limit: topupd.DefaultRatePerSecond, Period: time.Second}, {Limit: topupd.DefaultRatePerMinute, Period: time.Minute}}
	limiter := ratelimit.NewMemory(windows, n.now)
	svc, err := service.New(service.Deps{Store: st, Now: n.now, Deadline: deadline, Fulfiller: burstFulfiller{eng, n.now}, Players: eng, Logger: quiet})
	if err != nil {
		panic(err)
	}
	api, err := httpapi.NewReseller(httpapi.Deps{Store: st, Service: svc, Limiter: limiter, Orders: ratelimit.NewMemoryOrders(limiter, n.now),
		Logger: quiet, Now: n.now})
	if err != nil {
		panic(err)
	}
	return &burstNode{owner: n.owner, eng: eng, api: api}
}

// burstFulfiller makes the first supplier call of an order a burst's
// request placed, in the request's goroutine, as fulfiller does.
type burstFulfiller struct {
	eng *fulfil.Engine
	now func() time.Time
}

// Owner is the node's owner name.
func (f burstFulfiller) Owner() string { return f.eng.Owner() }

// LeaseUntil is when a lease the node takes now runs out.
func (f burstFulfiller) LeaseUntil(now time.Time) time.Time { return f.eng.LeaseUntil(now) }

// Attempt works on the order at once, detached from the request.
func (f burstFulfiller) Attempt(ctx context.Context, o topupd.Order, wait time.Duration) topupd.Order {
	return f.eng.ProcessPlaced(logctx.Detach(ctx), o, f.now().Add(wait))
}

// Answered records nothing.
func (f burstFulfiller) Answered(context.Context, topupd.Order) {}

// burst runs one burst step: nodes that had stopped start first, then the
// burst the scheduler draws runs, and the world checks what came of it.
func (w *World) burst(ctx context.Context) error {
	for _, n := range w.nodes {
		if n.dead {
			w.start(ctx, n)
		}
	}
	sups := newBurstSups(w)
	var bn []*burstNode
	for _, n := range w.nodes {
		bn = append(bn, w.burstNodeOf(n, sups))
	}
	w.bursts.n++
	var err error
	switch w.bursts.rng.IntN(5) {
	case 0:
		err = w.burstDuplicates(ctx, bn)
	case 1:
		err = w.burstAccount(ctx, bn)
	case 2:
		err = w.burstEngines(ctx, bn)
	case 3:
		err = w.burstSettle(ctx, bn)
	default:
		err = w.burstOperator(ctx, bn)
	}
	for _, c := range sups.clashes {
		w.fail("in a burst, #%d %s", w.ord(c.seq), c.what)
	}
	return err
}

// together runs fns at once: each in a goroutine of its own, all released
// by one barrier once every one has started, and returns when all have.
func together(fns ...func()) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(len(fns))
	done.Add(len(fns))
	for _, f := range fns {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			f()
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// burstAnswer is what a burst's request was answered.
type burstAnswer struct {
	apiAnswer
	err error
}

// placeAll sends each request to its node, all at once, and returns the
// answers in the requests' order.
func (w *World) placeAll(ctx context.Context, rqs []*request, to []*burstNode, also ...func()) []burstAnswer {
	as := make([]burstAnswer, len(rqs))
	var fns []func()
	for i := range rqs {
		fns = append(fns, func() {
			a, err := w.postTo(ctx, to[i].api, rqs[i])
			as[i] = burstAnswer{a, err}
		})
	}
	together(append(fns, also...)...)
	return as
}

// pickNodes draws n nodes of bn, repeats allowed.
func (w *World) pickNodes(bn []*burstNode, n int) []*burstNode {
	var to []*burstNode
	for range n {
		to = append(to, bn[w.bursts.rng.IntN(len(bn))])
	}
	return to
}

// owners names the nodes for the trace.
func owners(bn []*burstNode) string {
	var s []string
	for _, n := range bn {
		s = append(s, n.owner)
	}
	return fmt.Sprint(s)
}

// tally counts outcomes for the trace, in a fixed order whatever the
// order they came in.
func tally(outcomes []string) string {
	count := map[string]int{}
	for _, o := range outcomes {
		count[o]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var s []string
	for _, k := range keys {
		s = append(s, fmt.Sprintf("%s×%d", k, count[k]))
	}
	return fmt.Sprint(s)
}
