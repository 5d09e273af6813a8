package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// addEvent records one step of an order's history, in the transaction
// that takes the step.
func addEvent(ctx context.Context, tx *sql.Tx, seq int64, at time.Time, kind, note string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO order_events (order_seq, at, kind, note) VALUES ($1, $2, $3, $4)`,
		seq, ms(at), kind, topupd.EventNote(note))
	if err != nil {
		return fmt.Errorf("%s event of order %d: %w", kind, seq, err)
	}
	return nil
}

// settledEvent is the history's record of a settlement: a retry says why
// (the alert, then the note), a final state who settled it (by, see
// settledBy) and the order's error.
func settledEvent(st *topupd.Settlement, settled *topupd.Order, by string) (kind, note string) {
	switch settled.Status {
	case topupd.StatusCompleted:
		return topupd.EventCompleted, by
	case topupd.StatusCancelled:
		if settled.Error != "" {
			by += ": " + settled.Error
		}
		return topupd.EventCancelled, by
	}
	switch {
	case st.Alert != "" && st.Note != "":
		note = st.Alert + ": " + st.Note
	default:
		note = st.Alert + st.Note
	}
	return topupd.EventRetry, note
}

// settledBy names who settled an order, for its final event: the
// operator whose change the store call records (changeOf), else the supplier that answered
// (provider), else the system (a deadline passed with no supplier).
func settledBy(ctx context.Context, provider string) string {
	if c := changeOf(ctx); c != nil && c.Operator != "" {
		return "by " + c.Operator
	}
	if provider != "" {
		return "by the supplier " + provider
	}
	return "by the system"
}

// submittingNote names the supplier a submit goes to: the provider, and
// its upstream if any.
func submittingNote(provider, upstream string) string {
	if upstream == "" {
		return provider
	}
	return provider + " " + upstream
}

// OrderEvents returns an order's recorded events, oldest first (by time,
// then as recorded).
func (s *Store) OrderEvents(ctx context.Context, seq int64) ([]topupd.OrderEvent, error) {
	out, err := queryAll(ctx, s.read, func(r scanner) (topupd.OrderEvent, error) {
		var e topupd.OrderEvent
		var at int64
		err := r.Scan(&at, &e.Kind, &e.Note)
		e.At = fromMS(at)
		return e, err
	}, s.q.orderEvents, seq)
	if err != nil {
		return nil, fmt.Errorf("store.OrderEvents %d: %w", seq, err)
	}
	return out, nil
}
