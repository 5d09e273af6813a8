package simulation

import (
	"context"
	"fmt"
)

// duplicate has a client send the request with trxid again while its
// first copy is in flight on node first, past the in-flight hint and about
// to reach the store: the copy goes to another live node (or, one time in
// three, the same one) and runs to its answer before the first goes on.
// On the same node the in-flight hint is held, so the store decides there
// too (it finds no order yet: the copy places it); on every node, whichever
// places first, the other must answer the same order as a replay.
func (w *World) duplicate(ctx context.Context, first *node, trxid string) {
	rq := w.model.requests[trxid]
	if rq == nil {
		return
	}
	n := first
	if w.rng.IntN(3) > 0 {
		n = w.nodes[w.rng.IntN(len(w.nodes))]
	}
	if n.dead {
		return
	}
	w.depth++
	defer func() { w.depth-- }()
	w.logf("  meanwhile the client sends %s again, to %s:", trxid, n.owner)
	if err := w.send(ctx, n, rq); err != nil {
		w.fail("the duplicate of %s: %v", trxid, fmt.Sprint(err))
	}
}
