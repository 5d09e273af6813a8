package fulfil

import (
	"context"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// Failover: an order of a pack that lists suppliers carries the list as it
// was at placement (topupd.SupplierAttempt), and moves from its current
// supplier to a later one only when the current one surely holds no order:
// it was passed over before any call (unhealthy), it refused a first submit,
// or its status lookup found none. After an unknown outcome (a timeout, a
// 5xx, a network error once a submit may have left) the order stays where
// it is and waits for that supplier's answer. See docs/failover.md.

// healthy reports whether this node would send an order to a supplier now.
func (e *Engine) healthy(provider, upstream string) bool {
	return e.health.healthy(provider, upstream, e.cfg.Now(), e.cfg.HealthHold)
}

// passOver moves an order that no supplier has seen from its unhealthy
// current supplier to the first later one that is healthy; with none, the
// order stays (moved false).
func (e *Engine) passOver(ctx context.Context, o topupd.Order) (topupd.Order, bool, error) {
	list, cur, err := e.attempts(ctx, &o)
	if err != nil || cur < 0 {
		return o, false, err
	}
	for i := cur + 1; i < len(list); i++ {
		if list[i].Outcome == topupd.AttemptWaiting && e.healthy(list[i].Provider, list[i].Upstream) {
			return e.move(ctx, o, list, cur, i, topupd.AttemptSkipped, "unhealthy: "+e.lastError(&list[cur]))
		}
	}
	return o, false, nil
}

// moveOn moves an order whose current supplier surely holds no order to
// the first later supplier that is healthy, or else to the next one (the
// current one has refused; another may not). With no later supplier, or
// no list, the order stays (moved false).
func (e *Engine) moveOn(ctx context.Context, o topupd.Order, outcome topupd.AttemptOutcome, why string) (topupd.Order, bool, error) {
	list, cur, err := e.attempts(ctx, &o)
	if err != nil || cur < 0 {
		return o, false, err
	}
	to := -1
	for i := cur + 1; i < len(list); i++ {
		if list[i].Outcome != topupd.AttemptWaiting {
			continue
		}
		if to < 0 {
			to = i
		}
		if e.healthy(list[i].Provider, list[i].Upstream) {
			to = i
			break
		}
	}
	if to < 0 {
		return o, false, nil
	}
	return e.move(ctx, o, list, cur, to, outcome, why)
}

// attempts reads an order's supplier list and the index of its current
// supplier, -1 when it has none (its pack listed no suppliers). An order
// whose current supplier is no longer the one o names has moved on since
// this worker read it: EConflict, and the worker leaves it alone (it must
// neither move it again nor submit to the supplier it left).
func (e *Engine) attempts(ctx context.Context, o *topupd.Order) ([]topupd.SupplierAttempt, int, error) {
	ctx, cancel := storeContext(ctx)
	defer cancel()
	list, err := e.cfg.Store.SupplierAttempts(ctx, o.Seq)
	if err != nil {
		return nil, -1, err
	}
	for i := range list {
		if list[i].Outcome == topupd.AttemptTrying {
			if a := &list[i]; a.Provider != o.Provider || a.Upstream != o.Upstream || a.UpstreamPID != o.UpstreamPID {
				return nil, -1, topupd.Errorf(topupd.EConflict, "order %s has moved on to %s", o.ID, supplierName(&a.Supplier))
			}
			return list, i, nil
		}
	}
	if len(list) > 0 {
		// A listed order without a current supplier is final.
		return nil, -1, topupd.Errorf(topupd.EOrderFinal, "order %s is final", o.ID)
	}
	return list, -1, nil
}

// move makes list[to] the order's supplier, leaving list[cur] as outcome
// and any between as skipped, and renews the lease for the calls to come.
func (e *Engine) move(ctx context.Context, o topupd.Order, list []topupd.SupplierAttempt, cur, to int,
	outcome topupd.AttemptOutcome, why string) (topupd.Order, bool, error) {
	now := e.cfg.Now()
	from, next := &list[cur], &list[to]
	e.cfg.Logger.InfoContext(ctx, "fulfil: the order moves to its next supplier", "order", o.ID,
		"from", supplierName(&from.Supplier), "to", supplierName(&next.Supplier), "outcome", string(outcome), "why", why)
	sctx, cancel := storeContext(ctx)
	defer cancel()
	moved, err := e.cfg.Store.MoveSupplier(sctx, o.Seq, topupd.SupplierMove{LeaseOwner: e.cfg.Owner, LeaseUntil: e.LeaseUntil(now),
		From: from.Attempt, Outcome: outcome, Why: why, To: next.Attempt, SkipWhy: "unhealthy on this node", Now: now})
	if err != nil {
		return o, false, err
	}
	return moved, true, nil
}

// lastError is the newest error of a supplier as this node saw it.
func (e *Engine) lastError(a *topupd.SupplierAttempt) string {
	for _, h := range e.health.snapshot() {
		if h.Provider == a.Provider && h.Upstream == a.Upstream {
			return h.LastErrorMessage
		}
	}
	return ""
}

// stopped ends a round that could not move the order: one settled or
// taken over elsewhere meanwhile is left alone, and answered as it stands;
// anything else is retried.
func (e *Engine) stopped(ctx context.Context, o topupd.Order, err error) topupd.Order {
	switch topupd.CodeOf(err) {
	case topupd.EOrderFinal, topupd.EConflict:
		e.cfg.Logger.InfoContext(ctx, "fulfil: order moved or settled elsewhere", "order", o.ID, "err", err)
		rctx, cancel := storeContext(ctx)
		defer cancel()
		if cur, err := e.cfg.Store.Order(rctx, "", o.ID); err == nil {
			return cur
		}
		return o
	}
	return e.retry(ctx, o, fmt.Errorf("moving to the next supplier: %w", err))
}

// supplierName names a supplier in the log: its provider, and its
// upstream and PID there.
func supplierName(s *topupd.Supplier) string {
	if s.Upstream == "" {
		return s.Provider
	}
	return s.Provider + " " + s.Upstream + " " + s.UpstreamPID
}

// storeContext bounds a store call of the engine's, which the end of the
// request whose log context it keeps never cuts short.
func storeContext(logCtx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(logCtx), 10*time.Second)
}
