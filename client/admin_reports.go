package client

import (
	"context"
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
	AccountID         string           `json:"accountId"`
	From              time.Time        `json:"from"`
	To                time.Time        `json:"to"`
	OpeningBalanceUSD Money            `json:"openingBalanceUsd"`
	ClosingBalanceUSD Money            `json:"closingBalanceUsd"`
	Entries           []StatementEntry `json:"entries"`
}

// SalesRow sums the orders of one key of a sales report.
type SalesRow struct {
	Key        string `json:"key"`
	Orders     int64  `json:"orders"`
	Completed  int64  `json:"completed"`
	Cancelled  int64  `json:"cancelled"`
	Processing int64  `json:"processing"`
	RevenueUSD Money  `json:"revenueUsd"`
	RefundsUSD Money  `json:"refundsUsd"`
	NetUSD     Money  `json:"netUsd"`
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

// span is the from and to parameters of a period.
func span(from, to time.Time) url.Values {
	return url.Values{"from": {from.UTC().Format(time.RFC3339Nano)}, "to": {to.UTC().Format(time.RFC3339Nano)}}
}
