// Package manual is the supplier for packs an operator fulfils by hand: its
// orders stay processing until the operator completes or cancels them
// through the admin API. The operator may already have delivered by hand, so
// past its deadline an order is not refunded: it stays processing with an
// alert (GET /admin/orders/stuck) until the operator decides.
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

// Status is pending: the operator decides.
func (Provider) Status(_ context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return topupd.Outcome{State: topupd.OutcomePending, RetryAt: o.DeadlineAt}, nil
}
