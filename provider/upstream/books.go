package upstream

import (
	"context"
	"errors"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// booksTimeout bounds a pull of a supplier's books, every call together.
const booksTimeout = 2 * time.Minute

// historyPageSize is the page of GET /history a pull reads (its maximum).
const historyPageSize = 50

// Books reads our account's books at u over a period
// (topupd.SupplierBooks): its statement's charges and refunds (each a line
// with its trxid and the upstream's order id) and balances at the
// period's edges, and the statuses of its orders from GET /history back
// to the period's start. Each of ours (references of our orders in the
// period) that these do not list is looked up by trxid beyond the period.
// A failure is UPSTREAM_REFUSED (an answer, not the books: detail says
// its status and code) or UPSTREAM_UNREACHABLE.
func (p *Provider) Books(ctx context.Context, u topupd.Upstream, period topupd.ReconPeriod, ours []string) (topupd.SupplierStatement, error) {
	ctx, cancel := context.WithTimeout(ctx, booksTimeout)
	defer cancel()
	c, err := client.New(u.BaseURL, u.APIKey, client.WithRetries(2), client.WithHTTPClient(routed(p.hc, p.instance)),
		client.WithUserAgent("topupd-upstream/1"))
	if err != nil {
		return topupd.SupplierStatement{}, topupd.Errorf(topupd.EUpstreamUnreachable, "%v", err)
	}
	st, err := c.Statement(ctx, period.Start(), period.End())
	if err != nil {
		return topupd.SupplierStatement{}, booksFailure("the statement", err)
	}
	out := topupd.SupplierStatement{Opening: &st.OpeningBalanceUSD, Closing: &st.ClosingBalanceUSD}
	listed := map[string]bool{}
	for _, e := range st.Entries {
		if e.TrxID == "" || (e.Kind != "charge" && e.Kind != "refund") {
			continue
		}
		// A charge is negative on their statement of our account: what
		// they charged us is its opposite.
		out.Rows = append(out.Rows, topupd.TheirRow{Reference: e.TrxID, Amount: -topupd.Money(e.AmountUSD), Order: e.OrderID, At: e.At.UTC()})
		listed[e.TrxID] = true
	}
	for page := 1; ; page++ {
		hp, err := c.HistoryPage(ctx, page, historyPageSize)
		if err != nil {
			return topupd.SupplierStatement{}, booksFailure("the history", err)
		}
		done := len(hp.Orders) < historyPageSize
		for _, o := range hp.Orders {
			if !o.CreatedAt.IsZero() && o.CreatedAt.Before(period.Start()) {
				done = true
				continue
			}
			if o.TrxID == "" || o.CreatedAt.After(period.End()) && !listed[o.TrxID] {
				continue
			}
			out.Rows = append(out.Rows, statusRow(&o, false))
			listed[o.TrxID] = true
		}
		if done {
			break
		}
	}
	for _, ref := range ours {
		if listed[ref] {
			continue
		}
		found, err := c.History(ctx, client.HistoryQuery{TrxID: ref})
		if err != nil {
			return topupd.SupplierStatement{}, booksFailure("looking up "+ref, err)
		}
		for _, o := range found {
			row := statusRow(&o, true)
			if o.Status == client.StatusCompleted || o.Status == client.StatusProcessing {
				row.Amount = topupd.Money(o.AmountUSD) // charged, beyond the period
			}
			out.Rows = append(out.Rows, row)
		}
	}
	return out, nil
}

// statusRow is the line of one of their orders' status.
func statusRow(o *client.Order, beyond bool) topupd.TheirRow {
	st := topupd.StatusProcessing
	switch o.Status {
	case client.StatusCompleted:
		st = topupd.StatusCompleted
	case client.StatusCancelled:
		st = topupd.StatusCancelled
	}
	return topupd.TheirRow{Reference: o.TrxID, Status: st, Order: o.OrderID, At: o.CreatedAt.UTC(), Beyond: beyond}
}

// booksFailure is a failed pull: UPSTREAM_REFUSED for an answer,
// UPSTREAM_UNREACHABLE for none.
func booksFailure(doing string, err error) error {
	if e, ok := client.AsError(err); ok && e.StatusCode != 0 {
		return topupd.Errorf(topupd.EUpstreamRefused, "%s: status %d, code %q", doing, e.StatusCode, e.Code)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return topupd.Errorf(topupd.EUpstreamUnreachable, "%s: no answer within %v", doing, booksTimeout)
	}
	return topupd.Errorf(topupd.EUpstreamUnreachable, "%s: %v", doing, err)
}
