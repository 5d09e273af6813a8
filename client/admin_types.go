package client

import (
	"encoding/json"
	"time"
)

// AdminAccount is an account as the admin API shows it.
type AdminAccount struct {
	ID                  string     `json:"id"`
	Name                string     `json:"name"`
	BalanceUSD          Money      `json:"balanceUsd"`
	APIEnabled          bool       `json:"apiEnabled"`
	AdminDisabled       bool       `json:"adminDisabled"`
	Banned              bool       `json:"banned"`
	RestrictedUntil     *time.Time `json:"restrictedUntil"`
	IPAllowlist         []string   `json:"ipAllowlist"`
	IPAllowlistRequired bool       `json:"ipAllowlistRequired"`
	CreatedAt           time.Time  `json:"createdAt"`
	// Tier, MaxOrderUSD and DailyLimitUSD are nil when not set.
	Tier          *string `json:"tier"`
	MaxOrderUSD   *Money  `json:"maxOrderUsd"`
	DailyLimitUSD *Money  `json:"dailyLimitUsd"`
	// ClaimRatio30d is the live disputes opened in the last 30 days over
	// the live orders completed in them, a ratio to 4 decimals (0.25 is
	// one in four); nil when none completed.
	ClaimRatio30d *Money `json:"claimRatio30d"`
}

// Limit points at the account's spending limit that the admin API names
// name (maxOrderUsd, dailyLimitUsd), or is nil for a name it does not know:
// for code that shows or copies every limit by its name.
func (a *AdminAccount) Limit(name string) **Money {
	switch name {
	case "maxOrderUsd":
		return &a.MaxOrderUSD
	case "dailyLimitUsd":
		return &a.DailyLimitUSD
	}
	return nil
}

// NewKey is an API key just made: APIKey is shown this once.
type NewKey struct {
	KeyID  string `json:"keyId"`
	APIKey string `json:"apiKey"`
}

// CreditResult is the answer to a credit.
type CreditResult struct {
	BalanceUSD Money  `json:"balanceUsd"`
	EntryID    string `json:"entryId"`
	// Repeated is true when the reference was used before for this
	// account: nothing was credited again, and EntryID is the first entry.
	Repeated bool `json:"repeated"`
}

// LedgerEntry is one entry of an account's ledger.
type LedgerEntry struct {
	ID              string    `json:"id"`
	Kind            string    `json:"kind"` // credit, charge or refund
	AmountUSD       Money     `json:"amountUsd"`
	BalanceAfterUSD Money     `json:"balanceAfterUsd"`
	OrderID         string    `json:"orderId,omitempty"`
	Reference       string    `json:"reference,omitempty"`
	CreatedAt       time.Time `json:"createdAt"`
}

// Line is a service line as the operator sends and sees it.
type Line struct {
	Slug            string          `json:"slug,omitempty"`
	ProductName     string          `json:"productName"`
	GameName        string          `json:"gameName"`
	Game            string          `json:"game"`
	Kind            string          `json:"kind"` // topup, subscription, gamekey or giftcard
	Status          string          `json:"status"`
	Required        []RequiredField `json:"required"`
	ServerIDOptions []Choice        `json:"serverIdOptions,omitempty"`
	RegionOptions   []Choice        `json:"regionOptions,omitempty"`
}

