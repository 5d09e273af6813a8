package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// ClaimDue leases due processing orders to owner. Orders another
// transaction holds are passed over, so claimers on several nodes never wait
// for each other and never get the same order.
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
func (s *Store) Settle(ctx context.Context, seq int64, st topupd.Settlement) (topupd.Order, error) {
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
func (s *Store) settle(ctx context.Context, tx *sql.Tx, seq int64, st topupd.Settlement, before *topupd.Order) (topupd.Order, error) {
	var owner string
	o, err := scanOrder(withExtra(tx.QueryRowContext(ctx, s.q.lockOrder, seq), &owner))
	if isNoRows(err) {
		return o, topupd.Fail(topupd.EOrderNotFound)
	} else if err != nil {
		return o, err
	}
	*before = o
	if o.Status.Final() {
		return o, topupd.Errorf(topupd.EOrderFinal, "order %s is already %s", o.ID, o.Status)
	}
	if st.LeaseOwner != "" && owner != st.LeaseOwner {
		return o, topupd.Errorf(topupd.EConflict, "order %s is no longer leased to %s", o.ID, st.LeaseOwner)
	}
	if by := st.By; by != nil && (by.Provider != o.Provider || by.Upstream != o.Upstream || by.UpstreamPID != o.UpstreamPID) {
		return o, topupd.Errorf(topupd.EConflict, "order %s has moved from supplier %s %s to %s %s", o.ID, by.Provider, by.Upstream, o.Provider, o.Upstream)
	}
	supplier := st.Supplier
	if supplier == "" {
		supplier = o.Supplier
	}
	if st.SupplierRef != "" && st.SupplierRef != o.SupplierRef {
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET supplier_ref = $2 WHERE seq = $1`, seq, st.SupplierRef); err != nil {
			return o, err
		}
	}
	// What the statements below store, as a lookup will read it back: the
	// answer is built here rather than read again inside the transaction
	// (storetest checks the two agree, field by field).
	settled := o
	settled.Supplier = supplier
	if st.SupplierRef != "" {
		settled.SupplierRef = st.SupplierRef
	}
	switch st.Status {
	case topupd.StatusCompleted:
		if o.Sandbox && len(st.Codes) > 0 { // the schema would refuse them (00023_sandbox.sql)
			return o, topupd.SandboxCodesRefused(o.ID)
		}
		for _, c := range st.Codes {
			_, err := tx.ExecContext(ctx, `INSERT INTO codes (pid, fingerprint, code_fp, sealed, order_seq, added_at) VALUES ($1, $2, $3, $4, $5, $6)`,
				o.PID, s.vault.Fingerprint(o.PID, c), s.vault.CodeFingerprint(c), s.vault.Seal(o.PID, c), o.Seq, ms(st.Now))
			if err != nil {
				if s.d.IsUniqueViolation(err) {
					return o, topupd.Errorf(topupd.ECodeAlreadyUsed, "a code for order %s was delivered before or is held in stock", o.ID)
				}
				return o, err
			}
		}
		cost, cerr := s.completionCost(ctx, tx, &o)
		if cerr != nil {
			return o, cerr
		}
		_, err = tx.ExecContext(ctx, `UPDATE orders SET status = 'completed', finished_at = $2, supplier = $3, code_count = $4,
			next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, cost = $5 WHERE seq = $1`, seq, ms(st.Now), string(supplier), len(st.Codes), int64(cost))
		settled.Status, settled.FinishedAt, settled.Cost = topupd.StatusCompleted, fromMS(ms(st.Now)), &cost
		settled.Codes, settled.CodeCount = append([]string(nil), st.Codes...), len(st.Codes)
	case topupd.StatusCancelled:
		_, err = tx.ExecContext(ctx, `UPDATE orders SET status = 'cancelled', error = $2, refunded = $3, finished_at = $4, supplier = $5,
			next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL WHERE seq = $1`, seq, st.Error, boolInt(st.Refund), ms(st.Now), string(supplier))
		settled.Status, settled.Error, settled.Refunded, settled.FinishedAt = topupd.StatusCancelled, st.Error, st.Refund, fromMS(ms(st.Now))
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
			lease_owner = NULL, lease_until = NULL WHERE seq = $1`, seq, ms(st.RetryAt), string(supplier), st.Alert)
		settled.Attempts++
		settled.Alert = st.Alert
	default:
		return o, fmt.Errorf("settle: unknown status %q", st.Status)
	}
	if err == nil && settled.Status.Final() {
		err = s.rollUp(ctx, tx, &settled, settledDelta(&settled))
	}
	if err == nil && settled.Status.Final() {
		err = finishAttempt(ctx, tx, &settled, st.Now)
	}
	if err == nil && st.Waited != "" && settled.Status.Final() {
		err = addEvent(ctx, tx, seq, st.WaitedAt, topupd.EventRetry, st.Waited)
	}
	if err == nil {
		kind, note := settledEvent(&st, &settled, settledBy(ctx, settled.Provider))
		err = addEvent(ctx, tx, seq, st.Now, kind, note)
	}
	if err == nil {
		err = emitSettled(ctx, tx, &settled, st.Now)
	}
	if err == nil && settled.Status.Final() {
		err = s.rollUpDuration(ctx, tx, &settled)
	}
	if err != nil {
		return o, err
	}
	return settled, nil
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
func (s *Store) RetryOrder(ctx context.Context, seq int64, now, deadline time.Time) (topupd.Order, error) {
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
		if c := topupd.ChangeOf(ctx); c != nil && c.Operator != "" {
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
// one, or else the pack's cost now. A pack since deleted costs 0.
func (s *Store) completionCost(ctx context.Context, tx *sql.Tx, o *topupd.Order) (topupd.Money, error) {
	var unit topupd.Money
	err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT a.cost FROM order_attempts a WHERE a.order_seq = $2 AND a.outcome = 'trying'),
		(SELECT p.cost FROM packs p WHERE p.pid = $1), 0)`, o.PID, o.Seq).Scan(&unit)
	if err != nil {
		return 0, err
	}
	return unit * topupd.Money(o.Quantity), nil
}
