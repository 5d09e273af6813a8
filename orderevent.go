package topupd

import "time"

// OrderEvent is one step of an order's history: a supplier attempt, a
// retry, an operator's decision, or its final state.
type OrderEvent struct {
	At   time.Time
	Kind string
	Note string
}

// The kinds of order event. The store records submitting, retry, retried,
// completed and cancelled as they happen; placed, and the final state of
// an order settled without a settlement (a key order completed from stock
// when placed), come from the order itself (OrderHistory).
const (
	// EventPlaced: the order was placed.
	EventPlaced = "placed"
	// EventSubmitting: a submit to the supplier started; the note names the
	// provider and its upstream, if any.
	EventSubmitting = "submitting"
	// EventRetry: a supplier call left the order processing (pending, an
	// error, or an alert); the note says why.
	EventRetry = "retry"
	// EventRetried: an operator made the order due again.
	EventRetried = "retried"
	// EventCompleted: the order completed.
	EventCompleted = "completed"
	// EventCancelled: the order was cancelled; the note is its error.
	EventCancelled = "cancelled"
)

// NoteSupplierPending is the note of the retry event of a supplier's
// pending answer; the supplier's own message, if any, follows it.
const NoteSupplierPending = "the supplier says pending"

// MaxEventNote is the longest note an order event keeps, in bytes; a
// longer one (a supplier's error page, say) is cut at a character boundary.
const MaxEventNote = 500

// EventNote cuts a note to MaxEventNote bytes without splitting a character.
func EventNote(s string) string {
	if len(s) <= MaxEventNote {
		return s
	}
	cut := MaxEventNote
	for cut > 0 && !runeStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// runeStart reports whether b begins a UTF-8 encoded character.
func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// OrderHistory is the whole story of an order, oldest first: placed at its
// creation, then the recorded events (oldest first, as the store returns
// them), then, for a final order none of whose events records its end (one
// settled before events were recorded, or a key order completed from stock
// as it was placed), its final state at FinishedAt with its error.
func OrderHistory(o *Order, events []OrderEvent) []OrderEvent {
	out := make([]OrderEvent, 0, len(events)+2)
	out = append(out, OrderEvent{At: o.CreatedAt, Kind: EventPlaced})
	ended := false
	for _, e := range events {
		out = append(out, e)
		ended = ended || e.Kind == EventCompleted || e.Kind == EventCancelled
	}
	if o.Status.Final() && !ended {
		out = append(out, OrderEvent{At: o.FinishedAt, Kind: string(o.Status), Note: o.Error})
	}
	return out
}
