package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/topupd/topupd"
)

// errPreview ends a preview's transaction, rolling it back.
var errPreview = errors.New("preview")

// ResolveMismatch resolves one mismatch of a reconciliation by a fix, in
// one transaction with its action log entry: the reconciliation's row
// lock orders fixes of its mismatches, the mismatch's row says whether it
// is resolved, and the order's row lock orders the fix with every other
// settlement of the order. A refund is one ledger entry (migration 00038
// lets a completed order have it only while a mismatch of it saying the
// supplier did not deliver is open, and only once); a cost is fixed on the
// order, and the sales roll-up follows.
func (s *Store) ResolveMismatch(ctx context.Context, ch *topupd.Change, recID string, mid int, f topupd.Fix) (topupd.Mismatch, topupd.FixEffect, error) {
	ctx = withChange(ctx, ch)
	var m topupd.Mismatch
	var eff topupd.FixEffect
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		m, eff, err = s.resolve(ctx, tx, recID, mid, &f)
		return err
	})
	if errors.Is(err, errPreview) {
		return m, eff, nil
	}
	if err != nil {
		return m, eff, fmt.Errorf("store.ResolveMismatch %s/%d: %w", recID, mid, err)
	}
	return m, eff, nil
}

// resolve is ResolveMismatch's transaction; a preview ends it with
// errPreview once the effect is known.
func (s *Store) resolve(ctx context.Context, tx *sql.Tx, recID string, mid int, f *topupd.Fix) (topupd.Mismatch, topupd.FixEffect, error) {
	var eff topupd.FixEffect
	r, err := scanRecon(tx.QueryRowContext(ctx, `SELECT `+reconColumns+` FROM reconciliations WHERE id = $1`+s.d.LockRow, recID))
	if isNoRows(err) {
		return topupd.Mismatch{}, eff, topupd.Errorf(topupd.ENotFound, "reconciliation %s", recID)
	} else if err != nil {
		return topupd.Mismatch{}, eff, err
	}
	m, err := scanMismatch(tx.QueryRowContext(ctx, `SELECT `+mismatchColumns+` FROM reconciliation_mismatches WHERE rec_seq = $1 AND id = $2`+s.d.LockRow, r.Seq, mid))
	switch {
	case isNoRows(err):
		return m, eff, topupd.Errorf(topupd.ENotFound, "mismatch %d of reconciliation %s", mid, recID)
	case err != nil:
		return m, eff, err
	case r.State == topupd.ReconClosed:
		return m, eff, topupd.Errorf(topupd.EReconciliationClosed, "reconciliation %s is closed", recID)
	case m.State == topupd.MismatchResolved:
		return m, eff, topupd.Errorf(topupd.EMismatchResolved, "mismatch %d of %s was resolved by %s (%s)", mid, recID, m.Resolution.Operator, m.Resolution.Action)
	}
	var o *topupd.Order
	var target *topupd.FixTarget
	if m.OrderID != "" {
		if o, target, err = s.fixTarget(ctx, tx, m.OrderID); err != nil {
			return m, eff, err
		}
	}
	if err := topupd.FixApplies(f.Action, &m, r.Supplier, target); err != nil {
		return m, eff, err
	}
	res := topupd.Resolution{Action: f.Action, Note: f.Note, Operator: changeOf(ctx).Operator, At: fromMS(ms(f.At))}
	switch f.Action {
	case topupd.FixCompleteOrder:
		cost := *m.Theirs
		eff.OrderStatus, eff.Cost, res.Cost = topupd.StatusCompleted, &cost, &cost
	case topupd.FixRecordCost:
		cost := *m.Theirs
		eff.Cost, res.Cost = &cost, &cost
	case topupd.FixRefundReseller:
		bal, _, err := s.balanceOf(ctx, tx, o.AccountID)
		if err != nil {
			return m, eff, err
		}
		after := bal + o.Amount
		eff.OrderStatus, eff.Refund, eff.BalanceAfter = topupd.StatusCompleted, &o.Amount, &after
	}
	if f.Preview {
		return m, eff, errPreview
	}
	if err := s.applyFix(ctx, tx, &m, o, f, &res, &eff); err != nil {
		return m, eff, err
	}
	// Only an open mismatch is resolved: with its row lock held this
	// cannot miss, and if it ever did the fix rolls back whole.
	n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE reconciliation_mismatches SET state = 'resolved', action = $3, note = $4, resolved_by = $5,
		resolved_at = $6, entry_id = $7, fix_cost = $8 WHERE rec_seq = $1 AND id = $2 AND state = 'open'`, r.Seq, m.ID, res.Action, res.Note, res.Operator,
		ms(res.At), entryOrNull(res.EntryID), moneyOrNull(res.Cost)))
	if err != nil {
		return m, eff, err
	}
	if n != 1 {
		return m, eff, topupd.Errorf(topupd.EMismatchResolved, "mismatch %d of %s was resolved meanwhile", mid, recID)
	}
	if f.Action == topupd.FixRecordCost {
		// After the mismatch names the cost: orders_final_cost lets a
		// completed order's cost change only to one a resolution fixed.
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET cost = $2 WHERE seq = $1`, o.Seq, int64(*res.Cost)); err != nil {
			return m, eff, err
		}
		if err := s.rollUp(ctx, tx, o, costFixedDelta(o, *res.Cost)); err != nil {
			return m, eff, err
		}
	}
	account := ""
	if o != nil {
		account = o.AccountID
	}
	after := map[string]any{"state": topupd.MismatchResolved, "action": res.Action, "note": res.Note, "reference": m.Reference}
	if res.EntryID != 0 {
		after["entryId"] = strconv.FormatInt(res.EntryID, 10)
	}
	if res.Cost != nil {
		after["costUsd"] = *res.Cost
	}
	noteChange(ctx, account, map[string]any{"state": topupd.MismatchOpen}, after)
	m.State, m.Resolution = topupd.MismatchResolved, &res
	return m, eff, nil
}

