package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// The supplier attempts of orders whose pack lists suppliers: one row per
// supplier of the list, as it was when the order was placed (see
// migration 00017 and docs/failover.md).

// snapshotSuppliers records, for a new order of a pack that lists
// suppliers, every supplier of the list: the first as the order's current
// one (the order row carries it), the others waiting. A later edit of the
// pack does not change where the order may go. Key orders drawn from
// stock, and packs without a list, have none. It is placeOrder's one call
// into failover.
func (s *Store) snapshotSuppliers(ctx context.Context, tx *sql.Tx, o *topupd.Order, suppliers []topupd.Supplier) error {
	if len(suppliers) == 0 || o.Status.Final() {
		return nil
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO order_attempts (order_seq, attempt, provider, upstream, upstream_pid, cost, outcome, started_at) VALUES `)
	args := make([]any, 0, 8*len(suppliers))
	for i, sp := range suppliers {
		if i > 0 {
			b.WriteString(", ")
		}
		n := len(args)
		fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8)
		outcome, started := topupd.AttemptWaiting, any(nil)
		if i == 0 {
			outcome, started = topupd.AttemptTrying, ms(o.CreatedAt)
		}
		var cost any
		if sp.Cost > 0 {
			cost = int64(sp.Cost)
		}
		args = append(args, o.Seq, i+1, sp.Provider, sp.Upstream, sp.UpstreamPID, cost, string(outcome), started)
	}
	if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("supplier attempts of order %s: %w", o.ID, err)
	}
	return nil
}

const attemptColumns = `attempt, provider, upstream, upstream_pid, cost, outcome, why, started_at, finished_at`

// scanAttempt reads one row of attemptColumns.
func scanAttempt(row scanner) (topupd.SupplierAttempt, error) {
	var a topupd.SupplierAttempt
	var cost, started, finished sql.NullInt64
	var outcome string
	err := row.Scan(&a.Attempt, &a.Provider, &a.Upstream, &a.UpstreamPID, &cost, &outcome, &a.Why, &started, &finished)
	a.Cost, a.Outcome = topupd.Money(cost.Int64), topupd.AttemptOutcome(outcome)
	a.StartedAt, a.FinishedAt = nullMS(started), nullMS(finished)
	return a, err
}

// SupplierAttempts returns an order's supplier attempts, by place in its list.
func (s *Store) SupplierAttempts(ctx context.Context, seq int64) ([]topupd.SupplierAttempt, error) {
	out, err := s.attempts(ctx, s.read, seq)
	if err != nil {
		return nil, fmt.Errorf("store.SupplierAttempts %d: %w", seq, err)
	}
	return out, nil
}

// attempts reads an order's attempts through q.
func (s *Store) attempts(ctx context.Context, q querier, seq int64) ([]topupd.SupplierAttempt, error) {
	return queryAll(ctx, q, scanAttempt, `SELECT `+attemptColumns+` FROM order_attempts WHERE order_seq = $1 ORDER BY attempt`, seq)
}

// MoveSupplier ends the order's current attempt and makes a later one
// current, holding the order's row lock: of two workers that both saw the
// same supplier refuse, only the lease holder moves the order, and only
// once, since the attempt it moves from must still be the current one.
func (s *Store) MoveSupplier(ctx context.Context, seq int64, m topupd.SupplierMove) (topupd.Order, error) {
	var o topupd.Order
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		o, err = s.moveSupplier(ctx, tx, seq, m)
		return err
	})
	if err != nil {
		return o, fmt.Errorf("store.MoveSupplier %d: %w", seq, err)
	}
	return o, nil
}

// moveSupplier is MoveSupplier's transaction.
func (s *Store) moveSupplier(ctx context.Context, tx *sql.Tx, seq int64, m topupd.SupplierMove) (topupd.Order, error) {
	switch m.Outcome {
	case topupd.AttemptRefused, topupd.AttemptNotFound, topupd.AttemptSkipped:
	default:
		return topupd.Order{}, fmt.Errorf("an attempt does not move on as %q", m.Outcome)
	}
	if m.To <= m.From || m.LeaseOwner == "" || m.LeaseUntil.IsZero() {
		return topupd.Order{}, fmt.Errorf("a move from attempt %d to %d by %q", m.From, m.To, m.LeaseOwner)
	}
	o, err := s.lockLeased(ctx, tx, seq, m.LeaseOwner)
	switch {
	case err != nil:
		return o, err
	case o.SupplierRef != "" || o.Supplier == topupd.SupplierAccepted:
		// The supplier said it holds the order: it never moves on.
		return o, topupd.Errorf(topupd.EConflict, "order %s is held by its supplier (%s)", o.ID, o.SupplierRef)
	}
	now := ms(m.Now)
	res, err := tx.ExecContext(ctx, `UPDATE order_attempts SET outcome = $3, why = $4, finished_at = $5
		WHERE order_seq = $1 AND attempt = $2 AND outcome = 'trying'`, seq, m.From, string(m.Outcome), topupd.EventNote(m.Why), now)
	if n, err := rowsAffected(res, err); err != nil {
		return o, err
	} else if n != 1 {
		return o, topupd.Errorf(topupd.EConflict, "order %s is no longer on supplier %d", o.ID, m.From)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE order_attempts SET outcome = 'skipped', why = $4, finished_at = $5
		WHERE order_seq = $1 AND attempt > $2 AND attempt < $3 AND outcome = 'waiting'`, seq, m.From, m.To, topupd.EventNote(m.SkipWhy), now); err != nil {
		return o, err
	}
	var next topupd.Supplier
	err = tx.QueryRowContext(ctx, `UPDATE order_attempts SET outcome = 'trying', started_at = $3
		WHERE order_seq = $1 AND attempt = $2 AND outcome = 'waiting' RETURNING provider, upstream, upstream_pid`, seq, m.To, now).
		Scan(&next.Provider, &next.Upstream, &next.UpstreamPID)
	if isNoRows(err) {
		return o, topupd.Errorf(topupd.EConflict, "order %s has no supplier %d waiting", o.ID, m.To)
	} else if err != nil {
		return o, err
	}
	if next.Provider != o.Provider {
		if err := s.moveRollUp(ctx, tx, &o, next.Provider); err != nil {
			return o, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET provider = $2, upstream = $3, upstream_pid = $4, supplier = 'submitting', supplier_ref = '',
		lease_until = $5 WHERE seq = $1`, seq, next.Provider, next.Upstream, next.UpstreamPID, ms(m.LeaseUntil)); err != nil {
		return o, err
	}
	note := fmt.Sprintf("%s (supplier %d, after %s %s: %s)", submittingNote(next.Provider, next.Upstream), m.To,
		submittingNote(o.Provider, o.Upstream), m.Outcome, m.Why)
	if err := addEvent(ctx, tx, seq, m.Now, topupd.EventSubmitting, note); err != nil {
		return o, err
	}
	moved, err := s.orderBy(ctx, tx, s.q.orderBySeq, seq)
	if err != nil {
		return moved, err
	}
	return moved, emitOrder(ctx, tx, &moved, m.Now, &topupd.OrderMovedData{OrderFacts: topupd.FactsOf(&moved),
		From: submittingNote(o.Provider, o.Upstream), Outcome: string(m.Outcome), Why: topupd.EventNote(m.Why)})
}

// moveRollUp counts a processing order in the day's sales under its new
// provider instead of its old one (sales are rolled up by provider). The
// two rows are locked in the order of their providers' names, whichever
// way the order moves, so two moves never wait for each other in a cycle.
func (s *Store) moveRollUp(ctx context.Context, tx *sql.Tx, o *topupd.Order, provider string) error {
	moved := *o
	moved.Provider = provider
	out := func() error {
		if err := s.rollUp(ctx, tx, o, salesDelta{orders: -1, processing: -1, charged: -o.Amount}); err != nil {
			return err
		}
		return s.dropEmptyRollUp(ctx, tx, o)
	}
	in := func() error {
		return s.rollUp(ctx, tx, &moved, salesDelta{orders: 1, processing: 1, charged: o.Amount})
	}
	first, second := out, in
	if provider < o.Provider {
		first, second = in, out
	}
	if err := first(); err != nil {
		return err
	}
	return second()
}

// dropEmptyRollUp deletes the order's row of sales_daily once no order
// counts in it (its only order moved to another provider), as a roll-up
// computed from the orders would have no such row.
func (s *Store) dropEmptyRollUp(ctx context.Context, tx *sql.Tx, o *topupd.Order) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM sales_daily WHERE day = $1 AND account_id = $2 AND pid = $3 AND slug = $4 AND provider = $5 AND orders = 0`,
		ms(o.CreatedAt)/dayMS, o.AccountID, o.PID, o.Slug, o.Provider)
	return err
}

// finishAttempt ends the current attempt of an order that settles final:
// it ends as the order did, with its error. An order without attempts has
// nothing to end.
func finishAttempt(ctx context.Context, tx *sql.Tx, o *topupd.Order, at time.Time) error {
	outcome := topupd.AttemptCompleted
	if o.Status == topupd.StatusCancelled {
		outcome = topupd.AttemptCancelled
	}
	_, err := tx.ExecContext(ctx, `UPDATE order_attempts SET outcome = $2, why = $3, finished_at = $4 WHERE order_seq = $1 AND outcome = 'trying'`,
		o.Seq, string(outcome), topupd.EventNote(o.Error), ms(at))
	if err != nil {
		return fmt.Errorf("the attempt of order %s: %w", o.ID, err)
	}
	return nil
}
