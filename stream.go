package topupd

import (
	"context"
	"time"
)

// EventType names a kind of change in the event stream.
type EventType string

// The kinds of change the stream carries. Each is written in the
// transaction of the change it tells of, so a committed change always has
// its event and a rolled-back one never does.
const (
	// OrderPlaced: an order was created (orderCreated true); Data holds
	// its status, amount and PID.
	OrderPlaced EventType = "order.placed"
	// OrderCompleted: an order became completed, at placement or later.
	OrderCompleted EventType = "order.completed"
	// OrderCancelled: an order ended cancelled; Data says whether it was
	// refunded, and its error.
	OrderCancelled EventType = "order.cancelled"
	// OrderRetried: an operator made a processing order due again.
	OrderRetried EventType = "order.retried"
	// OrderMoved: an order moved on to its next supplier (failover).
	OrderMoved EventType = "order.moved"
	// BalanceCredited: the operator credited or debited an account; Data
	// holds amountUsd, balanceUsd and reference.
	BalanceCredited EventType = "balance.credited"
	// AccountChanged: an operator or a chat changed an account or its keys
	// (any change the action log records against an account, credits
	// aside); Data holds the action, its target, and the fields before and
	// after, as the action log has them.
	AccountChanged EventType = "account.changed"
	// CatalogChanged: an operator changed the catalog: a line, a pack, a
	// pack's stock or batches, an upstream or a price tier (any such
	// change the action log records); Data holds the action, its target,
	// and the fields before and after, as the action log has them.
	CatalogChanged EventType = "catalog.changed"
	// PacksChanged: packs a reseller can see changed price or status, went
	// in or out of stock, or their line changed status; written by the
	// database's triggers in the change's transaction (migration 00025).
	// Data holds pids, or allPacks true for every pack on sale; and
	// accounts, the live accounts it concerns, absent for every one. The
	// webhooks notifier makes catalog.changed events of it.
	PacksChanged EventType = "packs.changed"
	// WebhookDisabled: the server disabled a webhook endpoint of the
	// account; Data holds endpointId, url, reason (gone, failing) and the
	// last attempt's status.
	WebhookDisabled EventType = "webhook.disabled"
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
	// Data holds the event's details, by type (see the constants).
	Data map[string]any
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
