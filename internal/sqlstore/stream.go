package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// emit writes events into the stream, in one statement, in the
// transaction of the change they tell of: all commit, or none does. They
// take their places in the stream in the order given.
func emit(ctx context.Context, tx *sql.Tx, events ...topupd.Event) error {
	if len(events) == 0 {
		return nil
	}
	args := make([]any, 0, 6*len(events))
	for _, e := range events {
		var account, order any
		if e.AccountID != "" {
			account = e.AccountID
		}
		if e.OrderSeq != 0 {
			order = e.OrderSeq
		}
		data := []byte("{}")
		if e.Data != nil {
			if e.Data.EventType() != e.Type {
				return fmt.Errorf("event %s: a payload of %s", e.Type, e.Data.EventType())
			}
			var err error
			if data, err = json.Marshal(e.Data); err != nil {
				return fmt.Errorf("event %s: %w", e.Type, err)
			}
		}
		args = append(args, topupd.NewEventID(e.At), ms(e.At), string(e.Type), account, order, string(data))
	}
	if _, err := tx.ExecContext(ctx, insertEvents(len(events)), args...); err != nil {
		return fmt.Errorf("event %s: %w", events[0].Type, err)
	}
	return nil
}

// insertEventsSQL are the INSERTs of one and of two events (an order
// placed and completed at once), made once.
var insertEventsSQL = [3]string{1: buildInsertEvents(1), 2: buildInsertEvents(2)}

// insertEvents is the INSERT of n events.
func insertEvents(n int) string {
	if n < len(insertEventsSQL) {
		return insertEventsSQL[n]
	}
	return buildInsertEvents(n)
}

func buildInsertEvents(n int) string {
	var q strings.Builder
	q.WriteString(`INSERT INTO events (id, at, type, account_id, order_seq, data) VALUES `)
	for i := range n {
		if i > 0 {
			q.WriteString(", ")
		}
		k := 6 * i
		fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+6)
	}
	return q.String()
}

// event is the event of payload d, made at, concerning account ("" for
// none).
func event(d topupd.EventData, account string, at time.Time) topupd.Event {
	return topupd.Event{At: at, Type: d.EventType(), AccountID: account, Data: d}
}

// orderEvent is an order's event of payload d, made at.
func orderEvent(o *topupd.Order, at time.Time, d topupd.OrderEventData) topupd.Event {
	return topupd.Event{At: at, Type: d.EventType(), AccountID: o.AccountID, OrderSeq: o.Seq, Data: d}
}

// placedEvent is an order's order.placed event.
func placedEvent(o *topupd.Order, at time.Time) topupd.Event {
	return orderEvent(o, at, &topupd.OrderPlacedData{OrderFacts: topupd.FactsOf(o)})
}

// emitOrder writes an order's event of payload d (orderEvent).
func emitOrder(ctx context.Context, tx *sql.Tx, o *topupd.Order, at time.Time, d topupd.OrderEventData) error {
	return emit(ctx, tx, orderEvent(o, at, d))
}

// settledEvents are the events of an order's settlement: its final state,
// or none for a settlement that leaves it processing (the order's own
// history, order_events, records those).
func settledEvents(o *topupd.Order, at time.Time) []topupd.Event {
	switch o.Status {
	case topupd.StatusCompleted:
		return []topupd.Event{orderEvent(o, at, &topupd.OrderCompletedData{OrderFacts: topupd.FactsOf(o)})}
	case topupd.StatusCancelled:
		return []topupd.Event{orderEvent(o, at, &topupd.OrderCancelledData{OrderFacts: topupd.FactsOf(o)})}
	}
	return nil
}

// emitSettled writes the events of an order's settlement (settledEvents).
func emitSettled(ctx context.Context, tx *sql.Tx, o *topupd.Order, at time.Time) error {
	return emit(ctx, tx, settledEvents(o, at)...)
}

const eventColumns = `e.seq, e.tx, e.id, e.at, e.type, e.account_id, e.order_seq, o.id, e.data`

// Events returns up to limit events of the stream after pos, in stream
// order. On PostgreSQL it reads only events of transactions older than
// every transaction still open, so that an event committed later can never
// land behind a position already read (seq is taken at insert, but
// transactions commit in any order); on SQLite one writer commits events in
// seq order.
func (s *Store) Events(ctx context.Context, after topupd.StreamPos, limit int) ([]topupd.Event, error) {
	return readAll(ctx, s, "store.Events", scanEvent, s.q.streamRead, after.Tx, after.Seq, limit)
}

// OrderStreamEvents returns an order's events of the stream, in stream order.
func (s *Store) OrderStreamEvents(ctx context.Context, seq int64) ([]topupd.Event, error) {
	out, err := queryAll(ctx, s.read, scanEvent, `SELECT `+eventColumns+` FROM events e LEFT JOIN orders o ON o.seq = e.order_seq
		WHERE e.order_seq = $1 ORDER BY e.tx, e.seq`, seq)
	if err != nil {
		return nil, fmt.Errorf("store.OrderStreamEvents %d: %w", seq, err)
	}
	return out, nil
}

