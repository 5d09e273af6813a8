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
	// Balance is our balance there as last learned, at BalanceAt; nil
	// until a read.
	Balance   *Money
	BalanceAt *time.Time
	// State is UpstreamUnchecked until the first successful call, then
	// UpstreamOK or UpstreamFailing as the last call went.
	State string
	// WarnHours and CriticalHours are the runway thresholds of its balance
	// alert (defaults DefaultWarnHours and DefaultCriticalHours).
	WarnHours, CriticalHours float64
	// Day is the known cost of the orders completed there in the last 24
	// hours, as read (its burn is Day ÷ 24 an hour).
	Day Money
	// BalanceAlert is the balance alert's level: BalanceAlertNone, Warn
	// or Critical.
	BalanceAlert string
}

// Funds is what u's balance alert is worked out from.
func (u *Upstream) Funds() Funds {
	return Funds{Balance: u.Balance, Day: u.Day, WarnHours: u.WarnHours, CriticalHours: u.CriticalHours}
}

// Runway is how long u's known balance lasts at its burn, in hours rounded
// down to 0.1; ok is false while the balance is unknown or the burn is 0.
func (u *Upstream) Runway() (hours float64, ok bool) {
	t, ok := RunwayTenths(u.Balance, u.Day)
	return float64(t) / 10, ok
}

// Alerting reports whether u needs the operator: its last call failed, or
// its balance alert is raised (the admin rows' alert).
func (u *Upstream) Alerting() bool {
	return u.State == UpstreamFailing || (u.BalanceAlert != "" && u.BalanceAlert != BalanceAlertNone)
}

// CheckThresholds checks an upstream's runway thresholds: both above 0,
// critical not above warn.
func CheckThresholds(warn, critical float64) error {
	switch {
	case !(warn > 0) || !(critical > 0):
		return Errorf(EInvalidBody, "warnHours and criticalHours must be above 0")
	case critical > warn:
		return Errorf(EInvalidBody, "criticalHours must not be above warnHours")
	case warn > 100_000:
		return Errorf(EInvalidBody, "warnHours is too large")
	}
	return nil
}

// CheckFields are what a check or a change of thresholds changes of an
// upstream, for the action log.
func (u *Upstream) CheckFields() map[string]any {
	var bal, at any
	if u.Balance != nil {
		bal = *u.Balance
	}
	if u.BalanceAt != nil {
		at = u.BalanceAt.UTC().Format(time.RFC3339Nano)
	}
	return map[string]any{"state": u.State, "balanceUsd": bal, "balanceAt": at, "warnHours": u.WarnHours, "criticalHours": u.CriticalHours}
}

// The states of an upstream.
const (
	UpstreamUnchecked = "unchecked"
	UpstreamOK        = "ok"
	UpstreamFailing   = "failing"
)

// The default runway thresholds of an upstream's balance alert, in hours.
const (
	DefaultWarnHours     = 24
	DefaultCriticalHours = 4
)

// SupplierChecker reads our balance at an upstream (GET /balance with our
// key), as the check of an upstream does. Its errors are UPSTREAM_LOOP
// (the answer came from this deployment), UPSTREAM_REFUSED (an answer but
// no balance: detail says its status and code) or UPSTREAM_UNREACHABLE
// (no answer: detail says why).
type SupplierChecker interface {
	CheckBalance(ctx context.Context, u Upstream) (Money, error)
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