// Pack is a pack as the operator sends and sees it.
type Pack struct {
	PID         string `json:"pid,omitempty"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Category    string `json:"category"`
	PriceUSD    Money  `json:"priceUsd"`
	Status      string `json:"status"`
	StockBased  bool   `json:"stockBased,omitempty"`
	Provider    string `json:"provider,omitempty"` // stock, manual, upstream or sim; empty lets the server choose (stock for a pack that draws from stock, else sim while the sim supplier is on)
	Upstream    string `json:"upstream,omitempty"`
	UpstreamPID string `json:"upstreamPid,omitempty"`
	// Available is the stock on hand; only read.
	Available int `json:"available,omitempty"`
	// CostUSD is what one unit costs the business; nil when not set.
	CostUSD *Money `json:"costUsd,omitempty"`
	// LowStockAt is the stock level at or below which the pack is low.
	LowStockAt *int `json:"lowStockAt,omitempty"`
	// Suppliers are tried in order instead of Provider/Upstream/UpstreamPID.
	Suppliers []Supplier `json:"suppliers,omitempty"`
	// AllowBelowCost, sent, lets PriceUSD be below CostUSD; never read.
	AllowBelowCost bool `json:"allowBelowCost,omitempty"`
}

// Supplier is one of a pack's suppliers.
type Supplier struct {
	Provider    string `json:"provider"`
	Upstream    string `json:"upstream,omitempty"`
	UpstreamPID string `json:"upstreamPid,omitempty"`
	// CostUSD is what one unit costs from this supplier; nil: the pack's.
	CostUSD *Money `json:"costUsd,omitempty"`
}

// StockResult is the answer to a stock upload.
type StockResult struct {
	Added      int `json:"added"`
	Duplicates int `json:"duplicates"`
	Available  int `json:"available"`
	// BatchID is the batch the codes were added to.
	BatchID int64 `json:"batchId"`
}

// Health is how a supplier's recent calls went, and its orders that need
// the operator.
type Health struct {
	Provider         string     `json:"provider"`
	Upstream         string     `json:"upstream,omitempty"`
	LastSuccess      *time.Time `json:"lastSuccess"`
	LastError        *time.Time `json:"lastError"`
	LastErrorMessage string     `json:"lastErrorMessage,omitempty"`
	ErrorRate        float64    `json:"errorRate"`
	Calls            int        `json:"calls"`
	Errors           int        `json:"errors"`
	Alert            bool       `json:"alert"`
	StuckOrders      int        `json:"stuckOrders"`
}

// UpstreamServer is an upstream the operator buys from, with its health;
// its API key is never shown.
type UpstreamServer struct {
	Name      string    `json:"name"`
	BaseURL   string    `json:"baseUrl"`
	UpdatedAt time.Time `json:"updatedAt"`
	Health    Health    `json:"health"`
}

// AdminOrder is an order as the operator sees it: the reseller shape, plus
// its internal id, account, supplier and any alert; one order read or
// changed alone (not a list's) carries its history too.
type AdminOrder struct {
	Order
	OrderAdmin
	// History is the order's story, oldest first: placed, each step since
	// (a submit, a retry and why, an operator's retry), and its end.
	History []OrderEvent `json:"history,omitempty"`
	// Ledger is the order's charge and any refund, oldest first (on an
	// answer about one order; empty in lists).
	Ledger []LedgerEntry `json:"ledger,omitempty"`
	// SupplierAttempts, for an order of a pack that lists suppliers (on an
	// answer about one order), is each supplier of the list and how
	// trying it went.
	SupplierAttempts []SupplierAttempt `json:"supplierAttempts,omitempty"`
}

// SupplierAttempt is one supplier of an order's supplier list, as the pack
// listed it when the order was placed, and how trying it went. Outcome is
// waiting, trying, skipped, refused, not-found, completed or cancelled.
type SupplierAttempt struct {
	Attempt     int       `json:"attempt"`
	Provider    string    `json:"provider"`
	Upstream    string    `json:"upstream,omitempty"`
	UpstreamPID string    `json:"upstreamPid,omitempty"`
	CostUSD     *Money    `json:"costUsd,omitempty"`
	Outcome     string    `json:"outcome"`
	Why         string    `json:"why,omitempty"`
	StartedAt   time.Time `json:"startedAt,omitzero"`
	FinishedAt  time.Time `json:"finishedAt,omitzero"`
}

// OrderEvent is one step of an order's history. Kind is placed,
// submitting, retry, retried, completed or cancelled; Note says more (the
// supplier, why a retry, a cancellation's error).
type OrderEvent struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	Note string    `json:"note,omitempty"`
}

// OrderAdmin are the fields of an order only the operator sees.
type OrderAdmin struct {
	ID          string    `json:"id"`
	AccountID   string    `json:"accountId"`
	Provider    string    `json:"provider"`
	Upstream    string    `json:"upstream,omitempty"`
	UpstreamPID string    `json:"upstreamPid,omitempty"`
	SupplierRef string    `json:"supplierRef,omitempty"`
	Attempts    int       `json:"attempts"`
	DeadlineAt  time.Time `json:"deadlineAt"`
	Alert       string    `json:"alert,omitempty"`
	// CostUSD is what a completed order cost, fixed when it completed; nil
	// before, and when its cost is not known.
	CostUSD *Money `json:"costUsd,omitempty"`
	// MarginUSD is a completed order's charge less its cost; nil when its
	// cost is not known, and on any other order.
	MarginUSD *Money `json:"marginUsd,omitempty"`
}

// UnmarshalJSON reads one object into both parts and the history
// (Order's own UnmarshalJSON, promoted, would read only the reseller shape).
func (o *AdminOrder) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &o.Order); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &o.OrderAdmin); err != nil {
		return err
	}
	var h struct {
		History          []OrderEvent      `json:"history"`
		Ledger           []LedgerEntry     `json:"ledger"`
		SupplierAttempts []SupplierAttempt `json:"supplierAttempts"`
	}
	err := json.Unmarshal(b, &h)
	o.History, o.Ledger, o.SupplierAttempts = h.History, h.Ledger, h.SupplierAttempts
	return err
}

// AdminOrdersQuery selects orders of every account, newest first; every
// field set narrows the selection.
type AdminOrdersQuery struct {
	Status, AccountID, TrxID, PID, Slug, Provider string
	// From and To bound createdAt to [From, To); zero leaves a side open.
	From, To time.Time
	// Limit is the page size (1 to 500; 0: the server's 50).
	Limit int
	// Cursor is a page's NextCursor, for the page after it.
	Cursor string
}

// AdminOrderPage is one page of orders.
type AdminOrderPage struct {
	Orders []AdminOrder `json:"orders"`
	// NextCursor fetches the next page; empty on the last.
	NextCursor string `json:"nextCursor"`
}

// Settings are the operator's settings.
type Settings struct {
	Maintenance            bool  `json:"maintenance"`
	OrdersDisabled         bool  `json:"ordersDisabled"`
	EligibilityMinTopupUSD Money `json:"eligibilityMinTopupUsd"`
	SimDelayMs             int   `json:"simDelayMs"`
	SimCallMs              int   `json:"simCallMs"`
	// UpstreamBalancePollMinutes is how often upstreams' balances are read (0: never by the clock).
	UpstreamBalancePollMinutes int `json:"upstreamBalancePollMinutes"`
	// ReconcileAt is when the nightly reconciliation runs, "HH:MM" UTC; nil never.
	ReconcileAt *string `json:"reconcileAt"`
	// DepositBank is where resellers transfer deposits to; nil: no tickets open.
	DepositBank *DepositBank `json:"depositBank"`
	// DepositTicketHours is how long a deposit ticket stays pending.
	DepositTicketHours int `json:"depositTicketHours"`
	// DepositSecondApprovalAboveUSD is the credit above which a second operator confirms a deposit.
	DepositSecondApprovalAboveUSD Money `json:"depositSecondApprovalAboveUsd"`
	// HoldAbovePercent is the rise of a price, in percent of the old one,
	// above which a pricing rule's new price waits for an operator.
	HoldAbovePercent Money `json:"holdAbovePercent"`
	// DisputeWindowDays is how many days after completion an order may be
	// disputed; DisputeAnswerHours how long the operator has to answer.
	DisputeWindowDays  int `json:"disputeWindowDays"`
	DisputeAnswerHours int `json:"disputeAnswerHours"`
}

// AuditCheck is one invariant of the books and how many rows break it.
type AuditCheck struct {
	Name       string   `json:"name"`
	OK         bool     `json:"ok"`
	Violations int      `json:"violations"`
	Examples   []string `json:"examples"`
}

// Audit is the answer of GET /admin/audit: Success when every check holds.
type Audit struct {
	Success       bool         `json:"success"`
	Accounts      int          `json:"accounts"`
	Orders        int          `json:"orders"`
	LedgerEntries int          `json:"ledgerEntries"`
	Checks        []AuditCheck `json:"checks"`
}

// Operator is a named operator of the admin API.
type Operator struct {
	Name       string     `json:"name"`
	Role       string     `json:"role"`
	Disabled   bool       `json:"disabled"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastSeenAt *time.Time `json:"lastSeenAt"`
}

