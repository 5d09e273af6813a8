package topupd

import (
	"context"
	"errors"
	"time"
)

// AttemptOutcome is how far trying one supplier of an order has got.
type AttemptOutcome string

// The outcomes of a supplier attempt. Only AttemptTrying, AttemptCompleted
// and AttemptCancelled ever held the order, and an order has at most one
// of them: it moves to its next supplier only when the current one surely
// has no order.
const (
	// AttemptWaiting: the supplier was not reached (yet).
	AttemptWaiting AttemptOutcome = "waiting"
	// AttemptTrying: the order's current supplier.
	AttemptTrying AttemptOutcome = "trying"
	// AttemptSkipped: passed over without a call, as it was unhealthy.
	AttemptSkipped AttemptOutcome = "skipped"
	// AttemptRefused: the supplier refused the order at submit; it holds none.
	AttemptRefused AttemptOutcome = "refused"
	// AttemptNotFound: a status lookup found no order there, so the order moved on.
	AttemptNotFound AttemptOutcome = "not-found"
	// AttemptCompleted: the order completed while this supplier was current.
	AttemptCompleted AttemptOutcome = "completed"
	// AttemptCancelled: the order was cancelled while this supplier was current.
	AttemptCancelled AttemptOutcome = "cancelled"
)

// SupplierAttempt is one supplier of an order's supplier list, as the pack
// listed it when the order was placed, and how trying it went.
type SupplierAttempt struct {
	// Attempt is the supplier's place in the list, from 1.
	Attempt int
	// Supplier is the supplier; its Cost is its own cost of one unit, 0
	// when it has none (the pack's applies).
	Supplier
	Outcome AttemptOutcome
	// Why says why the supplier was left, or how the order ended there.
	Why string
	// StartedAt is when it became the order's supplier; FinishedAt when it
	// stopped being it. Zero when not (yet).
	StartedAt, FinishedAt time.Time
}

// SupplierMove moves a processing order from its current supplier to a
// later one of its list, in one transaction.
type SupplierMove struct {
	// LeaseOwner must hold the order's lease; the move renews it until
	// LeaseUntil, for the calls to the next supplier.
	LeaseOwner string
	LeaseUntil time.Time
	// From is the attempt the order is on, which must still be trying; it
	// ends as Outcome (refused, not-found or skipped) with Why.
	From    int
	Outcome AttemptOutcome
	Why     string
	// To is the attempt the order moves to, after From; the ones between
	// are skipped, with SkipWhy.
	To      int
	SkipWhy string
	Now     time.Time
}

// FailoverStore keeps the supplier attempts of orders whose pack lists
// suppliers.
type FailoverStore interface {
	// SupplierAttempts returns an order's attempts (by internal id), by
	// place in its list; none when its pack listed no suppliers.
	SupplierAttempts(ctx context.Context, seq int64) ([]SupplierAttempt, error)
	// MoveSupplier ends the order's current attempt and makes a later one
	// current: the order then carries that supplier, as submitting, without
	// a supplier reference. A lost lease, or an attempt From that is no
	// longer current, is EConflict; a final order is EOrderFinal; nothing
	// changes then.
	MoveSupplier(ctx context.Context, seq int64, m SupplierMove) (Order, error)
}

// ErrSupplierRefused marks a supplier error on a submit that the supplier
// refused before taking the order (our balance there is too low, say): it
// surely holds no order, so the engine may move the order to its next
// supplier. It is wrapped together with ErrNeedsOperator when only the
// operator can clear the cause.
var ErrSupplierRefused = errors.New("the supplier refused the order and holds none")

// AttemptFunds is the money side of one supplier of an order: the known
// balance at its upstream (nil while unknown, or for a supplier that is
// not an upstream) and what the order costs there.
type AttemptFunds struct {
	// Attempt is the supplier's place in the order's list; 0 for an order
	// whose pack lists no suppliers (its one supplier).
	Attempt  int
	Upstream string
	Balance  *Money
	Cost     Money
	Outcome  AttemptOutcome
	Why      string
}

// Park leaves an order that no supplier can take for want of money
// waiting for funds: its current attempt (From, 0 for an order without a
// list) ends as Outcome with Why, the order holds no supplier (it is
// submitted afresh when it resumes), carries AlertWaitingFunds, and falls
// due again at Until (its deadline, or earlier when a read wakes it).
type Park struct {
	LeaseOwner string
	From       int
	Outcome    AttemptOutcome
	Why        string
	Until, Now time.Time
}

// Resume sends a parked order to the supplier of attempt To (0 for an
// order without a list), one left for the money, and renews the lease
// until LeaseUntil for the submit to come.
type Resume struct {
	LeaseOwner string
	LeaseUntil time.Time
	To         int
	Now        time.Time
}

// FundsRouting is what the engine needs of the store to keep orders away
// from suppliers that cannot cover them.
type FundsRouting interface {
	// SupplierFunds returns each supplier of an order with its balance and
	// the order's cost there, by place in the list (one, Attempt 0, for an
	// order without a list).
	SupplierFunds(ctx context.Context, seq int64) ([]AttemptFunds, error)
	// ParkOrder parks a processing order leased to p.LeaseOwner that no
	// supplier holds: EConflict when it is not leased to it, or its
	// supplier has it; EOrderFinal when it is final.
	ParkOrder(ctx context.Context, seq int64, p Park) (Order, error)
	// ResumeOrder sends a parked order to a supplier left for the money:
	// EConflict unless it is parked, leased to r.LeaseOwner, and attempt
	// r.To was left for the money.
	ResumeOrder(ctx context.Context, seq int64, r Resume) (Order, error)
	// RecordSupplierDry records an INSUFFICIENT BALANCE answer of an
	// upstream at at: its known balance is 0 until the next read.
	RecordSupplierDry(ctx context.Context, name string, at time.Time) error
}
