package console

import (
	"context"
	"net/url"

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

// WithoutCost reports whether some of the row's completed orders have no
// cost on the books: their charges (RevenueWithoutCost) are left out of
// its margin.
func (r reportRow) WithoutCost() bool { return r.RevenueWithoutCost > 0 }

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
