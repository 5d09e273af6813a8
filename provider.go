package topupd

import (
	"context"
	"errors"
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

// String names the state as the log and the metrics do.
func (s OutcomeState) String() string {
	switch s {
	case OutcomePending:
		return "pending"
	case OutcomeCompleted:
		return "completed"
	case OutcomeFailed:
		return "failed"
	case OutcomeNotFound:
		return "not-found"
	}
	return "unknown"
}

// Outcome is a supplier's answer about one order.
type Outcome struct {
	State   OutcomeState
	Codes   []string
	Message string
	// RetryAt, for a pending order, is when to ask again; zero lets the engine choose.
	RetryAt time.Time
	// SupplierRef, when set, is the supplier's own id of the order, kept for
	// later status calls.
	SupplierRef string
}

// ErrNeedsOperator marks a transient supplier error that only the operator
// can clear (our balance or our key at the supplier): the engine retries it
// until the deadline and raises an alert in the log and the admin API.
var ErrNeedsOperator = errors.New("the supplier needs the operator")

// Health is how a supplier has been answering.
type Health struct {
	Provider    string
	Upstream    string
	LastSuccess time.Time
	LastError   time.Time
	// LastErrorMessage is the newest error; Alert is set while it needs the operator.
	LastErrorMessage string
	Alert            bool
	// Calls and Errors count the most recent calls (a bounded window).
	Calls  int
	Errors int
}

// ErrorRate is the share of the recent calls that failed, from 0 to 1.
func (h Health) ErrorRate() float64 {
	if h.Calls == 0 {
		return 0
	}
	return float64(h.Errors) / float64(h.Calls)
}

// Provider is what a kind of supplier implements (see the glossary in the
// package doc): the calls that fulfil an order. Every call carries the order,
// whose own id is the supplier's reference, so that a retried Submit can
// never buy twice.
type Provider interface {
	// Submit hands the order to the supplier.
	Submit(ctx context.Context, o *Order) (Outcome, error)
	// Status asks the supplier how the order stands.
	Status(ctx context.Context, o *Order) (Outcome, error)
}
