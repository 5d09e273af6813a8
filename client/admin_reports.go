package client

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"time"
)

// StatementEntry is one ledger entry of a statement; an order's charge or
// refund names its order, trxid and pid.
type StatementEntry struct {
	At              time.Time `json:"at"`
	Kind            string    `json:"kind"`
	AmountUSD       Money     `json:"amountUsd"`
	BalanceAfterUSD Money     `json:"balanceAfterUsd"`
	Reference       string    `json:"reference,omitempty"`
	OrderID         string    `json:"orderId,omitempty"`
	TrxID           string    `json:"trxid,omitempty"`
	PID             string    `json:"pid,omitempty"`
}

// Statement is an account's entries of [From, To) between its balances at
// both ends.
type Statement struct {
	// AccountID names the account; the admin API's statement alone sets it.
	AccountID         string           `json:"accountId"`
	From              time.Time        `json:"from"`
	To                time.Time        `json:"to"`
	OpeningBalanceUSD Money            `json:"openingBalanceUsd"`
	ClosingBalanceUSD Money            `json:"closingBalanceUsd"`
	Entries           []StatementEntry `json:"entries"`
}

// SalesRow sums the orders of one key of a sales report: RevenueUSD is
// what its completed orders were charged, CostUSD what those with a known
// cost cost, RevenueWithoutCostUSD what those without one were charged,
// and MarginUSD = RevenueUSD − RevenueWithoutCostUSD − CostUSD.
type SalesRow struct {
	Key                   string `json:"key"`
	Orders                int64  `json:"orders"`
	Completed             int64  `json:"completed"`
	Cancelled             int64  `json:"cancelled"`
	Processing            int64  `json:"processing"`
	RevenueUSD            Money  `json:"revenueUsd"`
	RefundsUSD            Money  `json:"refundsUsd"`
	NetUSD                Money  `json:"netUsd"`
	CostUSD               Money  `json:"costUsd"`
	MarginUSD             Money  `json:"marginUsd"`
	RevenueWithoutCostUSD Money  `json:"revenueWithoutCostUsd"`
}

// Add sums another row into r.
func (r *SalesRow) Add(o SalesRow) {
	r.Orders += o.Orders
	r.Completed += o.Completed
	r.Cancelled += o.Cancelled
	r.Processing += o.Processing
	r.RevenueUSD += o.RevenueUSD
	r.RefundsUSD += o.RefundsUSD
	r.NetUSD += o.NetUSD
	r.CostUSD += o.CostUSD
	r.MarginUSD += o.MarginUSD
	r.RevenueWithoutCostUSD += o.RevenueWithoutCostUSD
}

// SalesReport is the sales of the orders created in [From, To), one row
// per key of GroupBy, and their total.
type SalesReport struct {
	From    time.Time  `json:"from"`
	To      time.Time  `json:"to"`
	GroupBy string     `json:"groupBy"`
	Rows    []SalesRow `json:"rows"`
	Total   SalesRow   `json:"total"`
}

// DurationOverflow stands for a percentile longer than the last bucket
// edge of a durations report (48 h), whose upper bound nobody knows.
const DurationOverflow = time.Duration(math.MaxInt64)

// DurationLine is how long the orders of one line took from placed to
// final: how many reached a final state, and upper bounds of the median
// and 95th percentile of their times (the upper edge of the bucket, from
// 100 ms to 48 h, where each falls; DurationOverflow beyond it).
type DurationLine struct {
	Slug     string
	Orders   int64
	P50, P95 time.Duration
}

// UnmarshalJSON reads p50Ms and p95Ms, null beyond the last edge.
func (l *DurationLine) UnmarshalJSON(b []byte) error {
	var w struct {
		Slug   string `json:"slug"`
		Orders int64  `json:"orders"`
		P50Ms  *int64 `json:"p50Ms"`
		P95Ms  *int64 `json:"p95Ms"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	ms := func(v *int64) time.Duration {
		if v == nil {
			return DurationOverflow
		}
		return time.Duration(*v) * time.Millisecond
	}
	*l = DurationLine{Slug: w.Slug, Orders: w.Orders, P50: ms(w.P50Ms), P95: ms(w.P95Ms)}
	return nil
}

// DurationReport is how long the orders created on the whole UTC days
// [From, To) took to a final state, one line per slug.
type DurationReport struct {
	From  time.Time      `json:"from"`
	To    time.Time      `json:"to"`
	Lines []DurationLine `json:"lines"`
}

// Statement reads an account's statement for [from, to).
func (a *Admin) Statement(ctx context.Context, accountID string, from, to time.Time) (Statement, error) {
	var out Statement
	err := a.Do(ctx, http.MethodGet, "/admin/accounts/"+esc(accountID)+"/statement?"+span(from, to).Encode(), nil, &out)
	return out, err
}

// SalesReport reads the sales of the orders created in [from, to), grouped
// by day, line, pack, account or provider.
func (a *Admin) SalesReport(ctx context.Context, from, to time.Time, groupBy string) (SalesReport, error) {
	q := span(from, to)
	q.Set("groupBy", groupBy)
	var out SalesReport
	err := a.Do(ctx, http.MethodGet, "/admin/reports/sales?"+q.Encode(), nil, &out)
	return out, err
}

// Durations reads how long the orders created on the whole UTC days that
// [from, to) touches took from placed to final, per line.
func (a *Admin) Durations(ctx context.Context, from, to time.Time) (DurationReport, error) {
	var out DurationReport
	err := a.Do(ctx, http.MethodGet, "/admin/reports/durations?"+span(from, to).Encode(), nil, &out)
	return out, err
}

// span is the from and to parameters of a period.
func span(from, to time.Time) url.Values {
	return url.Values{"from": {from.UTC().Format(time.RFC3339Nano)}, "to": {to.UTC().Format(time.RFC3339Nano)}}
}
