package simulation

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// burstSups is the upstream suppliers as the nodes reach them during a
// burst: the same suppliers and the same truth (supplier.orders, which the
// invariants compare with the store), behind one lock, without faults and
// without the world's source of draws (goroutines draw nothing from it).
// A submit applies the order (completed, or pending one time in two),
// answers the order already held, or is refused as the supplier stands
// (down, or out of our balance). It notes two submits of one order in
// flight at once: only the order's lease holder may submit it, so two at
// once mean two nodes held it.
type burstSups struct {
	w  *World
	mu sync.Mutex
	// inflight names the node submitting each order now.
	inflight map[string]string
	// holders are the nodes holding orders' leases (burstStore).
	holders map[string]holder
	// clashes are the orders submitted, or held, by two nodes at once.
	clashes []clash
	codes   int
}

// newBurstSups wraps the world's suppliers for one burst.
func newBurstSups(w *World) *burstSups {
	return &burstSups{w: w, inflight: map[string]string{}, holders: map[string]holder{}}
}

// burstProvider is the upstream provider as one node reaches it in a burst.
type burstProvider struct {
	b     *burstSups
	owner string
}

// Submit hands the order to the supplier it names.
func (p burstProvider) Submit(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	b := p.b
	b.mu.Lock()
	if other, ok := b.inflight[o.ID]; ok {
		b.clashes = append(b.clashes, clash{o.Seq, fmt.Sprintf("(%s) was submitted to %s by %s and %s at once", o.TrxID, o.Upstream, other, p.owner)})
	} else {
		b.inflight[o.ID] = p.owner
		defer func() { b.mu.Lock(); delete(b.inflight, o.ID); b.mu.Unlock() }()
	}
	b.mu.Unlock()
	runtime.Gosched() // a submit takes a while: let a second one overlap it
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.w.sups[o.Upstream]
	switch {
	case !ok:
		return topupd.Outcome{}, fmt.Errorf("no upstream %q", o.Upstream)
	case s.down:
		return topupd.Outcome{}, fmt.Errorf("%s: connection refused", s.name)
	}
	if so := s.orders[o.ID]; so != nil && so.state != 0 {
		return so.outcome(so.state), nil
	}
	if s.broke {
		return topupd.Outcome{}, fmt.Errorf("%s: insufficient balance: %w: %w: %w", s.name, topupd.ErrSupplierRefused, topupd.ErrNeedsOperator, topupd.ErrSupplierDry)
	}
	s.refs++
	so := &supOrder{state: topupd.OutcomePending, ref: fmt.Sprintf("%s-%d", s.name, s.refs)}
	if s.refs%2 == 0 {
		so.state = topupd.OutcomeCompleted
		if o.TakesCodes() && (o.Kind == topupd.KindGamekey || o.Kind == topupd.KindGiftcard) {
			for range max(o.Quantity, 1) {
				b.codes++
				so.codes = append(so.codes, fmt.Sprintf("%s-BURST-%d-%d", strings.ToUpper(s.name), b.w.step, b.codes))
			}
		}
	}
	s.orders[o.ID] = so
	so.told = so.state
	return so.outcome(so.state), nil
}

// Status answers the truth: a pending order stays pending through a burst.
func (p burstProvider) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	b := p.b
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.w.sups[o.Upstream]
	switch {
	case !ok:
		return topupd.Outcome{}, fmt.Errorf("no upstream %q", o.Upstream)
	case s.down:
		return topupd.Outcome{}, fmt.Errorf("%s: connection refused", s.name)
	}
	so := s.orders[o.ID]
	if so == nil || so.state == 0 {
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	}
	so.told = so.state
	return so.outcome(so.state), nil
}

// burstStore is the store as a node reaches it in a burst, noting which
// node holds each order's lease: an order placed (leased to its placer)
// or claimed is held by that node until it begins to settle it. A claim
// of an order that another node holds, answered before that node began
// its settlement, was made while the other held the lease (the clock does
// not move in a burst, so no lease runs out): two nodes worked on the
// order at once. A claim after the holder began to settle is not judged:
// its settlement may have committed first (and a node whose clock is
// ahead may then find the order due again at once).
type burstStore struct {
	topupd.Store
	b     *burstSups
	owner string
}

// PlaceOrder places the order, leased to the node.
func (s burstStore) PlaceOrder(ctx context.Context, p topupd.PlaceOrder) (topupd.Order, bool, error) {
	o, replay, err := s.Store.PlaceOrder(ctx, p)
	if err == nil && !replay && o.Status == topupd.StatusProcessing {
		s.b.hold(o, s.owner)
	}
	return o, replay, err
}

// ClaimDue claims due orders, leased to the node.
func (s burstStore) ClaimDue(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]topupd.Order, error) {
	orders, err := s.Store.ClaimDue(ctx, owner, now, leaseUntil, limit)
	for _, o := range orders {
		s.b.hold(o, s.owner)
	}
	return orders, err
}

// Settle settles an order: the node lets go of its lease as it begins.
func (s burstStore) Settle(ctx context.Context, ch *topupd.Change, seq int64, st topupd.Settlement) (topupd.Order, error) {
	s.b.mu.Lock()
	for id, h := range s.b.holders {
		if h.seq == seq && h.owner == s.owner {
			delete(s.b.holders, id)
		}
	}
	s.b.mu.Unlock()
	return s.Store.Settle(ctx, ch, seq, st)
}

// clash is an order two nodes worked on at once, and how.
type clash struct {
	seq  int64
	what string
}

// holder is the node holding an order's lease in a burst.
type holder struct {
	owner string
	seq   int64
}

// hold notes that owner holds o's lease, unless another node does.
func (b *burstSups) hold(o topupd.Order, owner string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if h, ok := b.holders[o.ID]; ok && h.owner != owner {
		b.clashes = append(b.clashes, clash{o.Seq, fmt.Sprintf("(%s) was claimed by %s while %s held its lease", o.TrxID, owner, h.owner)})
	}
	b.holders[o.ID] = holder{owner, o.Seq}
}
