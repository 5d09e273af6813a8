// Package manual is the supplier for packs an operator fulfils by hand: its
// orders stay processing until the operator completes or cancels them
// through the admin API (or their deadline passes).
package manual

import (
	"context"

	"github.com/topupd/topupd"
)

// Provider is the manual supplier.
type Provider struct{}

// New returns the manual provider.
func New() Provider { return Provider{} }

// Submit accepts the order and leaves it to the operator.
func (Provider) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return Provider{}.Status(ctx, o)
}

// Status is pending until the order's deadline: the operator decides.
func (Provider) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return topupd.Outcome{State: topupd.OutcomePending, RetryAt: o.DeadlineAt}, nil
}
