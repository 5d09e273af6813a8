package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// Reconciliations with suppliers (back-office.md, section 2): the orders
// they match, and the runs with their mismatches (migration 00036).

// ourOrderColumns are the columns scanOurOrder reads.
const ourOrderColumns = `id, supplier_ref, status, cost, created_at`

func scanOurOrder(row scanner) (topupd.OurOrder, error) {
	var o topupd.OurOrder
	var status string
	var cost sql.NullInt64
	var created int64
	err := row.Scan(&o.ID, &o.SupplierRef, &status, &cost, &created)
	o.Status, o.Cost, o.CreatedAt = topupd.OrderStatus(status), nullMoney(cost), fromMS(created)
	return o, err
}

// EachUpstreamOrder calls fn with each of our orders at an upstream
// created in [start, end), as the rows are read (orders_upstream_created
// finds them): a month of a million is never held at once.
func (s *Store) EachUpstreamOrder(ctx context.Context, upstream string, start, end time.Time, fn func(*topupd.OurOrder) error) error {
	err := eachRow(ctx, s.read, func(r scanner) error {
		o, err := scanOurOrder(r)
		if err != nil {
			return err
		}
		return fn(&o)
	}, `SELECT `+ourOrderColumns+` FROM orders WHERE provider = 'upstream' AND upstream = $1 AND created_at >= $2 AND created_at < $3`,
		upstream, ms(start), ms(end))
	if err != nil {
		return fmt.Errorf("store.EachUpstreamOrder %s: %w", upstream, err)
	}
	return nil
}

