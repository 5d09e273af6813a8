package topupd

import (
	"context"
	"time"
)

// Event is one change in the stream every consumer reads in order.
type Event struct {
	// Pos is the event's place in the stream.
	Pos StreamPos
	// ID is the event's own id (evt_…), the same wherever it is sent.
	ID string
	// At is when the change was made.
	At time.Time
	// Type says what changed.
	Type EventType
	// AccountID is the account the change concerns ("" for none).
	AccountID string
	// OrderSeq and OrderID name the order, for an order's event.
	OrderSeq int64
	OrderID  string
	// Data is the event's payload, its type's struct (EventKinds).
	Data EventData
}

// StreamPos is a place in the event stream: events are read in the order
// of (Tx, Seq), and a consumer's cursor is the position of the last event
// it has handled.
type StreamPos struct {
	Tx, Seq int64
}

// After reports whether p comes after q in the stream.
func (p StreamPos) After(q StreamPos) bool {
	return p.Tx > q.Tx || (p.Tx == q.Tx && p.Seq > q.Seq)
}

// NewEventID returns a fresh event id: "evt_" and 20 characters that sort
// in the order the ids were made, as order ids do.
func NewEventID(now time.Time) string { return "evt_" + NewOrderID(now)[len("ord_"):] }

// StreamStore is the event stream as its consumers read it: in order, each
// consumer from a cursor of its own, held by one node at a time under a
// lease.
type StreamStore interface {
	// Events returns up to limit events after pos, in stream order, of
	// committed transactions only, never one that a transaction still open
	// could later put behind pos.
	Events(ctx context.Context, after StreamPos, limit int) ([]Event, error)
	// OrderStreamEvents returns an order's events, in stream order.
	OrderStreamEvents(ctx context.Context, seq int64) ([]Event, error)
	// TakeConsumer takes or renews a consumer's lease for owner until
	// until, unless another owner holds it past now, and answers its
	// cursor; a consumer new to the database starts at the stream's end.
	TakeConsumer(ctx context.Context, name, owner string, now, until time.Time) (StreamPos, bool, error)
	// AdvanceConsumer moves a consumer's cursor on to pos, if owner still
	// holds its lease (EConflict otherwise).
	AdvanceConsumer(ctx context.Context, name, owner string, pos StreamPos) error
	// ReleaseConsumer gives a consumer's lease up if owner holds it.
	ReleaseConsumer(ctx context.Context, name, owner string) error
}

// Notifier is told of the stream's committed events, in order. Each has a
// cursor of its own in the database, under its name, held by one node of
// the deployment at a time: an event is told at least once (again after a
// failure or a takeover), so a notifier's effects must bear a repeat.
type Notifier interface {
	// Name names the notifier's cursor; it stays the same across releases.
	Name() string
	// Notify handles events in stream order. An error leaves the cursor
	// where it was: the same events are told again later.
	Notify(ctx context.Context, events []Event) error
}
