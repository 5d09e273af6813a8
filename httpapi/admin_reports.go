package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// maxReportSpan is the longest period one sales report covers: a year,
// leap or not.
const maxReportSpan = 366 * 24 * time.Hour

// salesRow is one row of a sales report as the API shows it.
type salesRow struct {
	Key        string       `json:"key"`
	Orders     int64        `json:"orders"`
	Completed  int64        `json:"completed"`
	Cancelled  int64        `json:"cancelled"`
	Processing int64        `json:"processing"`
	RevenueUsd topupd.Money `json:"revenueUsd"`
	RefundsUsd topupd.Money `json:"refundsUsd"`
	NetUsd     topupd.Money `json:"netUsd"`
	CostUsd    topupd.Money `json:"costUsd"`
	MarginUsd  topupd.Money `json:"marginUsd"`
}

// newSalesRow shows a row of the store's report.
func newSalesRow(r topupd.SalesRow) salesRow {
	return salesRow{Key: r.Key, Orders: r.Orders, Completed: r.Completed, Cancelled: r.Cancelled, Processing: r.Processing,
		RevenueUsd: r.Revenue, RefundsUsd: r.Refunds, NetUsd: r.Net(), CostUsd: r.Cost, MarginUsd: r.Margin()}
}

// salesReport answers the sales of orders created in [from, to), grouped by
// groupBy (day when absent), with their total, in JSON or, with
// format=csv, as text/csv.
func (a *admin) salesReport(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	if err := knownParams(v, "from", "to", "groupBy", "format"); err != nil {
		return err
	}
	from, to, err := reportSpan(v)
	if err != nil {
		return err
	}
	by := topupd.ByDay
	if g := v.Get("groupBy"); g != "" {
		if by, err = topupd.ParseSalesGroup(g); err != nil {
			return err
		}
	}
	csvOut, err := wantCSV(v)
	if err != nil {
		return err
	}
	report, err := a.Store.SalesReport(r.Context(), from, to, by)
	if err != nil {
		return err
	}
	rows := make([]salesRow, len(report))
	total := topupd.SalesRow{Key: "total"}
	for i, row := range report {
		rows[i] = newSalesRow(row)
		total.Add(row)
	}
	if csvOut {
		out := [][]string{{"key", "orders", "completed", "cancelled", "processing", "revenueUsd", "refundsUsd", "netUsd", "costUsd", "marginUsd"}}
		for _, row := range rows {
			out = append(out, []string{cell(row.Key), strconv.FormatInt(row.Orders, 10), strconv.FormatInt(row.Completed, 10),
				strconv.FormatInt(row.Cancelled, 10), strconv.FormatInt(row.Processing, 10),
				row.RevenueUsd.String(), row.RefundsUsd.String(), row.NetUsd.String(), row.CostUsd.String(), row.MarginUsd.String()})
		}
		return writeCSV(w, "sales-by-"+string(by)+".csv", out)
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "from": rfc3339(from), "to": rfc3339(to), "groupBy": by,
		"rows": rows, "total": newSalesRow(total)})
	return nil
}

// reportSpan reads a report's period: from and to, both required, from
// before to, at most maxReportSpan apart.
func reportSpan(v url.Values) (from, to time.Time, err error) {
	if from, to, err = parseSpan(v); err != nil {
		return from, to, err
	}
	switch {
	case from.IsZero() || to.IsZero():
		return from, to, topupd.Errorf(topupd.EInvalidRequest, "from and to: both are required")
	case !from.Before(to):
		return from, to, topupd.Errorf(topupd.EInvalidRequest, "from: must be before to")
	case to.Sub(from) > maxReportSpan:
		return from, to, topupd.Errorf(topupd.EInvalidRequest, "to: at most 366 days after from")
	}
	return from, to, nil
}

// durationLine is how long one line's orders took to a final state, as the
// API shows it: a percentile past the last bucket edge is null.
type durationLine struct {
	Slug   string `json:"slug"`
	Orders int64  `json:"orders"`
	P50Ms  *int64 `json:"p50Ms"`
	P95Ms  *int64 `json:"p95Ms"`
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
// from and to in the answer are the whole days read.
func (a *admin) durationsReport(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	if err := knownParams(v, "from", "to"); err != nil {
		return err
	}
	from, to, err := reportSpan(v)
	if err != nil {
		return err
	}
	rows, err := a.Store.Durations(r.Context(), from, to)
	if err != nil {
		return err
	}
	lines := make([]durationLine, len(rows))
	for i, row := range rows {
		lines[i] = durationLine{Slug: row.Slug, Orders: row.Orders, P50Ms: durationMs(row.P50), P95Ms: durationMs(row.P95)}
	}
	first, end := topupd.WholeDays(from, to)
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "from": rfc3339(first), "to": rfc3339(end), "lines": lines})
	return nil
}
