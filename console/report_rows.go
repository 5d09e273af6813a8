package console

import (
	"context"
	"net/url"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// reportRow is one row of a sales report as the console shows it: its
// figures, and what its key names in words with a link to it.
type reportRow struct {
	topupd.SalesRow
	// Name is what the key names (an account's name, a line's product, a
	// pack's name); "" when there is none to show, or the key says it.
	Name string
	// Link is the key's page; "" when it has none.
	Link string
}

// Pending is what the row's orders were charged and neither completed nor
// refunded (orders processing, mostly): Net is Revenue plus Pending.
func (r reportRow) Pending() topupd.Money { return r.Net() - r.Revenue }

// CostKnown reports whether the row's completed orders have a cost on
// the books: a row whose completed orders cost nothing has none (a pack
// without a cost), and its margin would be its whole revenue.
func (r reportRow) CostKnown() bool { return r.Completed == 0 || r.Cost > 0 }

// namedRows gives each row of a report the name and page of its key.
func (c *Console) namedRows(ctx context.Context, s *session, rep service.SalesReport) ([]reportRow, error) {
	names, links := map[string]string{}, map[string]string{}
	switch rep.By {
	case topupd.ByAccount:
		ids := make([]string, len(rep.Rows))
		for i, r := range rep.Rows {
			ids[i], links[r.Key] = r.Key, "/console/accounts/"+url.PathEscape(r.Key)
		}
		var err error
		if names, err = c.Service.AccountNames(ctx, s.actor, ids); err != nil { // names only, no balances
			return nil, err
		}
	case topupd.ByLine:
		lines, err := c.Service.Lines(ctx, s.actor)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			names[l.Slug] = l.ProductName
		}
	case topupd.ByPack:
		packs, err := c.Service.Packs(ctx, s.actor)
		if err != nil {
			return nil, err
		}
		for _, p := range packs {
			names[p.PID], links[p.PID] = p.Name, "/console/orders?pid="+url.QueryEscape(p.PID)
		}
	}
	rows := make([]reportRow, len(rep.Rows))
	for i, r := range rep.Rows {
		rows[i] = reportRow{SalesRow: r, Name: names[r.Key], Link: links[r.Key]}
	}
	return rows, nil
}

// costless sums the completed orders of [from, to) whose pack had no
// cost on the books (their cost is 0, so their margin would be their whole
// revenue): how many there are and their revenue. It reads the report by
// pack, whose rows' costs are their packs'.
func (c *Console) costless(ctx context.Context, s *session, from, to time.Time) (orders int64, revenue topupd.Money, err error) {
	rep, err := c.Service.SalesReport(ctx, s.actor, from, to, topupd.ByPack)
	if err != nil {
		return 0, 0, err
	}
	orders, revenue = costlessRows(rep.Rows)
	return orders, revenue, nil
}

// costlessRows sums the rows of a report by pack whose completed orders
// cost nothing: how many completed orders they hold, and their revenue.
func costlessRows(rows []topupd.SalesRow) (orders int64, revenue topupd.Money) {
	for _, r := range rows {
		if r.Completed > 0 && r.Cost == 0 {
			orders, revenue = orders+r.Completed, revenue+r.Revenue
		}
	}
	return orders, revenue
}
