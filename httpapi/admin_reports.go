package httpapi

import (
	"net/http"
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
}

// newSalesRow shows a row of the store's report.
func newSalesRow(r topupd.SalesRow) salesRow {
	return salesRow{Key: r.Key, Orders: r.Orders, Completed: r.Completed, Cancelled: r.Cancelled, Processing: r.Processing,
		RevenueUsd: r.Revenue, RefundsUsd: r.Refunds, NetUsd: r.Net()}
}

// salesReport answers the sales of orders created in [from, to), grouped by
// groupBy (day when absent), with their total, in JSON or, with
// format=csv, as text/csv.
func (a *admin) salesReport(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	if err := knownParams(v, "from", "to", "groupBy", "format"); err != nil {
		return err
	}
	from, to, err := parseSpan(v)
	if err != nil {
		return err
	}
	switch {
	case from.IsZero() || to.IsZero():
		return topupd.Errorf(topupd.EInvalidRequest, "from and to: both are required")
	case !from.Before(to):
		return topupd.Errorf(topupd.EInvalidRequest, "from: must be before to")
	case to.Sub(from) > maxReportSpan:
		return topupd.Errorf(topupd.EInvalidRequest, "to: at most 366 days after from")
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
		out := [][]string{{"key", "orders", "completed", "cancelled", "processing", "revenueUsd", "refundsUsd", "netUsd"}}
		for _, row := range rows {
			out = append(out, []string{cell(row.Key), strconv.FormatInt(row.Orders, 10), strconv.FormatInt(row.Completed, 10),
				strconv.FormatInt(row.Cancelled, 10), strconv.FormatInt(row.Processing, 10),
				row.RevenueUsd.String(), row.RefundsUsd.String(), row.NetUsd.String()})
		}
		return writeCSV(w, "sales-by-"+string(by)+".csv", out)
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "from": rfc3339(from), "to": rfc3339(to), "groupBy": by,
		"rows": rows, "total": newSalesRow(total)})
	return nil
}