// UpstreamOrdersByRef returns our orders at an upstream by their
// references (topupd.UpstreamTrxID), marked Beyond.
func (s *Store) UpstreamOrdersByRef(ctx context.Context, upstream string, refs []string) ([]topupd.OurOrder, error) {
	var out []topupd.OurOrder
	for len(refs) > 0 {
		n := min(len(refs), 500)
		var ids []any
		var marks []string
		for _, r := range refs[:n] {
			if id, ok := strings.CutPrefix(r, "topupd-"); ok {
				ids = append(ids, id)
				marks = append(marks, fmt.Sprintf("$%d", len(ids)+1))
			}
		}
		refs = refs[n:]
		if len(ids) == 0 {
			continue
		}
		got, err := readAll(ctx, s, "store.UpstreamOrdersByRef", scanOurOrder, `SELECT `+ourOrderColumns+` FROM orders
			WHERE provider = 'upstream' AND upstream = $1 AND id IN (`+strings.Join(marks, ", ")+`)`, append([]any{upstream}, ids...)...)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	for i := range out {
		out[i].Beyond = true
	}
	return out, nil
}

// reconColumns are the columns scanRecon reads.
const reconColumns = `seq, id, supplier, period_from, period_to, source, state, created_at, operator, closed_at, matched,
	our_orders, their_orders, our_cost, their_cost, balance_drift`

func scanRecon(row scanner) (topupd.Reconciliation, error) {
	var r topupd.Reconciliation
	var from, to, created int64
	var closed, drift sql.NullInt64
	err := row.Scan(&r.Seq, &r.ID, &r.Supplier, &from, &to, &r.Source, &r.State, &created, &r.Operator, &closed, &r.Matched,
		&r.Totals.OurOrders, &r.Totals.TheirOrders, &r.Totals.OurCost, &r.Totals.TheirCost, &drift)
	r.Period, r.CreatedAt, r.BalanceDrift = topupd.ReconPeriod{From: fromMS(from), To: fromMS(to)}, fromMS(created), nullMoney(drift)
	if closed.Valid {
		t := fromMS(closed.Int64)
		r.ClosedAt = &t
	}
	return r, err
}

// mismatchColumns are the columns scanMismatch reads.
const mismatchColumns = `id, kind, reference, order_id, supplier_ref, our_amount, their_amount, our_status, their_status,
	state, action, note, resolved_by, resolved_at, entry_id, fix_cost`

func scanMismatch(row scanner) (topupd.Mismatch, error) {
	var m topupd.Mismatch
	var ours, theirs, at, entry, cost sql.NullInt64
	var ourStatus, theirStatus, note, by string
	var action sql.NullString
	err := row.Scan(&m.ID, &m.Kind, &m.Reference, &m.OrderID, &m.SupplierRef, &ours, &theirs, &ourStatus, &theirStatus,
		&m.State, &action, &note, &by, &at, &entry, &cost)
	m.Ours, m.Theirs, m.OurStatus, m.TheirStatus = nullMoney(ours), nullMoney(theirs), topupd.OrderStatus(ourStatus), topupd.OrderStatus(theirStatus)
	if action.Valid {
		m.Resolution = &topupd.Resolution{Action: action.String, Note: note, Operator: by, At: fromMS(at.Int64), EntryID: entry.Int64, Cost: nullMoney(cost)}
	}
	return m, err
}

// AddReconciliation stores a reconciliation and its mismatches in one
// transaction with its action log entry.
func (s *Store) AddReconciliation(ctx context.Context, ch *topupd.Change, r topupd.Reconciliation) (topupd.Reconciliation, error) {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO reconciliations (id, supplier, period_from, period_to, source, state, created_at, operator,
			matched, our_orders, their_orders, our_cost, their_cost, balance_drift) VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $8, $9, $10, $11, $12, $13)
			RETURNING seq`, r.ID, r.Supplier, ms(r.Period.From), ms(r.Period.To), r.Source, ms(r.CreatedAt), r.Operator, r.Matched,
			r.Totals.OurOrders, r.Totals.TheirOrders, int64(r.Totals.OurCost), int64(r.Totals.TheirCost), moneyOrNull(r.BalanceDrift)).Scan(&r.Seq)
		if err != nil {
			return err
		}
		for _, m := range r.Mismatches {
			if _, err := tx.ExecContext(ctx, `INSERT INTO reconciliation_mismatches (rec_seq, id, kind, reference, order_id, supplier_ref,
				our_amount, their_amount, our_status, their_status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
				r.Seq, m.ID, m.Kind, m.Reference, m.OrderID, m.SupplierRef, moneyOrNull(m.Ours), moneyOrNull(m.Theirs),
				string(m.OurStatus), string(m.TheirStatus)); err != nil {
				return err
			}
		}
		r.State = topupd.ReconOpen
		if len(r.Mismatches) > 0 {
			if err := emit(ctx, tx, event(&topupd.ReconciliationMismatchesData{ReconciliationID: r.ID, Supplier: r.Supplier,
				From: r.Period.From.Format(time.DateOnly), To: r.Period.To.Format(time.DateOnly), Mismatches: len(r.Mismatches)}, "", r.CreatedAt)); err != nil {
				return err
			}
		}
		noteChange(ctx, "", map[string]any{}, map[string]any{"id": r.ID, "supplier": r.Supplier, "source": r.Source,
			"from": r.Period.From.Format(time.DateOnly), "to": r.Period.To.Format(time.DateOnly), "matched": r.Matched, "mismatches": len(r.Mismatches)})
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("store.AddReconciliation %s: %w", r.Supplier, err)
	}
	return r, nil
}

// Reconciliation returns one reconciliation with its mismatches.
func (s *Store) Reconciliation(ctx context.Context, id string) (topupd.Reconciliation, error) {
	r, err := scanRecon(s.read.QueryRowContext(ctx, `SELECT `+reconColumns+` FROM reconciliations WHERE id = $1`, id))
	if isNoRows(err) {
		return r, topupd.Errorf(topupd.ENotFound, "reconciliation %s", id)
	} else if err != nil {
		return r, fmt.Errorf("store.Reconciliation %s: %w", id, err)
	}
	r.Mismatches, err = readAll(ctx, s, "store.Reconciliation", scanMismatch, `SELECT `+mismatchColumns+` FROM reconciliation_mismatches
		WHERE rec_seq = $1 ORDER BY id`, r.Seq)
	return r, err
}

// Reconciliations returns a page of reconciliations, newest first.
func (s *Store) Reconciliations(ctx context.Context, q topupd.ReconciliationsQuery) ([]topupd.Reconciliation, error) {
	before := int64(1<<63 - 1)
	if q.Before > 0 {
		before = q.Before
	}
	return readAll(ctx, s, "store.Reconciliations", scanRecon, `SELECT `+reconColumns+` FROM reconciliations
		WHERE seq < $1 AND ($2 = '' OR supplier = $2) AND ($3 = '' OR state = $3) ORDER BY seq DESC LIMIT $4`,
		before, q.Supplier, q.State, q.Limit)
}

