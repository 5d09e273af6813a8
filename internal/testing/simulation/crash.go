package simulation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// errDead is what a crashed node's store and suppliers answer: a process
// that has stopped reaches nothing.
var errDead = errors.New("simulation: the node has crashed")

// crashStore is a node's view of the store: the real store, behind a hook
// the scheduler can stop the node at, before a call reaches the database
// or after its commit but before its answer is seen. Once stopped, every
// call fails with errDead and changes nothing.
type crashStore struct {
	topupd.Store
	n *node
}

// atCall runs one store call of the node, letting the scheduler crash it
// before or after the call, or go on between its parts (betweenTx).
func atCall[T any](ctx context.Context, s *crashStore, c storeCall, call func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	w, name := s.n.w, c.name
	if s.n.dead {
		return zero, errDead
	}
	h, _ := ctx.Value(hangUpKey{}).(*hangUp)
	if h != nil && h.due(false) {
		w.logf("  the client hangs up before %s", name)
	}
	if w.crashHere() {
		w.crash(s.n, "before "+name)
		return zero, errDead
	}
	if w.pauseHere() {
		// The node stalls (a long GC pause, a frozen VM) past its leases
		// while the others work, then makes the call on what it knew.
		w.logf("  PAUSE %s before %s", s.n.owner, name)
		w.meanwhile(s.n)
		if s.n.dead {
			return zero, errDead
		}
	}
	ctx, done := s.betweenTx(ctx, c)
	disarm := w.armDB(name)
	v, err := call(ctx)
	if disarm() && c.fell != nil {
		*c.fell = true
	}
	done()
	if h != nil && h.due(true) {
		w.logf("  the client hangs up after %s (err=%v)", name, err != nil)
	}
	if w.crashHere() {
		w.crash(s.n, fmt.Sprintf("after %s (err=%v)", name, err != nil))
		return zero, errDead
	}
	return v, err
}

// hangUp is a client that hangs up during its request: its request's
// context ends before or after the request's n-th store call, as net/http
// ends it when the connection closes, while the node goes on.
type hangUp struct {
	n, seen int
	after   bool
	fired   bool
	cancel  context.CancelFunc
}

type hangUpKey struct{}

// withHangUp returns a request context that ends before (or after) its
// n-th store call.
func withHangUp(ctx context.Context, n int, after bool) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	return context.WithValue(ctx, hangUpKey{}, &hangUp{n: n, after: after, cancel: cancel})
}

// due is asked before (after false) and after each store call of the
// request; at the chosen side of the n-th it ends the request's context
// and reports true.
func (h *hangUp) due(after bool) bool {
	if h.fired {
		return false
	}
	if !after {
		h.seen++
	}
	if h.seen != h.n || after != h.after {
		return false
	}
	h.fired = true
	h.cancel()
	return true
}

// hungUp reports whether ctx is a request whose client has hung up.
func hungUp(ctx context.Context) bool {
	_, ok := ctx.Value(hangUpKey{}).(*hangUp)
	return ok && ctx.Err() != nil
}

// ClaimDue is the store's, at a point the node may crash.
func (s *crashStore) ClaimDue(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]topupd.Order, error) {
	return atCall(ctx, s, storeCall{name: "ClaimDue"}, func(ctx context.Context) ([]topupd.Order, error) {
		return s.Store.ClaimDue(ctx, owner, now, leaseUntil, limit)
	})
}

// NextDue is the store's, at a point the node may crash.
func (s *crashStore) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	var ok bool
	t, err := atCall(ctx, s, storeCall{name: "NextDue"}, func(ctx context.Context) (time.Time, error) {
		t, k, err := s.Store.NextDue(ctx, now)
		ok = k
		return t, err
	})
	return t, ok, err
}

// MarkSubmitting is the store's, at a point the node may crash.
func (s *crashStore) MarkSubmitting(ctx context.Context, seq int64, owner string) error {
	_, err := atCall(ctx, s, storeCall{name: "MarkSubmitting"}, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.Store.MarkSubmitting(ctx, seq, owner)
	})
	return err
}

// Settle is the store's, at a point the node may crash.
func (s *crashStore) Settle(ctx context.Context, ch *topupd.Change, seq int64, st topupd.Settlement) (topupd.Order, error) {
	return atCall(ctx, s, storeCall{name: "Settle"}, func(ctx context.Context) (topupd.Order, error) { return s.Store.Settle(ctx, ch, seq, st) })
}

// ReleaseLeases is the store's, at a point the node may crash.
func (s *crashStore) ReleaseLeases(ctx context.Context, owner string) error {
	_, err := atCall(ctx, s, storeCall{name: "ReleaseLeases"}, func(ctx context.Context) (struct{}, error) { return struct{}{}, s.Store.ReleaseLeases(ctx, owner) })
	return err
}

