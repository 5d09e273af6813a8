package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Services lists the orderable lines and the order fields each requires (GET /services).
func (c *Client) Services(ctx context.Context) ([]Service, error) {
	var out struct {
		Services []Service `json:"services"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/services"}, &out); err != nil {
		return nil, err
	}
	return out.Services, nil
}

// Products lists the catalog: one row per active pack, with live stock (GET /products).
func (c *Client) Products(ctx context.Context) ([]Product, error) {
	return c.products(ctx, "/products")
}

// Catalog is Products through its alias path (GET /catalog); the payload is identical.
func (c *Client) Catalog(ctx context.Context) ([]Product, error) {
	return c.products(ctx, "/catalog")
}

func (c *Client) products(ctx context.Context, path string) ([]Product, error) {
	var out struct {
		Products []Product `json:"products"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: path}, &out); err != nil {
		return nil, err
	}
	return out.Products, nil
}

// MyIP returns the caller's IP address as the API sees it, which is what the
// account's allow-list is checked against (GET /my-ip).
func (c *Client) MyIP(ctx context.Context) (string, error) {
	var out struct {
		IP string `json:"ip"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/my-ip"}, &out); err != nil {
		return "", err
	}
	return out.IP, nil
}

// Balance returns the account's prepaid balance in USD, exactly (GET /balance).
func (c *Client) Balance(ctx context.Context) (Money, error) {
	var out struct {
		BalanceUSD flexMoney `json:"balanceUsd"`
		Currency   string    `json:"currency"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/balance"}, &out); err != nil {
		return 0, err
	}
	if out.Currency != "" && out.Currency != "USD" {
		return 0, fmt.Errorf("client: balance in %q, want USD", out.Currency)
	}
	return Money(out.BalanceUSD), nil
}

// ErrNoTrxID is returned by PlaceOrder for a request without a TrxID.
var ErrNoTrxID = errors.New("client: OrderRequest.TrxID is required (it is what makes a retried order safe)")

// PlaceOrder places an order (POST /orders). The order it returns is
// processing or completed; an answer repeating an earlier order with the
// same trxid is returned too, with IdempotentReplay set. A rejection is an
// *Error; for INSUFFICIENT BALANCE or STOCK its Order holds the rejected
// form (OrderCreated false). Retries are safe: see the package documentation.
func (c *Client) PlaceOrder(ctx context.Context, req OrderRequest) (*Order, error) {
	if req.TrxID == "" {
		return nil, ErrNoTrxID
	}
	if req.PID == "" {
		return nil, errors.New("client: OrderRequest.PID is required")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	var o Order
	if err := c.do(ctx, request{method: http.MethodPost, path: "/orders", body: body}, &o); err != nil {
		return nil, err
	}
	if !o.OrderCreated {
		return nil, &Error{StatusCode: http.StatusOK, Code: codeOf(o.Error), Message: o.Error, Order: &o}
	}
	return &o, nil
}

// Order returns one of the account's orders by its order id (or internal
// id); an unknown id is a 404 *Error with CodeOrderNotFound (GET /orders/{id}).
func (c *Client) Order(ctx context.Context, orderID string) (*Order, error) {
	if orderID == "" {
		return nil, errors.New("client: an order id is required")
	}
	var o Order
	if err := c.do(ctx, request{method: http.MethodGet, path: "/orders/" + url.PathEscape(orderID)}, &o); err != nil {
		return nil, err
	}
	return &o, nil
}

// History returns the account's newest orders, newest first (GET /history, simple mode).
func (c *Client) History(ctx context.Context, q HistoryQuery) ([]Order, error) {
	query := url.Values{}
	if q.Limit != 0 {
		query.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.TrxID != "" {
		query.Set("trxid", q.TrxID)
	}
	var out struct {
		Orders []Order `json:"orders"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/history", query: query}, &out); err != nil {
		return nil, err
	}
	return out.Orders, nil
}

// HistoryPage returns one page of the account's orders, newest first
// (GET /history, paged mode). page starts at 1; pageSize 0 is the server's
// default (20), and the server caps it at 50.
func (c *Client) HistoryPage(ctx context.Context, page, pageSize int) (*OrderPage, error) {
	if page < 1 {
		return nil, fmt.Errorf("client: HistoryPage: page %d, want 1 or more", page)
	}
	query := url.Values{"page": {strconv.Itoa(page)}}
	if pageSize != 0 {
		query.Set("pageSize", strconv.Itoa(pageSize))
	}
	var p OrderPage
	if err := c.do(ctx, request{method: http.MethodGet, path: "/history", query: query}, &p); err != nil {
		return nil, err
	}
	if p.Page == 0 {
		p.Page = page
	}
	return &p, nil
}

// codeOf spells a message as a code: "UNKNOWN PID" is UNKNOWN_PID.
func codeOf(msg string) string {
	b := []byte(msg)
	for i, ch := range b {
		if ch == ' ' {
			b[i] = '_'
		}
	}
	return string(b)
}