// applyFix makes the fix's change to our order before the mismatch is
// marked resolved: a complete-order settles it as its supplier's
// completion at their charge, a refund-reseller appends the refund (the
// ledger lets it in only while the mismatch is open).
func (s *Store) applyFix(ctx context.Context, tx *sql.Tx, m *topupd.Mismatch, o *topupd.Order, f *topupd.Fix, res *topupd.Resolution, eff *topupd.FixEffect) error {
	switch f.Action {
	case topupd.FixCompleteOrder:
		var before topupd.Order
		settled, err := s.settle(ctx, tx, o.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Codes: f.Codes, SupplierRef: f.SupplierRef,
			Supplier: topupd.SupplierAccepted, Now: f.At, Cost: res.Cost}, &before)
		if err != nil {
			return err
		}
		noteChange(ctx, o.AccountID, before.LogFields(), settled.LogFields())
	case topupd.FixRefundReseller:
		if _, err := s.lockAccount(ctx, tx, o.AccountID); err != nil {
			return err
		}
		e, err := s.appendEntry(ctx, tx, topupd.LedgerEntry{AccountID: o.AccountID, Kind: topupd.EntryRefund, Amount: o.Amount, CreatedAt: f.At}, o.Seq)
		if err != nil {
			return err
		}
		res.EntryID, eff.BalanceAfter = e.ID, &e.BalanceAfter
		return s.rollUp(ctx, tx, o, salesDelta{refunds: o.Amount})
	}
	return nil
}

// fixTarget locks a mismatch's order and reads it as a fix needs it.
func (s *Store) fixTarget(ctx context.Context, tx *sql.Tx, orderID string) (*topupd.Order, *topupd.FixTarget, error) {
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT seq FROM orders WHERE id = $1`, orderID).Scan(&seq); isNoRows(err) {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	o, err := scanOrder(withExtra(tx.QueryRowContext(ctx, s.q.lockOrder, seq), new(string)))
	if err != nil {
		return nil, nil, err
	}
	t := topupd.FixTarget{ID: o.ID, Status: o.Status, Provider: o.Provider, Upstream: o.Upstream, Amount: o.Amount}
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM ledger WHERE order_seq = $1 AND kind = 'refund')`, seq).Scan(&t.Refunded); err != nil {
		return nil, nil, err
	}
	return &o, &t, nil
}

// entryOrNull is a ledger entry's id, NULL for none.
func entryOrNull(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
