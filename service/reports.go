package service

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// MaxReportSpan is the longest period one report covers: a year, leap or
// not.
const MaxReportSpan = 366 * 24 * time.Hour

// SalesReport is the sales of the orders created in [From, To), grouped,
// with their total.
type SalesReport struct {
	From, To time.Time
	By       topupd.SalesGroup
	Rows     []topupd.SalesRow
	// Total sums the rows, every count and amount; its key is "total".
	Total topupd.SalesRow
}

// SalesReport reads the sales of orders created in [from, to), at most
// MaxReportSpan long, grouped by by (ByDay when "").
func (s *Service) SalesReport(ctx context.Context, a Actor, from, to time.Time, by topupd.SalesGroup) (SalesReport, error) {
	if err := Allowed(a, OpReadReports); err != nil {
		return SalesReport{}, err
	}
	if err := reportSpan(from, to); err != nil {
		return SalesReport{}, err
	}
	if by == "" {
		by = topupd.ByDay
	}
	if _, err := topupd.ParseSalesGroup(string(by)); err != nil {
		return SalesReport{}, err
	}
	rows, err := s.d.Store.SalesReport(ctx, from, to, by)
	if err != nil {
		return SalesReport{}, err
	}
	r := SalesReport{From: from, To: to, By: by, Rows: rows, Total: topupd.SalesRow{Key: "total"}}
	for _, row := range rows {
		r.Total.Add(row)
	}
	return r, nil
}

// SalesColumns are the columns of a sales report's CSV, as its JSON rows
// name them.
var SalesColumns = []string{"key", "orders", "completed", "cancelled", "processing", "revenueUsd", "refundsUsd", "netUsd", "costUsd",
	"marginUsd", "revenueWithoutCostUsd"}

// CSV is the report as the rows of a CSV file: a header (SalesColumns),
// its rows, and its total last, with the numbers of its JSON.
func (r SalesReport) CSV() [][]string {
	out := [][]string{slices.Clone(SalesColumns)}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, row := range append(r.Rows[:len(r.Rows):len(r.Rows)], r.Total) {
		out = append(out, []string{Cell(row.Key), n(row.Orders), n(row.Completed), n(row.Cancelled), n(row.Processing),
			row.Revenue.String(), row.Refunds.String(), row.Net().String(), row.Cost.String(), row.Margin().String(),
			row.RevenueWithoutCost.String()})
	}
	return out
}

// DurationsReport is, per line, how long the orders created on the whole
// UTC days [From, To) took to a final state.
type DurationsReport struct {
	// From and To are the whole days read.
	From, To time.Time
	Lines    []topupd.DurationRow
}

// Durations reads, per line, how many orders created on the whole UTC
// days that [from, to) touches (at most MaxReportSpan apart) reached a
// final state, and upper bounds of the median and 95th percentile of
// their time from placed to final (topupd.DurationOverflow past the last
// bucket edge).
func (s *Service) Durations(ctx context.Context, a Actor, from, to time.Time) (DurationsReport, error) {
	if err := Allowed(a, OpReadReports); err != nil {
		return DurationsReport{}, err
	}
	if err := reportSpan(from, to); err != nil {
		return DurationsReport{}, err
	}
	rows, err := s.d.Store.Durations(ctx, from, to)
	if err != nil {
		return DurationsReport{}, err
	}
	first, end := topupd.WholeDays(from, to)
	return DurationsReport{From: first, To: end, Lines: rows}, nil
}

// Statement reads an account's statement of [from, to): its opening and
// closing balances and the entries between. An unknown account is
// NOT_FOUND.
func (s *Service) Statement(ctx context.Context, a Actor, accountID string, from, to time.Time) (topupd.Statement, error) {
	if err := Allowed(a, OpReadReports); err != nil {
		return topupd.Statement{}, err
	}
	if err := span(from, to); err != nil {
		return topupd.Statement{}, err
	}
	if _, err := s.d.Store.Account(ctx, accountID); err != nil {
		return topupd.Statement{}, err
	}
	return s.d.Store.Statement(ctx, accountID, from, to)
}

// MaxAccountStatementSpan is the longest period of a statement an account
// reads of its own (the reseller API's GET /statement).
const MaxAccountStatementSpan = 31 * 24 * time.Hour

// CheckAccountStatement checks the period of a statement an account reads
// of its own, before the store reads it (Store.Statement, for the account
// or, later, its sandbox): from and to both set, from before to, at most
// MaxAccountStatementSpan apart. The operator's statements (Statement) have
// no such bound but the store's count of entries.
func CheckAccountStatement(from, to time.Time) error {
	if err := span(from, to); err != nil {
		return err
	}
	if to.Sub(from) > MaxAccountStatementSpan {
		return topupd.Errorf(topupd.EInvalidRequest, "to: at most 31 days after from")
	}
	return nil
}

// StatementCSV is a statement as the rows of a CSV file: a header, the
// opening balance, the entries and the closing balance.
func StatementCSV(st topupd.Statement) [][]string {
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	rows := [][]string{{"at", "kind", "amountUsd", "balanceAfterUsd", "reference", "orderId", "trxid", "pid"},
		{at(st.From), "opening", "", st.Opening.String(), "", "", "", ""}}
	for _, e := range st.Entries {
		rows = append(rows, []string{at(e.CreatedAt), string(e.Kind), e.Amount.String(), e.BalanceAfter.String(), Cell(e.Reference),
			e.OrderID, Cell(e.TrxID), e.PID})
	}
	return append(rows, []string{at(st.To), "closing", "", st.Closing.String(), "", "", "", ""})
}

// span checks a period: from and to both set, from before to.
func span(from, to time.Time) error {
	switch {
	case from.IsZero() || to.IsZero():
		return topupd.Errorf(topupd.EInvalidRequest, "from and to: both are required")
	case !from.Before(to):
		return topupd.Errorf(topupd.EInvalidRequest, "from: must be before to")
	}
	return nil
}

// reportSpan checks a report's period: a span at most MaxReportSpan long.
func reportSpan(from, to time.Time) error {
	if err := span(from, to); err != nil {
		return err
	}
	if to.Sub(from) > MaxReportSpan {
		return topupd.Errorf(topupd.EInvalidRequest, "to: at most 366 days after from")
	}
	return nil
}

// Cell makes a text cell safe to open in a spreadsheet: one that starts as
// a formula would is quoted with a leading apostrophe.
func Cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
