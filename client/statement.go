package client

import (
	"context"
	"net/http"
	"time"
)

// Statement reads the account's balance changes in [from, to), oldest
// first, between its balances at both ends (GET /statement): every
// credit, charge and refund, with the order a charge or refund is of. The
// period is at most 31 days; a longer one is an *Error of
// INVALID_REQUEST, as is a from not before to. With a sandbox key it is the sandbox's.
func (c *Client) Statement(ctx context.Context, from, to time.Time) (*Statement, error) {
	var out Statement
	if err := c.do(ctx, request{method: http.MethodGet, path: "/statement", query: span(from, to)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// StatementCSV is Statement as the server's CSV file (GET
// /statement?format=csv), for a spreadsheet.
func (c *Client) StatementCSV(ctx context.Context, from, to time.Time) ([]byte, error) {
	q := span(from, to)
	q.Set("format", "csv")
	var out []byte
	if err := c.do(ctx, request{method: http.MethodGet, path: "/statement", query: q}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
