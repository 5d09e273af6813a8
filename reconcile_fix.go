package topupd

import (
	"context"
	"time"
	"unicode/utf8"
)

// Fixing a reconciliation's mismatches (back-office.md, section 2): each
// is resolved once, by one of four actions, with a note.

// The actions that resolve a mismatch.
const (
	// FixAccept records the note alone.
	FixAccept = "accept"
	// FixCompleteOrder completes our processing order as its supplier's
	// completion, at their charge.
	FixCompleteOrder = "complete-order"
	// FixRefundReseller refunds the charge of our completed order that
	// the supplier did not deliver; the order stays completed.
	FixRefundReseller = "refund-reseller"
	// FixRecordCost makes their charge our completed order's cost.
	FixRecordCost = "record-cost"
)

// The states of a mismatch.
const (
	MismatchOpen     = "open"
	MismatchResolved = "resolved"
)

// MaxFixNote bounds a resolution's note, in characters.
const MaxFixNote = 1000

// Resolution is how a mismatch was resolved.
type Resolution struct {
	Action, Note, Operator string
	At                     time.Time
	// EntryID is the ledger entry a refund-reseller wrote (0 for none).
	EntryID int64
	// Cost is the cost a record-cost or a complete-order fixed.
	Cost *Money
}

// Fix is an operator's resolution of a mismatch, to make or, with
// Preview, to tell the effect of.
type Fix struct {
	Action, Note string
	Preview      bool
	At           time.Time
	// Codes and SupplierRef are what the supplier answered for the order,
	// read before a complete-order.
	Codes       []string
	SupplierRef string
}

// CheckFix refuses an unknown action or a note that is empty or longer
// than MaxFixNote characters (INVALID_BODY).
func CheckFix(action, note string) error {
	switch action {
	case FixAccept, FixCompleteOrder, FixRefundReseller, FixRecordCost:
	default:
		return Errorf(EInvalidBody, "action: one of accept, complete-order, refund-reseller, record-cost")
	}
	if n := utf8.RuneCountInString(note); n == 0 || n > MaxFixNote || !utf8.ValidString(note) {
		return Errorf(EInvalidBody, "note: 1 to %d characters", MaxFixNote)
	}
	return nil
}

// FixEffect is what a fix does, or would: the refund and the balance
// after it, the order's status, the cost it fixes.
type FixEffect struct {
	Refund, BalanceAfter, Cost *Money
	OrderStatus                OrderStatus
}

// FixTarget is our order of a mismatch as a fix finds it, locked.
type FixTarget struct {
	ID       string
	Status   OrderStatus
	Provider string
	Upstream string
	Amount   Money
	// Refunded tells that a refund returned its charge already.
	Refunded bool
}

// FixApplies says whether an action applies to a mismatch of a
// reconciliation with supplier, our order being o (nil when it names
// none): ACTION_NOT_APPLICABLE says why not.
func FixApplies(action string, m *Mismatch, supplier string, o *FixTarget) error {
	no := func(format string, args ...any) error { return Errorf(EActionNotApplicable, format, args...) }
	if action == FixAccept {
		return nil
	}
	if o == nil {
		return no("%s: mismatch %d names no order of ours", action, m.ID)
	}
	switch action {
	case FixCompleteOrder:
		switch {
		case o.Status != StatusProcessing:
			return no("complete-order: order %s is %s, not processing", o.ID, o.Status)
		case o.Provider != ProviderUpstream || o.Upstream != supplier:
			return no("complete-order: order %s is no longer at %s", o.ID, supplier)
		case m.Theirs == nil || *m.Theirs < 0:
			return no("complete-order: %s charged nothing for order %s", supplier, o.ID)
		}
	case FixRefundReseller:
		switch {
		case o.Status != StatusCompleted:
			return no("refund-reseller: order %s is %s, not completed", o.ID, o.Status)
		case m.Kind != MismatchMissingUpstream && (m.Kind != MismatchStatus || m.TheirStatus != StatusCancelled):
			return no("refund-reseller: %s did not say it failed to deliver order %s (a %s)", supplier, o.ID, m.Kind)
		case o.Refunded:
			return no("refund-reseller: order %s was refunded already", o.ID)
		}
	case FixRecordCost:
		switch {
		case m.Kind != MismatchCost && m.Kind != MismatchDuplicate:
			return no("record-cost: a %s has no cost to record", m.Kind)
		case o.Status != StatusCompleted:
			return no("record-cost: order %s is %s: only a completed order has a cost", o.ID, o.Status)
		case m.Theirs == nil || *m.Theirs < 0:
			return no("record-cost: %s charged less than nothing for order %s", supplier, o.ID)
		}
	default:
		return Errorf(EInvalidBody, "action: unknown %q", action)
	}
	return nil
}

// SupplierOrders reads one of our orders from its upstream without
// placing it (the upstream provider implements it): by its SupplierRef
// when known, else by its reference. Its errors are UPSTREAM_REFUSED and
// UPSTREAM_UNREACHABLE; an order it does not know is OutcomeNotFound.
type SupplierOrders interface {
	ReadOrder(ctx context.Context, o *Order) (Outcome, error)
}
