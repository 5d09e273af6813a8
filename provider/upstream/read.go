package upstream

import (
	"context"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// ReadOrder reads one of our orders at its upstream without placing it
// (topupd.SupplierOrders), as a reconciliation's complete-order does
// first: by its SupplierRef when known, else by its reference in GET
// /history?trxid=. An order the upstream does not know is
// OutcomeNotFound; a failure is UPSTREAM_REFUSED (an answer, or an order
// it answered wrongly: another trxid, codes missing) or
// UPSTREAM_UNREACHABLE.
func (p *Provider) ReadOrder(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	ctx = topupd.WithRoute(ctx, o.Route)
	c, err := p.clientFor(ctx, o)
	if err != nil {
		if topupd.CodeOf(err) != "" && topupd.CodeOf(err) != topupd.EInternal {
			return topupd.Outcome{}, err
		}
		return topupd.Outcome{}, topupd.Errorf(topupd.EUpstreamUnreachable, "%v", err)
	}
	var uo client.Order
	if o.SupplierRef != "" {
		got, err := c.Order(ctx, o.SupplierRef)
		if e, ok := client.AsError(err); ok && e.StatusCode == 404 && client.IsCode(err, client.CodeOrderNotFound) {
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		} else if err != nil {
			return topupd.Outcome{}, booksFailure("reading order "+o.SupplierRef, err)
		}
		uo = *got
	} else {
		ref := topupd.UpstreamTrxID(o)
		found, err := c.History(ctx, client.HistoryQuery{TrxID: ref})
		if err != nil {
			return topupd.Outcome{}, booksFailure("looking up "+ref, err)
		}
		if len(found) == 0 {
			return topupd.Outcome{State: topupd.OutcomeNotFound}, nil
		}
		uo = found[0]
	}
	out, err := p.outcome(o, &uo)
	if err != nil {
		return topupd.Outcome{}, topupd.Errorf(topupd.EUpstreamRefused, "%v", err)
	}
	return out, nil
}
