package upstream

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// historyLookup is how many of the upstream account's newest orders Status
// searches for the trxid past the deadline (GET /history's maximum).
const historyLookup = 200

// Submit places the order upstream under its derived trxid; a repeat is
// answered with the same upstream order.
func (p *Provider) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	ctx = topupd.WithRoute(ctx, o.Route)
	c, err := p.clientFor(ctx, o)
	if err != nil {
		return topupd.Outcome{}, err
	}
	return p.place(ctx, c, o)
}

// Status asks the upstream how the order stands: by its SupplierRef when
// known, otherwise by placing it again (see the package documentation).
func (p *Provider) Status(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	ctx = topupd.WithRoute(ctx, o.Route)
	c, err := p.clientFor(ctx, o)
	if err != nil {
		return topupd.Outcome{}, err
	}
	switch {
	case o.SupplierRef != "":
		uo, err := c.Order(ctx, o.SupplierRef)
		if err != nil {
			if e, ok := client.AsError(err); ok && e.StatusCode == 404 && client.IsCode(err, client.CodeOrderNotFound) {
				return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
			}
			return topupd.Outcome{}, readFailure(o.Upstream, "reading order "+o.SupplierRef, err)
		}
		return p.outcome(o, uo)
	case !o.DeadlineAt.IsZero() && !p.now().Before(o.DeadlineAt):
		return p.lookup(ctx, c, o)
	default:
		return p.place(ctx, c, o)
	}
}

// place sends the order's POST /orders, identical every time.
func (p *Provider) place(ctx context.Context, c *client.Client, o *topupd.Order) (topupd.Outcome, error) {
	uo, err := c.PlaceOrder(ctx, orderRequest(o))
	if err != nil {
		return placeFailure(o.Upstream, err)
	}
	return p.outcome(o, uo)
}

// lookup finds the order among the upstream account's newest orders without
// placing it. OutcomeNotFound, which lets the order be refunded, is said
// only when those are all of the account's orders; past them the answer is
// unknown, an error, and the order waits for the operator.
func (p *Provider) lookup(ctx context.Context, c *client.Client, o *topupd.Order) (topupd.Outcome, error) {
	orders, err := c.History(ctx, client.HistoryQuery{Limit: historyLookup})
	if err != nil {
		return topupd.Outcome{}, readFailure(o.Upstream, "reading the order history", err)
	}
	trx := topupd.UpstreamTrxID(o)
	for i := range orders {
		if orders[i].TrxID == trx {
			return p.outcome(o, &orders[i])
		}
	}
	if len(orders) >= historyLookup {
		return topupd.Outcome{}, needsOperator(o.Upstream, fmt.Sprintf("order %s is not among the upstream account's newest %d orders; whether it was placed is unknown",
			trx, historyLookup), nil)
	}
	return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
}

// orderRequest is the upstream POST /orders body of an order. It carries no
// idempotencyKey: the derived trxid is the key.
func orderRequest(o *topupd.Order) client.OrderRequest {
	req := client.OrderRequest{
		PID:      o.UpstreamPID,
		TrxID:    topupd.UpstreamTrxID(o),
		UserID:   o.Fields.UserID,
		ZoneID:   o.Fields.ZoneID,
		ServerID: o.Fields.ServerID,
		Region:   o.Fields.Region,
		MoreID:   o.Fields.MoreID,
	}
	if expectsCodes(o) {
		req.Quantity = max(o.Quantity, 1)
	}
	return req
}

// expectsCodes reports whether the order is for codes, one per unit: key
// and card orders, and any order of more than one.
func expectsCodes(o *topupd.Order) bool {
	return o.Kind == topupd.KindGamekey || o.Kind == topupd.KindGiftcard || o.Quantity > 1
}
