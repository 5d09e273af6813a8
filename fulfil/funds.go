package fulfil

import (
	"context"
	"errors"

	"github.com/topupd/topupd"
)

// Routing by our money at each supplier (back-office.md, section 1): an
// order no supplier has seen is not sent to an upstream whose known
// balance cannot cover it; it goes to the next supplier of its pack, and
// with none it waits for funds (parked) until a read shows the money or
// its deadline passes. An INSUFFICIENT BALANCE answer makes the upstream
// dry and moves the order on the same way: it never fails the order.

// fundsRoute sends an order that no supplier has seen away from a current
// supplier that cannot cover it: to the first later supplier that can
// (moved), or, with none, to wait for funds (parked, the order as it
// stands then). With the money there, or no list to go on with and a
// balance unknown, it stays.
func (e *Engine) fundsRoute(ctx context.Context, o topupd.Order) (out topupd.Order, moved, parked bool, err error) {
	if o.Provider != topupd.ProviderUpstream {
		return o, false, false, nil
	}
	funds, cur, err := e.supplierFunds(ctx, &o)
	if err != nil || cur < 0 || topupd.Covers(funds[cur].Balance, funds[cur].Cost) {
		return o, false, false, err
	}
	for i := cur + 1; i < len(funds); i++ {
		if funds[i].Outcome == topupd.AttemptWaiting && topupd.Covers(funds[i].Balance, funds[i].Cost) {
			sctx, cancel := storeContext(ctx)
			defer cancel()
			now := e.cfg.Now()
			e.cfg.Logger.InfoContext(ctx, "fulfil: the order passes over a supplier without the funds to cover it", "order", o.ID,
				"from", funds[cur].Attempt, "to", funds[i].Attempt)
			next, err := e.cfg.Store.MoveSupplier(sctx, o.Seq, topupd.SupplierMove{LeaseOwner: e.cfg.Owner, LeaseUntil: e.LeaseUntil(now),
				From: funds[cur].Attempt, Outcome: topupd.AttemptSkipped, Why: topupd.WhyBalance, To: funds[i].Attempt,
				SkipWhy: topupd.WhyBalance, Now: now})
			return next, err == nil, false, err
		}
	}
	parkedOrder, err := e.park(ctx, o, funds[cur].Attempt, topupd.AttemptSkipped, topupd.WhyBalance)
	return parkedOrder, false, err == nil, err
}

// supplierFunds reads the money side of an order's suppliers, and the
// index of its current one (-1 for none).
func (e *Engine) supplierFunds(ctx context.Context, o *topupd.Order) ([]topupd.AttemptFunds, int, error) {
	sctx, cancel := storeContext(ctx)
	defer cancel()
	funds, err := e.cfg.Store.SupplierFunds(sctx, o.Seq)
	if err != nil {
		return nil, -1, err
	}
	for i := range funds {
		if funds[i].Attempt == 0 || funds[i].Outcome == topupd.AttemptTrying {
			return funds, i, nil
		}
	}
	return funds, -1, nil
}

// park leaves an order waiting for supplier funds until its deadline: its
// attempt from (0 without a list) ends as outcome with why.
func (e *Engine) park(ctx context.Context, o topupd.Order, from int, outcome topupd.AttemptOutcome, why string) (topupd.Order, error) {
	now := e.cfg.Now()
	e.cfg.Logger.WarnContext(ctx, "fulfil: the order waits for supplier funds", "order", o.ID, "provider", o.Provider,
		"upstream", o.Upstream, "deadline", o.DeadlineAt)
	sctx, cancel := storeContext(ctx)
	defer cancel()
	return e.cfg.Store.ParkOrder(sctx, o.Seq, topupd.Park{LeaseOwner: e.cfg.Owner, From: from, Outcome: outcome, Why: why,
		Until: o.DeadlineAt, Now: now})
}

// parkRefused parks an order that its last supplier refused, when a
// supplier of it was left for the money (or this refusal was for it):
// the order waits for funds instead of failing. parked is false when
// no supplier was.
func (e *Engine) parkRefused(ctx context.Context, o topupd.Order, why string, dry bool) (topupd.Order, bool, error) {
	funds, cur, err := e.supplierFunds(ctx, &o)
	if err != nil || cur < 0 {
		return o, false, err
	}
	waits := dry
	for _, f := range funds {
		waits = waits || ((f.Outcome == topupd.AttemptSkipped || f.Outcome == topupd.AttemptRefused) && topupd.FundsWhy(f.Why))
	}
	if !waits {
		return o, false, nil
	}
	parked, err := e.park(ctx, o, funds[cur].Attempt, topupd.AttemptRefused, why)
	return parked, err == nil, err
}

// resume sends a parked order, due again (a read woke it, or its list is
// looked at again), to the first supplier it left for the money whose
// balance now covers it; with none, it goes on waiting until its deadline
// (resumed false).
func (e *Engine) resume(ctx context.Context, o topupd.Order) (topupd.Order, bool, error) {
	funds, _, err := e.supplierFunds(ctx, &o)
	if err != nil {
		return o, false, err
	}
	sctx, cancel := storeContext(ctx)
	defer cancel()
	now := e.cfg.Now()
	for _, f := range funds {
		left := f.Attempt == 0 || ((f.Outcome == topupd.AttemptSkipped || f.Outcome == topupd.AttemptRefused) && topupd.FundsWhy(f.Why))
		if left && topupd.Covers(f.Balance, f.Cost) {
			e.cfg.Logger.InfoContext(ctx, "fulfil: a supplier has the funds for a waiting order", "order", o.ID, "attempt", f.Attempt)
			next, err := e.cfg.Store.ResumeOrder(sctx, o.Seq, topupd.Resume{LeaseOwner: e.cfg.Owner, LeaseUntil: e.LeaseUntil(now), To: f.Attempt, Now: now})
			return next, err == nil, err
		}
	}
	parked, err := e.cfg.Store.ParkOrder(sctx, o.Seq, topupd.Park{LeaseOwner: e.cfg.Owner, Until: o.DeadlineAt, Now: now})
	return parked, false, err
}

// dry records an upstream's INSUFFICIENT BALANCE answer: its known balance
// is 0 until the next read. A failure to record it is logged; the order
// moves on all the same.
func (e *Engine) dry(ctx context.Context, o *topupd.Order, err error) bool {
	if !errors.Is(err, topupd.ErrSupplierDry) || o.Upstream == "" {
		return false
	}
	sctx, cancel := storeContext(ctx)
	defer cancel()
	if rerr := e.cfg.Store.RecordSupplierDry(sctx, o.Upstream, e.cfg.Now()); rerr != nil {
		e.cfg.Logger.WarnContext(ctx, "fulfil: recording a dry supplier", "upstream", o.Upstream, "err", rerr)
	}
	return true
}
