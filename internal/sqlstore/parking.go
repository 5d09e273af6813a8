package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// Orders waiting for supplier funds (back-office.md, section 1,
// "Parking"): an order no supplier could take for want of money holds no
// supplier, carries topupd.AlertWaitingFunds, and falls due at its
// deadline, or earlier when a read wakes it (wakeWaitingFunds); it then
// goes back to a supplier it left for the money, which surely holds none.

// SupplierFunds returns each supplier of an order with the known balance
// there and the order's cost there (the supplier's cost, else the pack's,
// times the quantity): its list's, or its one supplier as attempt 0.
func (s *Store) SupplierFunds(ctx context.Context, seq int64) ([]topupd.AttemptFunds, error) {
	scan := func(r scanner) (topupd.AttemptFunds, error) {
		var f topupd.AttemptFunds
		var bal sql.NullInt64
		var outcome string
		err := r.Scan(&f.Attempt, &f.Upstream, &bal, &f.Cost, &outcome, &f.Why)
		f.Balance, f.Outcome = nullMoney(bal), topupd.AttemptOutcome(outcome)
		return f, err
	}
	out, err := readAll(ctx, s, "store.SupplierFunds", scan, `SELECT a.attempt, a.upstream, u.balance,
		CAST(COALESCE(a.cost, p.cost, 0) * o.quantity AS BIGINT), a.outcome, a.why
		FROM order_attempts a JOIN orders o ON o.seq = a.order_seq LEFT JOIN packs p ON p.pid = o.pid
		LEFT JOIN upstreams u ON a.provider = 'upstream' AND u.name = a.upstream
		WHERE a.order_seq = $1 ORDER BY a.attempt`, seq)
	if err != nil || len(out) > 0 {
		return out, err
	}
	return readAll(ctx, s, "store.SupplierFunds", scan, `SELECT 0, o.upstream, u.balance,
		CAST(COALESCE(p.cost, 0) * o.quantity AS BIGINT), 'trying', ''
		FROM orders o LEFT JOIN packs p ON p.pid = o.pid LEFT JOIN upstreams u ON o.provider = 'upstream' AND u.name = o.upstream
		WHERE o.seq = $1`, seq)
}

// lockLeased reads a processing order under its row lock for owner:
// EOrderNotFound, EOrderFinal, or EConflict when another holds its lease.
func (s *Store) lockLeased(ctx context.Context, tx *sql.Tx, seq int64, leaseOwner string) (topupd.Order, error) {
	var owner string
	o, err := scanOrder(withExtra(tx.QueryRowContext(ctx, s.q.lockOrder, seq), &owner))
	switch {
	case isNoRows(err):
		return o, topupd.Fail(topupd.EOrderNotFound)
	case err != nil:
		return o, err
	case o.Status.Final():
		return o, topupd.Errorf(topupd.EOrderFinal, "order %s is already %s", o.ID, o.Status)
	case leaseOwner == "" || owner != leaseOwner:
		return o, topupd.Errorf(topupd.EConflict, "order %s is not leased to %s", o.ID, leaseOwner)
	}
	return o, nil
}

