package sqlstore

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// Low stock: the database keeps whether each pack's alert is raised
// (stock_alerts: raised while the pack's low_stock_at is set and its stock
// is at or below it), written by the code that changes the stock
// (stockMoved) or the level (levelMoved). The store notes each flip it
// makes, so that the request's log tells of it
// once: a flip noted in a transaction reaches the request's
// topupd.LowStockNotes only once that transaction committed.

// pendingAlerts are the flips noted by one run of a transaction.
type pendingAlerts struct {
	notes  *topupd.LowStockNotes
	alerts []topupd.LowStockAlert
}

type pendingKey struct{}

// withPendingAlerts returns ctx carrying the flips of a transaction about
// to run, when ctx carries notes to pass them to; otherwise ctx and nil.
func withPendingAlerts(ctx context.Context) (context.Context, *pendingAlerts) {
	n := topupd.LowStockNotesOf(ctx)
	if n == nil {
		return ctx, nil
	}
	p := &pendingAlerts{notes: n}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// reset forgets the flips of a run that did not commit.
func (p *pendingAlerts) reset() {
	if p != nil {
		p.alerts = nil
	}
}

// commit passes the flips of the run that committed to the notes.
func (p *pendingAlerts) commit() {
	if p != nil {
		p.notes.Add(p.alerts...)
		p.alerts = nil
	}
}

// stockMoved writes what a change of a pack's stock from before to after
// tells, under its stock level's lock: a mark (listed when the stock
// emptied or refilled), the pack's low-stock alert raised as the stock
// fell to its level or cleared as it rose above it (and noted for the
// request's log), and packs.changed when a pack on sale emptied or
// refilled.
func (s *Store) stockMoved(ctx context.Context, tx *sql.Tx, pid string, level *int, before, after int) error {
	if before == after {
		return nil
	}
	refilled := (before > 0) != (after > 0)
	if err := s.mark(ctx, tx, "", pid, refilled); err != nil {
		return err
	}
	if level != nil {
		if low, wasLow := after <= *level, before <= *level; low != wasLow {
			if err := setAlert(ctx, tx, pid, low); err != nil {
				return err
			}
			noteAlert(ctx, topupd.LowStockAlert{PID: pid, Raised: low, Available: after, LowStockAt: *level})
		}
	}
	if !refilled {
		return nil
	}
	if ok, err := onSale(ctx, tx, pid); err != nil || !ok {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{PIDs: []string{pid}})
}

// levelMoved writes a pack's low-stock alert as a change of its level from
// old to level (nil: none) leaves it, with available codes in stock, under
// the stock level's lock, and notes its flip for the request's log.
func levelMoved(ctx context.Context, tx *sql.Tx, pid string, old, level *int, available int) error {
	if optionalEqual(old, level) {
		return nil
	}
	was := old != nil && available <= *old
	low := level != nil && available <= *level
	if err := setAlert(ctx, tx, pid, low); err != nil {
		return err
	}
	if low != was {
		named := level
		if named == nil { // cleared by taking the level away: the log names the old one
			named = old
		}
		noteAlert(ctx, topupd.LowStockAlert{PID: pid, Raised: low, Available: available, LowStockAt: *named})
	}
	return nil
}

// setAlert raises or clears a pack's low-stock alert.
func setAlert(ctx context.Context, tx *sql.Tx, pid string, raised bool) error {
	q := `DELETE FROM stock_alerts WHERE pid = $1`
	if raised {
		q = `INSERT INTO stock_alerts (pid) VALUES ($1) ON CONFLICT (pid) DO NOTHING`
	}
	_, err := tx.ExecContext(ctx, q, pid)
	return err
}

// noteAlert notes a flip of a pack's alert for the request's log, when
// ctx takes them.
func noteAlert(ctx context.Context, a topupd.LowStockAlert) {
	if p, ok := ctx.Value(pendingKey{}).(*pendingAlerts); ok {
		p.alerts = append(p.alerts, a)
	}
}

// levelOf is a pack's low-stock level as stored (NULL: none).
func levelOf(n sql.NullInt64) *int {
	if !n.Valid {
		return nil
	}
	v := int(n.Int64)
	return &v
}
