package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/topupd/topupd"
)

// ClaimDue leases due processing orders to owner, the earliest due first
// (by seq among those due at once), and answers them by seq: the same
// orders in the same order on both databases (an UPDATE's RETURNING rows
// come in no order). Orders another transaction holds are passed over, so
// claimers on several nodes never wait for each other and never get the
// same order.
func (s *Store) ClaimDue(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]topupd.Order, error) {
	var out []topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		out, err = queryAll(ctx, tx, scanOrder, s.q.claimDue, owner, ms(leaseUntil), ms(now), limit)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store.ClaimDue: %w", err)
	}
	slices.SortFunc(out, func(a, b topupd.Order) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// NextDue returns the earliest next attempt of a processing order that no
// lease holds at now.
func (s *Store) NextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	var next int64
	err := s.read.QueryRowContext(ctx, s.q.nextDue, ms(now)).Scan(&next)
	if isNoRows(err) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store.NextDue: %w", err)
	}
	return fromMS(next), true, nil
}

// MarkSubmitting records that a submit is about to start, and the attempt
// in the order's history. The store has no clock and the interface passes
// no time, so the event is stamped with this node's time.Now: the engine's
// own times come from its Config.Now, which only tests move.
func (s *Store) MarkSubmitting(ctx context.Context, seq int64, owner string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var provider, upstream string
		err := tx.QueryRowContext(ctx, `UPDATE orders SET supplier = 'submitting'
			WHERE seq = $1 AND status = 'processing' AND lease_owner = $2 RETURNING provider, upstream`, seq, owner).Scan(&provider, &upstream)
		if isNoRows(err) {
			return topupd.Errorf(topupd.EConflict, "order %d is not leased to %s", seq, owner)
		} else if err != nil {
			return err
		}
		return addEvent(ctx, tx, seq, s.now(), topupd.EventSubmitting, submittingNote(provider, upstream))
	})
	if err != nil {
		return fmt.Errorf("store.MarkSubmitting %d: %w", seq, err)
	}
	return nil
}

// Settle completes, cancels (refunding at most once) or reschedules a
// processing order, holding the order's row lock: of settlements racing for
// one order the first wins and the others find it final.
func (s *Store) Settle(ctx context.Context, ch *topupd.Change, seq int64, st topupd.Settlement) (topupd.Order, error) {
	ctx = withChange(ctx, ch)
	var o topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		var before topupd.Order
		if o, err = s.settle(ctx, tx, seq, st, &before); err == nil {
			noteChange(ctx, o.AccountID, before.LogFields(), o.LogFields())
		}
		return err
	})
	if err != nil {
		return o, fmt.Errorf("store.Settle %d: %w", seq, err)
	}
	return o, nil
}

// settle is Settle's transaction; it sets *before to the order as it was.
// The domain decides what the settlement makes of the order
// (topupd.Order.Settled); settle writes it: the order's row, a completed
// order's codes and cost, a cancelled one's refund, then its bookkeeping
// (settledBooks).
func (s *Store) settle(ctx context.Context, tx *sql.Tx, seq int64, st topupd.Settlement, before *topupd.Order) (topupd.Order, error) {
	var owner string
	o, err := scanOrder(withExtra(tx.QueryRowContext(ctx, s.q.lockOrder, seq), &owner))
	if isNoRows(err) {
		return o, topupd.Fail(topupd.EOrderNotFound)
	} else if err != nil {
		return o, err
	}
	*before = o
	settled, err := o.Settled(&st, owner)
	if err != nil {
		return o, err
	}
	if settled.SupplierRef != o.SupplierRef {
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET supplier_ref = $2 WHERE seq = $1`, seq, settled.SupplierRef); err != nil {
			return o, err
		}
	}
	if err := s.acceptedCost(ctx, tx, &o, &st); err != nil {
		return o, err
	}
	// What the statements below store, as a lookup will read it back: the
	// answer is settled rather than read again inside the transaction
	// (storetest checks the two agree, field by field).
	switch settled.Status {
	case topupd.StatusCompleted:
		if err = s.deliver(ctx, tx, &o, st.Codes, st.Now); err != nil {
			return o, err
		}
		cost, cerr := s.completionCost(ctx, tx, &o)
		if cerr != nil {
			return o, cerr
		}
		if st.Cost != nil {
			cost = st.Cost
		}
		settled.Cost = cost
		_, err = tx.ExecContext(ctx, `UPDATE orders SET status = 'completed', finished_at = $2, supplier = $3, code_count = $4,
			next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, cost = $5 WHERE seq = $1`, seq, ms(st.Now), string(settled.Supplier), len(st.Codes), moneyOrNull(cost))
	case topupd.StatusCancelled:
		_, err = tx.ExecContext(ctx, `UPDATE orders SET status = 'cancelled', error = $2, refunded = $3, finished_at = $4, supplier = $5,
			next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL WHERE seq = $1`, seq, st.Error, boolInt(st.Refund), ms(st.Now), string(settled.Supplier))
		if err == nil && st.Refund {
			// The refund is appended to the account's chain under its lock
			// (order lock first, then account lock: PlaceOrder never waits
			// for an existing order, so the two cannot deadlock).
			if _, err = s.lockAccount(ctx, tx, o.AccountID); err == nil {
				_, err = s.appendEntry(ctx, tx, topupd.LedgerEntry{AccountID: o.AccountID, Kind: topupd.EntryRefund, Amount: o.Amount, CreatedAt: st.Now}, o.Seq)
			}
		}
	case topupd.StatusProcessing:
		_, err = tx.ExecContext(ctx, `UPDATE orders SET next_attempt_at = $2, supplier = $3, attempts = attempts + 1, alert = $4,
			lease_owner = NULL, lease_until = NULL WHERE seq = $1`, seq, msUp(st.RetryAt), string(settled.Supplier), st.Alert)
	}
	if err == nil {
		err = s.settledBooks(ctx, tx, &st, &settled)
	}
	if err != nil {
		return o, err
	}
	return settled, nil
}

// deliver stores the codes a supplier or an operator delivered for an
// order: a code held anywhere already, in stock or delivered, trips a
// unique index and is CODE_ALREADY_USED.
func (s *Store) deliver(ctx context.Context, tx *sql.Tx, o *topupd.Order, codes []string, now time.Time) error {
	for _, c := range codes {
		_, err := tx.ExecContext(ctx, `INSERT INTO codes (pid, fingerprint, code_fp, sealed, order_seq, added_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			o.PID, s.vault.Fingerprint(o.PID, c), s.vault.CodeFingerprint(c), s.vault.Seal(o.PID, c), o.Seq, ms(now))
		if err != nil {
			if s.d.IsUniqueViolation(err) {
				return topupd.Errorf(topupd.ECodeAlreadyUsed, "a code for order %s was delivered before or is held in stock", o.ID)
			}
			return err
		}
	}
	return nil
}