// Order is the store's, at a point the node may crash.
func (s *crashStore) Order(ctx context.Context, accountID, id string) (topupd.Order, error) {
	return atCall(ctx, s, storeCall{name: "Order"}, func(ctx context.Context) (topupd.Order, error) { return s.Store.Order(ctx, accountID, id) })
}

// RetryOrder is the store's, at a point the node may crash.
func (s *crashStore) RetryOrder(ctx context.Context, ch *topupd.Change, seq int64, now, deadline time.Time) (topupd.Order, error) {
	return atCall(ctx, s, storeCall{name: "RetryOrder"}, func(ctx context.Context) (topupd.Order, error) {
		return s.Store.RetryOrder(ctx, ch, seq, now, deadline)
	})
}

// SupplierAttempts is the store's, at a point the node may crash.
func (s *crashStore) SupplierAttempts(ctx context.Context, seq int64) ([]topupd.SupplierAttempt, error) {
	return atCall(ctx, s, storeCall{name: "SupplierAttempts"}, func(ctx context.Context) ([]topupd.SupplierAttempt, error) { return s.Store.SupplierAttempts(ctx, seq) })
}

// MoveSupplier is the store's, at a point the node may crash.
func (s *crashStore) MoveSupplier(ctx context.Context, seq int64, m topupd.SupplierMove) (topupd.Order, error) {
	return atCall(ctx, s, storeCall{name: "MoveSupplier"}, func(ctx context.Context) (topupd.Order, error) { return s.Store.MoveSupplier(ctx, seq, m) })
}

// placed is PlaceOrder's answer.
type placed struct {
	o      topupd.Order
	replay bool
}

// PlaceOrder is the store's, at a point the node may crash.
func (s *crashStore) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	if w := s.n.w; !s.n.dead && w.faults && w.depth == 0 && w.rng.IntN(100) < w.mix.duplicate {
		w.duplicate(ctx, s.n, p.Request.TrxID)
	}
	// What the store holds just before the order (after any stall, and
	// again after the world went on between the call's parts), for the
	// refusals' invariants: read on the request's context, not the
	// call's, whose statements are the call's own.
	rs, _ := ctx.Value(requestKey{}).(*requestState)
	readBefore := func() error {
		if rs == nil {
			return nil
		}
		b, err := s.n.w.storeBefore(ctx, p)
		rs.before = b
		return err
	}
	c := storeCall{name: "PlaceOrder", account: p.AccountID, again: readBefore, fell: new(bool)}
	r, err := atCall(ctx, s, c, func(ctx context.Context) (placed, error) {
		if err := readBefore(); err != nil {
			return placed{}, err
		}
		o, replay, err := s.Store.PlaceOrder(ctx, p)
		return placed{o, replay}, err
	})
	if rs != nil && err != nil && *c.fell {
		rs.dbFault = true
	}
	return r.o, r.replay, err
}

// nodeProvider is a provider as one node reaches it: a crashed node's
// calls reach no supplier.
type nodeProvider struct {
	n    *node
	next topupd.Provider
}

// Submit reaches the supplier unless the node has crashed.
func (p nodeProvider) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	if p.n.dead {
		return topupd.Outcome{}, errDead
	}
	defer p.calls()()
	return p.next.Submit(ctx, o)
}

// Status reaches the supplier unless the node has crashed.
func (p nodeProvider) Status(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	if p.n.dead {
		return topupd.Outcome{}, errDead
	}
	defer p.calls()()
	return p.next.Status(ctx, o)
}

// calls marks the node as the one calling a supplier, until the returned
// func runs: a supplier that answers late lets another node work meanwhile.
func (p nodeProvider) calls() func() {
	w := p.n.w
	was := w.calling
	w.calling = p.n
	return func() { w.calling = was }
}

// sleeper is a node's engine's wait in memory for a pending answer: the
// world's clock moves on by d, unless the node crashes first, or stalls
// past its lease while another node works (meanwhile) and then goes on.
func (w *World) sleeper(n *node) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error {
		switch {
		case n.dead:
			return errDead
		case w.crashHere():
			w.crash(n, "waiting out a pending answer")
			return errDead
		case w.pauseHere():
			w.logf("  PAUSE %s waiting out a pending answer", n.owner)
			w.meanwhile(n)
			if n.dead {
				return errDead
			}
			return nil
		}
		w.logf("  %s waits %v for a pending answer", n.owner, d)
		w.clk.Advance(d)
		return nil
	}
}