func scanEvent(row scanner) (topupd.Event, error) {
	var e topupd.Event
	var at int64
	var typ string
	var account, orderID sql.NullString
	var order sql.NullInt64
	var data []byte
	if err := row.Scan(&e.Pos.Seq, &e.Pos.Tx, &e.ID, &at, &typ, &account, &order, &orderID, &data); err != nil {
		return e, err
	}
	e.At, e.Type, e.AccountID, e.OrderSeq, e.OrderID = fromMS(at), topupd.EventType(typ), account.String, order.Int64, orderID.String
	var err error
	e.Data, err = topupd.DecodeEventData(e.Type, data)
	return e, err
}

// streamEnd is the position of the newest event the transaction sees.
// Settled keeps to what a reader of the stream may read (Events): every
// event after that position is one a reader has yet to be handed, so a
// consumer starting there misses none; without it, the newest committed
// event, before which a chat linked now hears of nothing (on PostgreSQL a
// transaction open now may still commit an event behind it: a change made
// as the chat is linked).
func (s *Store) streamEnd(ctx context.Context, tx *sql.Tx, settled bool) (topupd.StreamPos, error) {
	var end topupd.StreamPos
	cond := ""
	if settled {
		cond = s.d.StreamSettled
	}
	err := tx.QueryRowContext(ctx, `SELECT e.tx, e.seq FROM events e WHERE TRUE`+cond+` ORDER BY e.tx DESC, e.seq DESC LIMIT 1`).
		Scan(&end.Tx, &end.Seq)
	if isNoRows(err) {
		err = nil
	}
	return end, err
}

// TakeConsumer takes or renews a stream consumer's lease for owner until
// until, unless another owner's lease runs past now, and answers where the
// consumer stands. A consumer new to the database starts at the end of the
// stream: what happened before it existed is not its to handle.
func (s *Store) TakeConsumer(ctx context.Context, name, owner string, now, until time.Time) (topupd.StreamPos, bool, error) {
	var pos topupd.StreamPos
	got := false
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		got = false
		end, err := s.streamEnd(ctx, tx, true)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO event_consumers (name, after_tx, after_seq) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
			name, end.Tx, end.Seq); err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, `UPDATE event_consumers SET lease_owner = $2, lease_until = $4
			WHERE name = $1 AND (lease_owner = $2 OR lease_owner IS NULL OR lease_until <= $3) RETURNING after_tx, after_seq`,
			name, owner, ms(now), ms(until)).Scan(&pos.Tx, &pos.Seq)
		if isNoRows(err) {
			return nil
		}
		got = err == nil
		return err
	})
	if err != nil {
		return pos, false, fmt.Errorf("store.TakeConsumer %s: %w", name, err)
	}
	return pos, got, nil
}

// AdvanceConsumer moves a consumer's cursor on to pos, if owner still
// holds its lease (EConflict otherwise: another node took over, and the
// events from the old cursor are its to handle).
func (s *Store) AdvanceConsumer(ctx context.Context, name, owner string, pos topupd.StreamPos) error {
	n, err := s.retryExec(ctx, `UPDATE event_consumers SET after_tx = $3, after_seq = $4
		WHERE name = $1 AND lease_owner = $2 AND (after_tx, after_seq) <= ($3, $4)`, name, owner, pos.Tx, pos.Seq)
	if err == nil && n == 0 {
		err = topupd.Errorf(topupd.EConflict, "consumer %s is no longer leased to %s", name, owner)
	}
	if err != nil {
		return fmt.Errorf("store.AdvanceConsumer %s: %w", name, err)
	}
	return nil
}

// ReleaseConsumer gives a consumer's lease up if owner holds it.
func (s *Store) ReleaseConsumer(ctx context.Context, name, owner string) error {
	_, err := s.retryExec(ctx, `UPDATE event_consumers SET lease_owner = NULL, lease_until = 0 WHERE name = $1 AND lease_owner = $2`, name, owner)
	if err != nil {
		return fmt.Errorf("store.ReleaseConsumer %s: %w", name, err)
	}
	return nil
}

// StreamSettledUp reports whether Events hands out every event committed
// so far. On PostgreSQL an event waits while any transaction older than
// its own is open anywhere on the server (StreamSettled), another
// database's included; on SQLite none ever waits. The deterministic
// simulator waits on it before it concludes that every event was told.
func (s *Store) StreamSettledUp(ctx context.Context) (bool, error) {
	if s.d.StreamSettled == "" {
		return true, nil
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return false, fmt.Errorf("store.StreamSettledUp: %w", err)
	}
	defer tx.Rollback()
	all, err := s.streamEnd(ctx, tx, false)
	if err != nil {
		return false, fmt.Errorf("store.StreamSettledUp: %w", err)
	}
	settled, err := s.streamEnd(ctx, tx, true)
	if err != nil {
		return false, fmt.Errorf("store.StreamSettledUp: %w", err)
	}
	return all == settled, nil
}
