package fulfil

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// A supplier that answers an order's first submit with "pending" often
// completes it within seconds. Recording that answer and claiming the
// order again when it falls due costs the order a commit of its own, and
// its placing request, which is still waiting, an answer of "processing".
// So the worker of an order just placed keeps such an answer in memory,
// when it falls due while the placing request still waits and early enough
// in the order's lease for the next call to end inside it, and asks the
// supplier again itself. A final answer is then settled with the pending
// one's history line (Settlement.Waited); anything else records the
// pending answer as if it had not waited.
//
// Two kinds of order never wait so:
//   - One fulfilled by the sim rules (sim, and the sandbox): simDelayMs is
//     how long such a top-up stays "processing" (operator-api.md), so that
//     an integrator sees the answer its polling must handle.
//   - One whose pack lists suppliers. What the wait leaves unrecorded is
//     the supplier's acceptance, which a node that takes the order over
//     after a crash reads: without it, a status lookup answering "not
//     found" moves an order on to its next supplier, and a wrong "not
//     found" would buy it twice. For any other order, a "not found" only
//     submits it again, under its own id, to the same supplier, as after a
//     crash during its first call. See docs/failover.md.

// holdUntil is the latest a pending first answer of o may fall due and be
// waited out in memory: waitUntil (the placing request's own wait), and no
// later than nine tenths into the part of o's lease (o.CreatedAt plus
// Lease, as it was placed) that the call timeout leaves, so that the next
// call and the settlement end inside the lease, however long the call.
func (e *Engine) holdUntil(o topupd.Order, waitUntil time.Time) time.Time {
	last := o.CreatedAt.Add((e.cfg.Lease - e.cfg.CallTimeout) * 9 / 10)
	if last.Before(waitUntil) {
		return last
	}
	return waitUntil
}

// waitOut records a pending answer to an order's first submit, or, when it
// falls due by hold and the order may wait (see above), waits it out in
// memory and asks the supplier again.
func (e *Engine) waitOut(ctx context.Context, o topupd.Order, prov topupd.Provider, first topupd.Outcome, hold time.Time) topupd.Order {
	pending, err := e.outcomeSettlement(o, first)
	if err != nil {
		return e.retry(ctx, o, err)
	}
	waitedAt := e.cfg.Now()
	if hold.IsZero() || pending.RetryAt.After(hold) || topupd.FollowsSimRules(o.Provider) || e.listed(ctx, &o) {
		return e.settle(ctx, o, pending)
	}
	if err := e.sleep(ctx, pending.RetryAt.Sub(waitedAt)); err != nil {
		return e.settle(ctx, o, pending)
	}
	// Ask as a worker would that had recorded the answer.
	asked := o
	asked.Supplier = topupd.SupplierAccepted
	if first.SupplierRef != "" {
		asked.SupplierRef = first.SupplierRef
	}
	out, err := e.status(ctx, &asked, prov)
	if settles := out.State == topupd.OutcomeCompleted || out.State == topupd.OutcomeFailed || out.State == topupd.OutcomePending; err != nil || !settles {
		// An error, or "not found" from a supplier that took the order: the
		// first answer, the supplier's acceptance, is recorded, and the
		// supplier asked again after the backoff.
		first.RetryAt = time.Time{}
		return e.settleOutcome(ctx, o, first)
	}
	if out.SupplierRef == "" {
		out.SupplierRef = first.SupplierRef
	}
	st, err := e.outcomeSettlement(o, out)
	if err != nil {
		return e.retry(ctx, o, err)
	}
	if st.Status.Final() {
		st.Waited, st.WaitedAt = pending.Note, waitedAt
	}
	// A final answer settles with the pending one's history line; one
	// still pending is recorded as the newest answer, due when it says.
	return e.settle(ctx, o, st)
}

// listed reports whether the order's pack lists suppliers; when that
// cannot be read, it answers true, the side that waits out nothing.
func (e *Engine) listed(ctx context.Context, o *topupd.Order) bool {
	sctx, cancel := storeContext(ctx)
	defer cancel()
	list, err := e.cfg.Store.SupplierAttempts(sctx, o.Seq)
	return err != nil || len(list) > 0
}

// sleep waits d on the engine's clock: Config.Sleep, or a timer that the
// engine's stop ends early.
func (e *Engine) sleep(ctx context.Context, d time.Duration) error {
	if e.cfg.Sleep != nil {
		return e.cfg.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-e.base.Done():
		return e.base.Err()
	}
}