// Action is one entry of the action log: an admin change, who made it, and
// the fields it changed.
type Action struct {
	ID        string         `json:"id"`
	At        time.Time      `json:"at"`
	Operator  string         `json:"operator"`
	IP        string         `json:"ip"`
	RequestID string         `json:"requestId"`
	Action    string         `json:"action"`
	Target    string         `json:"target"`
	AccountID string         `json:"accountId,omitempty"`
	Before    map[string]any `json:"before"`
	After     map[string]any `json:"after"`
}

// ActionPage is one page of the action log.
type ActionPage struct {
	Actions []Action
	// NextCursor fetches the next page (as the cursor parameter); empty on the last.
	NextCursor string
}

// Key is what the admin API shows of an API key: never the key.
type Key struct {
	KeyID      string     `json:"keyId"`
	Label      string     `json:"label"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
	RevokedAt  *time.Time `json:"revokedAt"`
	// Sandbox marks a sandbox key (its plaintext starts with tpd_test_).
	Sandbox bool `json:"sandbox"`
}

// AccountPage is one page of accounts.
type AccountPage struct {
	Accounts []AdminAccount
	// NextCursor fetches the next page; empty on the last.
	NextCursor string
}

// SetupLink is a one-time console setup link.
type SetupLink struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expiresAt"`
}