// settledBooks is the bookkeeping of a settlement: a final order's sales
// roll-up and supplier attempt, the order's history (a pending answer
// waited out, then the settlement's line), the stream's events, and a
// final order's durations roll-up, last.
func (s *Store) settledBooks(ctx context.Context, tx *sql.Tx, st *topupd.Settlement, settled *topupd.Order) error {
	final := settled.Status.Final()
	if final {
		if err := s.rollUp(ctx, tx, settled, settledDelta(settled)); err != nil {
			return err
		}
		if err := finishAttempt(ctx, tx, settled, st.Now); err != nil {
			return err
		}
		if st.Waited != "" {
			if err := addEvent(ctx, tx, settled.Seq, st.WaitedAt, topupd.EventRetry, st.Waited); err != nil {
				return err
			}
		}
	}
	kind, note := settledEvent(st, settled, settledBy(ctx, settled.Provider))
	if err := addEvent(ctx, tx, settled.Seq, st.Now, kind, note); err != nil {
		return err
	}
	if err := emitSettled(ctx, tx, settled, st.Now); err != nil {
		return err
	}
	if final {
		return s.rollUpDuration(ctx, tx, settled)
	}
	return nil
}

// ReleaseLeases lets go of every processing order the owner holds.
func (s *Store) ReleaseLeases(ctx context.Context, owner string) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE orders SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND status = 'processing'`, owner)
		return err
	})
	if err != nil {
		return fmt.Errorf("store.ReleaseLeases %s: %w", owner, err)
	}
	return nil
}

// RetryOrder makes a processing order due now and extends its deadline.
func (s *Store) RetryOrder(ctx context.Context, ch *topupd.Change, seq int64, now, deadline time.Time) (topupd.Order, error) {
	ctx = withChange(ctx, ch)
	var o topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if o, err = scanOrder(withExtra(tx.QueryRowContext(ctx, s.q.lockOrder, seq), new(string))); isNoRows(err) {
			return topupd.Fail(topupd.EOrderNotFound)
		} else if err != nil {
			return err
		}
		if o.Status.Final() {
			return topupd.Errorf(topupd.EOrderFinal, "order %s is already %s", o.ID, o.Status)
		}
		if _, err := tx.ExecContext(ctx, s.q.retryOrder, seq, ms(now), ms(deadline)); err != nil {
			return err
		}
		var by string
		if c := changeOf(ctx); c != nil && c.Operator != "" {
			by = "by " + c.Operator
		}
		if err := addEvent(ctx, tx, seq, now, topupd.EventRetried, by); err != nil {
			return err
		}
		before := o.LogFields()
		if o, err = s.orderBy(ctx, tx, s.q.orderBySeq, seq); err != nil {
			return err
		}
		noteChange(ctx, o.AccountID, before, o.LogFields())
		return emitOrder(ctx, tx, &o, now, &topupd.OrderRetriedData{OrderFacts: topupd.FactsOf(&o), By: by})
	})
	if err != nil {
		return o, fmt.Errorf("store.RetryOrder %d: %w", seq, err)
	}
	return o, nil
}

// completionCost is the cost fixed on an order as it completes: per unit,
// the current supplier's own cost when the order's supplier list gave it
// one, or else the pack's cost now; nil when neither was set (a pack's
// cost of 0 is none, and a pack since deleted has none).
func (s *Store) completionCost(ctx context.Context, tx *sql.Tx, o *topupd.Order) (*topupd.Money, error) {
	var unit sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT a.cost FROM order_attempts a WHERE a.order_seq = $2 AND a.outcome = 'trying'),
		(SELECT NULLIF(p.cost, 0) FROM packs p WHERE p.pid = $1))`, o.PID, o.Seq).Scan(&unit)
	if err != nil || !unit.Valid {
		return nil, err
	}
	cost := topupd.Money(unit.Int64) * topupd.Money(o.Quantity)
	return &cost, nil
}
