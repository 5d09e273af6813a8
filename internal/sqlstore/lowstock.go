package sqlstore

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// Low stock: the database keeps whether each pack's alert is raised
// (stock_alerts, kept by triggers on stock_levels and packs: raised while
// the pack's low_stock_at is set and its stock is at or below it). The
// store notes each flip it makes, so that the request's log tells of it
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

// wantsLowStock reports whether anyone takes the flips a transaction on
// ctx notes: where none does, the store skips reading them.
func wantsLowStock(ctx context.Context) bool {
	_, ok := ctx.Value(pendingKey{}).(*pendingAlerts)
	return ok
}

// noteLowStock notes the flip of a pack's alert that a change of its stock
// from before to after made, under its stock level lock, as the triggers
// make it: raised when the stock fell to level or below, cleared when it
// rose above it.
func noteLowStock(ctx context.Context, pid string, level sql.NullInt64, before, after int) {
	p, ok := ctx.Value(pendingKey{}).(*pendingAlerts)
	if !ok || !level.Valid {
		return
	}
	lvl := int(level.Int64)
	low, wasLow := after <= lvl, before <= lvl
	if low != wasLow {
		p.alerts = append(p.alerts, topupd.LowStockAlert{PID: pid, Raised: low, Available: after, LowStockAt: lvl})
	}
}

// noteDrawn notes the flip a draw of n codes made, reading the pack's
// level and its stock after the draw.
func (s *Store) noteDrawn(ctx context.Context, tx *sql.Tx, pid string, n int) error {
	if !wantsLowStock(ctx) || n == 0 {
		return nil
	}
	var after int
	var level sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT available FROM stock_levels WHERE pid = $1), 0), low_stock_at FROM packs WHERE pid = $1`,
		pid).Scan(&after, &level)
	if err != nil {
		return err
	}
	noteLowStock(ctx, pid, level, after+n, after)
	return nil
}

// watchLevel reads a pack's low-stock alert before a change of the pack
// (its lowStockAt may change; the triggers then set the alert as the
// stock stands) and returns what notes the flip the change made.
func (s *Store) watchLevel(ctx context.Context, tx *sql.Tx, pid string) (func() error, error) {
	if !wantsLowStock(ctx) {
		return func() error { return nil }, nil
	}
	read := func() (raised bool, level sql.NullInt64, available int, err error) {
		err = tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM stock_alerts WHERE pid = $1),
			(SELECT low_stock_at FROM packs WHERE pid = $1), COALESCE((SELECT available FROM stock_levels WHERE pid = $1), 0)`,
			pid).Scan(&raised, &level, &available)
		return raised, level, available, err
	}
	// The pack's lock, then its stock level's (as uploads and voids take
	// them), before the read: a draw crossing the level between the read
	// and the change would otherwise be noted by both.
	var one int
	for _, lock := range []string{s.q.lockPack, s.q.lockStock} {
		if err := tx.QueryRowContext(ctx, lock, pid).Scan(&one); err != nil && !isNoRows(err) {
			return nil, err
		}
	}
	was, oldLevel, _, err := read()
	if err != nil {
		return nil, err
	}
	return func() error {
		raised, level, available, err := read()
		if err != nil || raised == was {
			return err
		}
		if !level.Valid { // cleared by taking the level away: the log names the old one
			level = oldLevel
		}
		p := ctx.Value(pendingKey{}).(*pendingAlerts)
		p.alerts = append(p.alerts, topupd.LowStockAlert{PID: pid, Raised: raised, Available: available, LowStockAt: int(level.Int64)})
		return nil
	}, nil
}
