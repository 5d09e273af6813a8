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

// DepositBank is where a deposit's transfer goes.
type DepositBank struct {
	BankName      string `json:"bankName"`
	AccountNumber string `json:"accountNumber"`
	AccountHolder string `json:"accountHolder"`
}

// The statuses of a deposit.
const (
	DepositPending        = "pending"
	DepositAwaitingSecond = "awaiting_second"
	DepositConfirmed      = "confirmed"
	DepositRejected       = "rejected"
	DepositExpired        = "expired"
)

// Deposit is a ticket for a bank transfer that funds the account: transfer
// exactly AmountUSD to Bank, with Memo in the transfer's description,
// before ExpiresAt.
type Deposit struct {
	DepositID    string      `json:"depositId"`
	RequestedUSD Money       `json:"requestedUsd"`
	AmountUSD    Money       `json:"amountUsd"`
	Memo         string      `json:"memo"`
	Bank         DepositBank `json:"bank"`
	Status       string      `json:"status"`
	CreatedAt    time.Time   `json:"createdAt"`
	ExpiresAt    time.Time   `json:"expiresAt"`
	// CreditedUSD and ConfirmedAt are set once it is confirmed.
	CreditedUSD *Money     `json:"creditedUsd,omitempty"`
	ConfirmedAt *time.Time `json:"confirmedAt,omitempty"`
	// Reason is a rejection's.
	Reason string `json:"reason,omitempty"`
	// Sandbox marks a sandbox key's ticket.
	Sandbox bool `json:"sandbox,omitempty"`
}

// OpenDeposit opens a deposit ticket for amount (1 to 100,000 USD, whole
// cents) (POST /deposits). It is sent once: a retry could open a second
// ticket.
func (c *Client) OpenDeposit(ctx context.Context, amount Money) (*Deposit, error) {
	body, err := json.Marshal(map[string]Money{"amountUsd": amount})
	if err != nil {
		return nil, err
	}
	var d Deposit
	if err := c.do(ctx, request{method: http.MethodPost, path: "/deposits", body: body, once: true}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// Deposits returns the account's newest deposit tickets, newest first
// (GET /deposits, simple mode); limit 0 is the server's default (30).
func (c *Client) Deposits(ctx context.Context, limit int) ([]Deposit, error) {
	query := url.Values{}
	if limit != 0 {
		query.Set("limit", strconv.Itoa(limit))
	}
	var out struct {
		Deposits []Deposit `json:"deposits"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/deposits", query: query}, &out); err != nil {
		return nil, err
	}
	return out.Deposits, nil
}

// Deposit returns one of the account's deposit tickets (GET
// /deposits/{depositId}); an unknown one is a 404 *Error.
func (c *Client) Deposit(ctx context.Context, id string) (*Deposit, error) {
	if id == "" {
		return nil, errors.New("client: a deposit id is required")
	}
	var d Deposit
	if err := c.do(ctx, request{method: http.MethodGet, path: "/deposits/" + url.PathEscape(id)}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}
