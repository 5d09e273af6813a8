package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The reasons a dispute may give.
const (
	DisputeCodeInvalid     = "code_invalid"
	DisputeCodeUsed        = "code_used"
	DisputeWrongRegion     = "wrong_region"
	DisputeNotCredited     = "not_credited"
	DisputeDuplicateCharge = "duplicate_charge"
	DisputeOther           = "other"
)

// Dispute is the account's dispute of a completed order: open until the
// operator resolves it, by dueAt.
type Dispute struct {
	DisputeID string    `json:"disputeId"`
	OrderID   string    `json:"orderId"`
	Status    string    `json:"status"` // open or resolved
	Reason    string    `json:"reason"`
	Codes     []string  `json:"codes"`
	Detail    string    `json:"detail,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	DueAt     time.Time `json:"dueAt"`
	// Outcome (replace, refund, partial_refund or reject), AmountUSD (what
	// was refunded), Note, ReplacementOrderID and ResolvedAt are set once
	// it is resolved.
	Outcome            string     `json:"outcome,omitempty"`
	AmountUSD          *Money     `json:"amountUsd,omitempty"`
	Note               string     `json:"note,omitempty"`
	ReplacementOrderID string     `json:"replacementOrderId,omitempty"`
	ResolvedAt         *time.Time `json:"resolvedAt,omitempty"`
	// Sandbox marks a sandbox key's dispute.
	Sandbox bool `json:"sandbox,omitempty"`
}

// OpenDispute disputes one of the account's completed orders (POST
// /orders/{orderId}/disputes): codes nil disputes the whole order. It is
// sent once; a second is 409 DISPUTE_OPEN while the first is open.
func (c *Client) OpenDispute(ctx context.Context, orderID, reason string, codes []string, detail string) (*Dispute, error) {
	if orderID == "" {
		return nil, errors.New("client: an order id is required")
	}
	req := map[string]any{"reason": reason}
	if codes != nil {
		req["codes"] = codes
	}
	if detail != "" {
		req["detail"] = detail
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var d Dispute
	err = c.do(ctx, request{method: http.MethodPost, path: "/orders/" + url.PathEscape(orderID) + "/disputes", body: body, once: true}, &d)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// Disputes returns the account's newest disputes of a status ("" for
// all), newest first (GET /disputes, simple mode); limit 0 is the
// server's default (30).
func (c *Client) Disputes(ctx context.Context, status string, limit int) ([]Dispute, error) {
	query := url.Values{}
	if status != "" {
		query.Set("status", status)
	}
	if limit != 0 {
		query.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Disputes []Dispute `json:"disputes"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/disputes", query: query}, &out); err != nil {
		return nil, err
	}
	return out.Disputes, nil
}

// Dispute returns one of the account's disputes (GET
// /disputes/{disputeId}); an unknown one is a 404 *Error.
func (c *Client) Dispute(ctx context.Context, id string) (*Dispute, error) {
	if id == "" {
		return nil, errors.New("client: a dispute id is required")
	}
	var d Dispute
	if err := c.do(ctx, request{method: http.MethodGet, path: "/disputes/" + url.PathEscape(id)}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}
