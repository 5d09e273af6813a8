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

// Books folds our account's books at u over a period into into
// (topupd.SupplierBooks): its statement's charges and refunds (each a line
// with its trxid and the upstream's order id), the statuses of its orders
// from GET /history back to the period's start, and our balance there at
// the period's edges. A statement the upstream refuses whole (more entries
// than one may hold) is read a day at a time. A failure is
// UPSTREAM_REFUSED (an answer, not the books: detail says its status and
// code) or UPSTREAM_UNREACHABLE.
func (p *Provider) Books(ctx context.Context, u topupd.Upstream, period topupd.ReconPeriod, into *topupd.TheirBooks) (opening, closing *topupd.Money, err error) {
	ctx, cancel := context.WithTimeout(ctx, booksTimeout)
	defer cancel()
	c, err := p.booksClient(u)
	if err != nil {
		return nil, nil, err
	}
	if opening, closing, err = p.statement(ctx, c, period, into); err != nil {
		return nil, nil, err
	}
	for page := 1; ; page++ {
		hp, err := c.HistoryPage(ctx, page, historyPageSize)
		if err != nil {
			return nil, nil, booksFailure("the history", err)
		}
		done := len(hp.Orders) < historyPageSize
		for _, o := range hp.Orders {
			if !o.CreatedAt.IsZero() && o.CreatedAt.Before(period.Start()) {
				done = true
				continue
			}
			if o.TrxID == "" || o.CreatedAt.After(period.End()) && !into.Lists(o.TrxID) {
				continue
			}
			into.Add(statusRow(&o, false))
		}
		if done {
			break
		}
	}
	return opening, closing, nil
}

// statement folds the period's statement into into: whole, or a day at a
// time when the upstream refuses it whole.
func (p *Provider) statement(ctx context.Context, c *client.Client, period topupd.ReconPeriod, into *topupd.TheirBooks) (opening, closing *topupd.Money, err error) {
	spans := [][2]time.Time{{period.Start(), period.End()}}
	st, err := c.Statement(ctx, period.Start(), period.End())
	if e, ok := client.AsError(err); ok && e.StatusCode == 400 {
		spans = nil
		for day := period.Start(); day.Before(period.End()); day = day.AddDate(0, 0, 1) {
			spans = append(spans, [2]time.Time{day, day.AddDate(0, 0, 1)})
		}
	} else if err != nil {
		return nil, nil, booksFailure("the statement", err)
	}
	for i, span := range spans {
		if len(spans) > 1 {
			if st, err = c.Statement(ctx, span[0], span[1]); err != nil {
				return nil, nil, booksFailure("the statement of "+span[0].Format(time.DateOnly), err)
			}
		}
		if i == 0 {
			opening = &st.OpeningBalanceUSD
		}
		closing = &st.ClosingBalanceUSD
		for _, e := range st.Entries {
			if e.TrxID == "" || (e.Kind != "charge" && e.Kind != "refund") {
				continue
			}
			// A charge is negative on their statement of our account: what
			// they charged us is its opposite.
			into.Add(topupd.TheirRow{Reference: e.TrxID, Amount: -topupd.Money(e.AmountUSD), Order: e.OrderID, At: e.At.UTC()})
		}
	}
	return opening, closing, nil
}

// Lookup folds into into what u says of each reference, by trxid, beyond
// any period (topupd.SupplierBooks): a completed or processing order is a
// line of its charge.
func (p *Provider) Lookup(ctx context.Context, u topupd.Upstream, refs []string, into *topupd.TheirBooks) error {
	ctx, cancel := context.WithTimeout(ctx, booksTimeout)
	defer cancel()
	c, err := p.booksClient(u)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		found, err := c.History(ctx, client.HistoryQuery{TrxID: ref})
		if err != nil {
			return booksFailure("looking up "+ref, err)
		}
		for _, o := range found {
			row := statusRow(&o, true)
			if o.Status == client.StatusCompleted || o.Status == client.StatusProcessing {
				row.Amount = topupd.Money(o.AmountUSD) // charged, beyond the period
			}
			into.Add(row)
		}
	}
	return nil
}

// booksClient is the client of a pull from u.
func (p *Provider) booksClient(u topupd.Upstream) (*client.Client, error) {
	c, err := client.New(u.BaseURL, u.APIKey, client.WithRetries(2), client.WithHTTPClient(routed(p.hc, p.instance)),
		client.WithUserAgent("topupd-upstream/1"))
	if err != nil {
		return nil, topupd.Errorf(topupd.EUpstreamUnreachable, "%v", err)
	}
	return c, nil
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
