package topupd

import (
	"context"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Upstream is another server that speaks the reseller API, from which packs
// with provider "upstream" are bought.
type Upstream struct {
	Name    string
	BaseURL string
	// APIKey is our key at the upstream; it is stored sealed and never shown again.
	APIKey    string
	UpdatedAt time.Time
}

// Validate checks an upstream as the admin API receives it.
func (u *Upstream) Validate() error {
	if !ValidIdent(u.Name) {
		return Errorf(EInvalidBody, "name: letters, digits and ._:- only, at most 100")
	}
	b, err := url.Parse(u.BaseURL)
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" || b.RawQuery != "" || b.Fragment != "" {
		return Errorf(EInvalidBody, "baseUrl: an http or https URL without query or fragment")
	}
	u.BaseURL = strings.TrimRight(u.BaseURL, "/")
	if strings.TrimSpace(u.APIKey) == "" || len(u.APIKey) > 500 {
		return Errorf(EInvalidBody, "apiKey is required")
	}
	return nil
}

// UpstreamTrxID is the trxid an order is bought under at its upstream:
// derived from the order's own id, so it is the same on every retry and
// after every restart, and the upstream's idempotency makes a retry safe.
func UpstreamTrxID(o *Order) string { return "topupd-" + o.ID }

// UpstreamDeposit is money we sent a supplier, as an operator recorded it:
// once per upstream and reference.
type UpstreamDeposit struct {
	ID       string
	Seq      int64
	Upstream string
	Amount   Money
	// Reference is the transfer's own reference (1 to 200 characters):
	// recording it again for the same upstream records nothing.
	Reference string
	// At is when the money was sent; CreatedAt when it was recorded.
	At, CreatedAt time.Time
	// Operator is who recorded it.
	Operator string
}

// cent is one cent in Money's units: deposits are whole cents.
const cent = MoneyScale / 100

// Validate checks a deposit as the admin API receives it: an amount above
// 0 in whole cents, a reference of 1 to 200 characters.
func (d *UpstreamDeposit) Validate() error {
	switch n := utf8.RuneCountInString(d.Reference); {
	case d.Amount <= 0:
		return Errorf(EInvalidBody, "amountUsd must be above 0")
	case d.Amount%cent != 0:
		return Errorf(EInvalidBody, "amountUsd: at most 2 decimals")
	case d.Amount > MaxMoney:
		return Errorf(EInvalidBody, "amountUsd is too large")
	case n < 1 || n > 200 || strings.TrimSpace(d.Reference) == "":
		return Errorf(EInvalidBody, "reference: 1 to 200 characters")
	}
	return nil
}

// UpstreamDepositsQuery selects a page of an upstream's deposits, newest
// first (by At), those sent in [From, To) when they are set.
type UpstreamDepositsQuery struct {
	Upstream string
	From, To time.Time
	// Before, when set, starts the page after this deposit.
	Before *ListKey
	Limit  int
}

// UpstreamDepositStore keeps the deposits we sent suppliers.
type UpstreamDepositStore interface {
	// AddUpstreamDeposit records a deposit (d.ID and d.CreatedAt set):
	// ENotFound for an unknown upstream; a reference the upstream has
	// already answers the first deposit, repeated, and records nothing.
	AddUpstreamDeposit(ctx context.Context, ch *Change, d UpstreamDeposit) (out UpstreamDeposit, repeated bool, err error)
	// UpstreamDeposits reads a page of an upstream's deposits.
	UpstreamDeposits(ctx context.Context, q UpstreamDepositsQuery) ([]UpstreamDeposit, error)
}