// UpstreamDepositsTotal sums an upstream's deposits sent in [start, end).
func (s *Store) UpstreamDepositsTotal(ctx context.Context, upstream string, start, end time.Time) (topupd.Money, error) {
	var sum int64
	if err := s.read.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM upstream_deposits
		WHERE upstream = $1 AND at >= $2 AND at < $3`, upstream, ms(start), ms(end)).Scan(&sum); err != nil {
		return 0, fmt.Errorf("store.UpstreamDepositsTotal %s: %w", upstream, err)
	}
	return topupd.Money(sum), nil
}

// CloseReconciliation closes a reconciliation none of whose mismatches is
// open, holding its row lock: EMismatchesOpen while one is,
// EReconciliationClosed once closed, ENotFound for none.
func (s *Store) CloseReconciliation(ctx context.Context, ch *topupd.Change, id string, at time.Time) (topupd.Reconciliation, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Reconciliation
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		r, err := scanRecon(tx.QueryRowContext(ctx, `SELECT `+reconColumns+` FROM reconciliations WHERE id = $1`+s.d.LockRow, id))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "reconciliation %s", id)
		} else if err != nil {
			return err
		}
		if r.State == topupd.ReconClosed {
			return topupd.Errorf(topupd.EReconciliationClosed, "reconciliation %s is closed", id)
		}
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM reconciliation_mismatches WHERE rec_seq = $1 AND state = 'open'`, r.Seq).
			Scan(&open); err != nil {
			return err
		}
		if open > 0 {
			return topupd.Errorf(topupd.EMismatchesOpen, "%d mismatches of %s are open", open, id)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE reconciliations SET state = 'closed', closed_at = $2 WHERE seq = $1`, r.Seq, ms(at)); err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{"state": r.State}, map[string]any{"state": topupd.ReconClosed})
		r.State, r.ClosedAt = topupd.ReconClosed, &at
		out = r
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.CloseReconciliation %s: %w", id, err)
	}
	out.Mismatches, err = readAll(ctx, s, "store.CloseReconciliation", scanMismatch, `SELECT `+mismatchColumns+` FROM reconciliation_mismatches
		WHERE rec_seq = $1 ORDER BY id`, out.Seq)
	return out, err
}

// OpenMismatches counts the open mismatches by supplier, for every
// supplier reconciled.
func (s *Store) OpenMismatches(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := eachRow(ctx, s.read, func(r scanner) error {
		var supplier string
		var n int
		if err := r.Scan(&supplier, &n); err != nil {
			return err
		}
		out[supplier] = n
		return nil
	}, `SELECT r.supplier, COUNT(m.id) FROM reconciliations r LEFT JOIN reconciliation_mismatches m ON m.rec_seq = r.seq AND m.state = 'open'
		GROUP BY r.supplier`)
	if err != nil {
		return nil, fmt.Errorf("store.OpenMismatches: %w", err)
	}
	return out, nil
}

// ClaimNightly takes an upstream's nightly reconciliation of a day for
// this node, once: the primary key decides between nodes.
func (s *Store) ClaimNightly(ctx context.Context, supplier, day string, at time.Time) (bool, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO reconciliation_nightly (supplier, day, taken_at) VALUES ($1, $2, $3)
			ON CONFLICT (supplier, day) DO NOTHING`, supplier, day, ms(at))
		n, err = rowsAffected(res, err)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store.ClaimNightly %s %s: %w", supplier, day, err)
	}
	return n == 1, nil
}

// RecordReconciliationFailed writes a reconciliation.failed operator event.
func (s *Store) RecordReconciliationFailed(ctx context.Context, d topupd.ReconciliationFailedData, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return emit(ctx, tx, event(&d, "", at))
	})
	if err != nil {
		return fmt.Errorf("store.RecordReconciliationFailed %s: %w", d.Supplier, err)
	}
	return nil
}
