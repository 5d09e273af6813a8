package sqlstore

// The mutant eventsafter (internal/testing/mutants) adds this file to
// internal/sqlstore, through go test -overlay only: PlaceOrder writes the
// order's events to the stream in a transaction of its own, after the
// order's has committed.

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// eventsAfter holds the events placeOrder leaves for emitAfterCommit.
type eventsAfter struct {
	events []topupd.Event
}

// afterKey carries an *eventsAfter in a context.
type afterKey struct{}

// withEventsAfter returns ctx with room for the events placeOrder leaves.
func withEventsAfter(ctx context.Context) (context.Context, *eventsAfter) {
	a := new(eventsAfter)
	return context.WithValue(ctx, afterKey{}, a), a
}

// emitLater keeps events for emitAfterCommit instead of emitting them in
// the order's transaction; a transaction run again replaces them.
func emitLater(ctx context.Context, events ...topupd.Event) error {
	if a, ok := ctx.Value(afterKey{}).(*eventsAfter); ok {
		a.events = events
	}
	return nil
}

// emitAfterCommit emits the events kept for order seq in a transaction of
// their own, after the order's has committed: the bug itself.
func (s *Store) emitAfterCommit(ctx context.Context, a *eventsAfter, seq int64) error {
	if len(a.events) == 0 || a.events[0].OrderSeq != seq {
		return nil // kept by a transaction that was rolled back
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return emit(ctx, tx, a.events...)
	})
}
