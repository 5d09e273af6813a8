package topupd

import (
	"context"
	"time"
)

// OutcomeState is what a supplier says of an order.
type OutcomeState int

// The outcomes of one supplier call. A transient failure, or a call whose
// outcome is unknown, is returned as an error instead.
const (
	// OutcomePending: the supplier has the order and is still working.
	OutcomePending OutcomeState = iota + 1
	// OutcomeCompleted: delivered; Codes holds any codes.
	OutcomeCompleted
	// OutcomeFailed: failed for good; Message says why.
	OutcomeFailed
	// OutcomeNotFound: (Status only) the supplier never received the order,
	// so it is safe to submit it.
	OutcomeNotFound
)

// Outcome is a supplier's answer about one order.
type Outcome struct {
	State   OutcomeState
	Codes   []string
	Message string
	// RetryAt, for a pending order, is when to ask again; zero lets the engine choose.
	RetryAt time.Time
}

// Provider is a supplier that fulfils orders. Every call carries the order,
// whose own id is the supplier's reference, so that a retried Submit can
// never buy twice.
type Provider interface {
	// Submit hands the order to the supplier.
	Submit(ctx context.Context, o *Order) (Outcome, error)
	// Status asks the supplier how the order stands.
	Status(ctx context.Context, o *Order) (Outcome, error)
}