// ParkOrder leaves an order waiting for supplier funds (topupd.Park).
func (s *Store) ParkOrder(ctx context.Context, seq int64, p topupd.Park) (topupd.Order, error) {
	var out topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		o, err := s.lockLeased(ctx, tx, seq, p.LeaseOwner)
		if err != nil {
			return err
		}
		if o.SupplierRef != "" || o.Supplier == topupd.SupplierAccepted {
			return topupd.Errorf(topupd.EConflict, "order %s is held by its supplier (%s)", o.ID, o.SupplierRef)
		}
		if p.From > 0 {
			switch p.Outcome {
			case topupd.AttemptRefused, topupd.AttemptSkipped:
			default:
				return fmt.Errorf("an attempt is not parked from as %q", p.Outcome)
			}
			res, err := tx.ExecContext(ctx, `UPDATE order_attempts SET outcome = $3, why = $4, finished_at = $5
				WHERE order_seq = $1 AND attempt = $2 AND outcome = 'trying'`, seq, p.From, string(p.Outcome), topupd.EventNote(p.Why), ms(p.Now))
			if n, err := rowsAffected(res, err); err != nil {
				return err
			} else if n != 1 {
				return topupd.Errorf(topupd.EConflict, "order %s is no longer on supplier %d", o.ID, p.From)
			}
			// Those after it could not cover the order either.
			if _, err := tx.ExecContext(ctx, `UPDATE order_attempts SET outcome = 'skipped', why = $3, finished_at = $4
				WHERE order_seq = $1 AND attempt > $2 AND outcome = 'waiting'`, seq, p.From, topupd.WhyBalance, ms(p.Now)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET supplier = 'new', supplier_ref = '', alert = $2, next_attempt_at = $3,
			attempts = attempts + 1, lease_owner = NULL, lease_until = NULL WHERE seq = $1`,
			seq, topupd.AlertWaitingFunds, msUp(p.Until)); err != nil {
			return err
		}
		if o.Alert != topupd.AlertWaitingFunds {
			if err := addEvent(ctx, tx, seq, p.Now, topupd.EventWaiting, topupd.NoteWaitingFunds); err != nil {
				return err
			}
		}
		out, err = s.orderBy(ctx, tx, s.q.orderBySeq, seq)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("store.ParkOrder %d: %w", seq, err)
	}
	return out, nil
}

// ResumeOrder sends a parked order to a supplier it left for the money
// (topupd.Resume): the supplier's attempt is current again, and the order
// is submitted there afresh.
func (s *Store) ResumeOrder(ctx context.Context, seq int64, r topupd.Resume) (topupd.Order, error) {
	var out topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		o, err := s.lockLeased(ctx, tx, seq, r.LeaseOwner)
		if err != nil {
			return err
		}
		if o.Alert != topupd.AlertWaitingFunds || o.Supplier != topupd.SupplierNew {
			return topupd.Errorf(topupd.EConflict, "order %s is not waiting for supplier funds", o.ID)
		}
		next := topupd.Supplier{Provider: o.Provider, Upstream: o.Upstream, UpstreamPID: o.UpstreamPID}
		if r.To > 0 {
			var trying int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM order_attempts WHERE order_seq = $1 AND outcome = 'trying'`, seq).
				Scan(&trying); err != nil {
				return err
			} else if trying > 0 {
				return topupd.Errorf(topupd.EConflict, "order %s has a current supplier", o.ID)
			}
			err := tx.QueryRowContext(ctx, `UPDATE order_attempts SET outcome = 'trying', why = '', started_at = $3, finished_at = NULL
				WHERE order_seq = $1 AND attempt = $2 AND outcome IN ('skipped', 'refused') AND why IN ($4, $5)
				RETURNING provider, upstream, upstream_pid`, seq, r.To, ms(r.Now), topupd.WhyBalance, topupd.WhyInsufficient).
				Scan(&next.Provider, &next.Upstream, &next.UpstreamPID)
			if isNoRows(err) {
				return topupd.Errorf(topupd.EConflict, "order %s did not leave supplier %d for the money", o.ID, r.To)
			} else if err != nil {
				return err
			}
			if next.Provider != o.Provider {
				if err := s.moveRollUp(ctx, tx, &o, next.Provider); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET provider = $2, upstream = $3, upstream_pid = $4, alert = '', lease_until = $5
			WHERE seq = $1`, seq, next.Provider, next.Upstream, next.UpstreamPID, ms(r.LeaseUntil)); err != nil {
			return err
		}
		note := fmt.Sprintf("%s (supplier %d, with the funds to cover it)", submittingNote(next.Provider, next.Upstream), r.To)
		if err := addEvent(ctx, tx, seq, r.Now, topupd.EventSubmitting, note); err != nil {
			return err
		}
		out, err = s.orderBy(ctx, tx, s.q.orderBySeq, seq)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("store.ResumeOrder %d: %w", seq, err)
	}
	return out, nil
}
