package simulation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/topupd/topupd"
)

// supplier is a simulated upstream server, with the reseller API's
// semantics: an order is known by our order's own id, so a repeated submit
// answers the order it already holds and never buys twice. It keeps its
// own truth of what it applied, which the invariants compare with the
// store's. Its faults are drawn from the world's seeded source.
type supplier struct {
	w    *World
	name string
	// orders is the supplier's truth, by our order id.
	orders map[string]*supOrder
	// down: every call fails before reaching it; broke: it refuses every
	// new order (our balance there is spent) until the operator tops up.
	down, broke bool
	refs        int
}

// supOrder is one order a supplier took, or refused.
type supOrder struct {
	state topupd.OutcomeState
	codes []string
	ref   string
	// told is the state the last status lookup answered: a stale lookup
	// answers it again.
	told topupd.OutcomeState
}

// holds reports whether the supplier has the order: working on it or delivered.
func (s *supplier) holds(id string) bool {
	so := s.orders[id]
	return so != nil && (so.state == topupd.OutcomePending || so.state == topupd.OutcomeCompleted)
}

// outcome is the supplier's answer about one of its orders.
func (so *supOrder) outcome(state topupd.OutcomeState) topupd.Outcome {
	out := topupd.Outcome{State: state, SupplierRef: so.ref}
	if state == topupd.OutcomeCompleted {
		out.Codes = slices.Clone(so.codes)
	}
	if state == topupd.OutcomeFailed {
		out.Message = "SUPPLIER FAILED"
	}
	return out
}

// errTimeout is a call whose answer never came: the caller cannot tell
// whether the supplier applied it.
var errTimeout = errors.New("simulated supplier: timeout")

// Submit hands an order to the supplier.
func (s *supplier) Submit(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	w := s.w
	if s.down {
		w.logf("  %s submit #%d: down", s.name, w.ord(o.Seq))
		return topupd.Outcome{}, fmt.Errorf("%s: connection refused", s.name)
	}
	if so := s.orders[o.ID]; so != nil && so.state != 0 {
		w.logf("  %s submit #%d: already held, %s", s.name, w.ord(o.Seq), so.state)
		return so.outcome(so.state), nil
	}
	if s.broke {
		w.logf("  %s submit #%d: out of our balance", s.name, w.ord(o.Seq))
		return topupd.Outcome{}, fmt.Errorf("%s: insufficient balance: %w: %w: %w", s.name, topupd.ErrSupplierRefused, topupd.ErrNeedsOperator, topupd.ErrSupplierDry)
	}
	m := &w.mix
	switch r := w.faultN(100); {
	case r < m.refuse:
		// Out of stock. One refusal in two comes late: the supplier tried
		// its own sources first, and the caller's lease ran out meanwhile.
		if w.faultN(2) == 0 {
			w.logf("  %s submit #%d: refused, answering late", s.name, w.ord(o.Seq))
			w.meanwhile(w.calling)
		} else {
			w.logf("  %s submit #%d: refused", s.name, w.ord(o.Seq))
		}
		return topupd.Outcome{State: topupd.OutcomeFailed, Message: "OUT OF STOCK"}, nil
	case r < m.refuse+m.timeout:
		w.logf("  %s submit #%d: timeout before applying", s.name, w.ord(o.Seq))
		return topupd.Outcome{}, errTimeout
	}
	s.refs++
	so := &supOrder{state: topupd.OutcomePending, ref: fmt.Sprintf("%s-%d", s.name, s.refs)}
	if w.rng.IntN(2) == 0 {
		s.complete(so, o)
	}
	s.orders[o.ID] = so
	so.told = so.state
	switch r := w.faultN(100); {
	case r < m.answerLost:
		w.logf("  %s submit #%d: applied %s, answer lost", s.name, w.ord(o.Seq), so.state)
		return topupd.Outcome{}, errTimeout
	case r < m.answerLost+m.answerLate:
		w.logf("  %s submit #%d: applied %s, answering late", s.name, w.ord(o.Seq), so.state)
		w.meanwhile(w.calling)
	default:
		w.logf("  %s submit #%d: applied %s", s.name, w.ord(o.Seq), so.state)
	}
	return so.outcome(so.state), nil
}

// complete delivers an order: codes for an order that takes them.
func (s *supplier) complete(so *supOrder, o *topupd.Order) {
	so.state = topupd.OutcomeCompleted
	if o.TakesCodes() && (o.Kind == topupd.KindGamekey || o.Kind == topupd.KindGiftcard) {
		n := max(o.Quantity, 1)
		for range n {
			so.codes = append(so.codes, s.w.supplierCode(s.name))
		}
	}
}

// Status says how an order stands, maybe stale, maybe after it moved on.
func (s *supplier) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	w := s.w
	if s.down {
		w.logf("  %s status #%d: down", s.name, w.ord(o.Seq))
		return topupd.Outcome{}, fmt.Errorf("%s: connection refused", s.name)
	}
	so := s.orders[o.ID]
	if so == nil || so.state == 0 {
		w.logf("  %s status #%d: not found", s.name, w.ord(o.Seq))
		return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
	}
	if so.state == topupd.OutcomePending {
		switch r := w.rng.IntN(10); {
		case r < 4 || !w.faults:
			s.complete(so, o)
		case r < 5:
			so.state = topupd.OutcomeFailed
		}
	}
	state := so.state
	switch r := w.faultN(100); {
	case r < w.mix.stale:
		state = so.told
		w.logf("  %s status #%d: stale %s (is %s)", s.name, w.ord(o.Seq), state, so.state)
	case r < w.mix.stale+w.mix.statusLost:
		w.logf("  %s status #%d: answer lost (%s)", s.name, w.ord(o.Seq), so.state)
		return topupd.Outcome{}, errTimeout
	default:
		w.logf("  %s status #%d: %s", s.name, w.ord(o.Seq), state)
	}
	so.told = state
	return so.outcome(state), nil
}

// upstreams routes the upstream provider's calls to the supplier an order
// names.
type upstreams map[string]*supplier

// Submit hands the order to the supplier it names.
func (u upstreams) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	s, ok := u[o.Upstream]
	if !ok {
		return topupd.Outcome{}, fmt.Errorf("no upstream %q", o.Upstream)
	}
	return s.Submit(ctx, o)
}

// Status asks the supplier the order names.
func (u upstreams) Status(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	s, ok := u[o.Upstream]
	if !ok {
		return topupd.Outcome{}, fmt.Errorf("no upstream %q", o.Upstream)
	}
	return s.Status(ctx, o)
}

// balanceRead records a read of our balance at a supplier, as a poll or
// an operator's check would: it wakes the orders waiting for funds.
func (w *World) balanceRead(ctx context.Context, s *supplier, bal topupd.Money) {
	if _, err := w.store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: s.name, Balance: bal, At: w.clk.Now()}); err != nil {
		w.fail("reading the balance at %s: %v", s.name, err)
		return
	}
	w.logf("supplier %s: balance read %v", s.name, bal)
}
