package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// newSalesRow shows a row of the store's report.
func newSalesRow(r *topupd.SalesRow) client.SalesRow {
	return client.SalesRow{Key: r.Key, Orders: r.Orders, Completed: r.Completed, Cancelled: r.Cancelled, Processing: r.Processing,
		RevenueUSD: r.Revenue, RefundsUSD: r.Refunds, NetUSD: r.Net(), CostUSD: r.Cost, MarginUSD: r.Margin(),
		RevenueWithoutCostUSD: r.RevenueWithoutCost}
}

// salesAnswer is a sales report with its total.
type salesAnswer struct {
	Success bool `json:"success"`
	client.SalesReport
}

// salesReport answers the sales of orders created in [from, to), grouped by
// groupBy (day when absent), with their total, in JSON or, with
// format=csv, as text/csv: the same rows, columns and numbers, the total
// last.
func (a *admin) salesReport(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	from, to, csvOut, err := reportQuery(v, "from", "to", "groupBy", "format")
	if err != nil {
		return err
	}
	report, err := a.Service.SalesReport(r.Context(), a.actor(r), from, to, topupd.SalesGroup(v.Get("groupBy")))
	if err != nil {
		return err
	}
	if csvOut {
		return writeCSV(w, "sales-by-"+string(report.By)+".csv", report.CSV())
	}
	writeJSON(w, http.StatusOK, salesAnswer{Success: true, SalesReport: client.SalesReport{From: report.From.UTC(), To: report.To.UTC(),
		GroupBy: string(report.By), Rows: viewEach(report.Rows, newSalesRow), Total: newSalesRow(&report.Total)}})
	return nil
}

// durationLine is how long one line's orders took to a final state, as the
// API shows it: a percentile past the last bucket edge is null.
type durationLine struct {
	Slug   string `json:"slug"`
	Orders int64  `json:"orders"`
	P50Ms  *int64 `json:"p50Ms"`
	P95Ms  *int64 `json:"p95Ms"`
}

// durationsAnswer is the durations report: from and to are the whole days
// read.
type durationsAnswer struct {
	Success bool           `json:"success"`
	From    string         `json:"from"`
	To      string         `json:"to"`
	Lines   []durationLine `json:"lines"`
}

// durationMs spells an upper bound of a percentile in milliseconds, null
// when it is past the last bucket edge.
func durationMs(d time.Duration) *int64 {
	if d == topupd.DurationOverflow {
		return nil
	}
	ms := d.Milliseconds()
	return &ms
}

// durationsReport answers, per line, how many orders created on the whole
// UTC days that [from, to) touches reached a final state, and upper bounds
// of the median and 95th percentile of their time from placed to final.
func (a *admin) durationsReport(w http.ResponseWriter, r *http.Request) error {
	from, to, err := spanQuery(r.URL.Query(), "from", "to")
	if err != nil {
		return err
	}
	rep, err := a.Service.Durations(r.Context(), a.actor(r), from, to)
	if err != nil {
		return err
	}
	lines := make([]durationLine, len(rep.Lines))
	for i, row := range rep.Lines {
		lines[i] = durationLine{Slug: row.Slug, Orders: row.Orders, P50Ms: durationMs(row.P50), P95Ms: durationMs(row.P95)}
	}
	writeJSON(w, http.StatusOK, durationsAnswer{Success: true, From: rfc3339(rep.From), To: rfc3339(rep.To), Lines: lines})
	return nil
}
