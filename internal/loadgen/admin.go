package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// Admin is a small client of topupd's admin API: what the generator needs
// to set up its accounts and catalog and to check the books.
type Admin struct {
	Base  string // for example http://127.0.0.1:8081, no trailing slash
	Token string
	HTTP  *http.Client
	// Retries is how many times a call that failed in transit or with a
	// 502/503/504 is tried again (the server may be restarting).
	Retries int
}

// NewAdmin returns an admin client of base with token.
func NewAdmin(base, token string) *Admin {
	return &Admin{Base: strings.TrimRight(base, "/"), Token: token, Retries: 5,
		HTTP: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}}
}

// AdminError is a non-2xx answer of the admin API.
type AdminError struct {
	Method, Path string
	Status       int
	Code         string
	Message      string
}

func (e *AdminError) Error() string {
	return fmt.Sprintf("admin API %s %s: %d %s %s", e.Method, e.Path, e.Status, e.Code, e.Message)
}

// IsStatus reports whether err is an *AdminError with this status.
func IsStatus(err error, status int) bool {
	e, ok := err.(*AdminError)
	return ok && e.Status == status
}

// Do calls method path with body (JSON, nil for none) and decodes a 2xx
// answer into out (when not nil).
func (a *Admin) Do(ctx context.Context, method, path string, body, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
	}
	var last error
	for try := 0; ; try++ {
		status, answer, err := a.once(ctx, method, path, raw)
		switch {
		case err != nil:
			last = err
		case status >= 200 && status < 300:
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(answer, out); err != nil {
				return fmt.Errorf("admin API %s %s: decoding the answer: %w", method, path, err)
			}
			return nil
		default:
			var f struct{ Code, Error string }
			json.Unmarshal(answer, &f)
			last = &AdminError{Method: method, Path: path, Status: status, Code: f.Code, Message: f.Error}
			if status != http.StatusBadGateway && status != http.StatusServiceUnavailable && status != http.StatusGatewayTimeout {
				return last
			}
		}
		if try >= a.Retries || ctx.Err() != nil {
			return last
		}
		select {
		case <-time.After(time.Duration(100<<min(try, 4)) * time.Millisecond):
		case <-ctx.Done():
			return last
		}
	}
}

func (a *Admin) once(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("admin API %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("admin API %s %s: %w", method, path, err)
	}
	return resp.StatusCode, answer, nil
}

// AdminAccount is an account as the admin API shows it.
type AdminAccount struct {
	ID         string       `json:"id"`
	Name       string       `json:"name"`
	BalanceUsd topupd.Money `json:"balanceUsd"`
}

// LedgerEntry is one ledger entry as the admin API shows it.
type LedgerEntry struct {
	ID              string       `json:"id"`
	Kind            string       `json:"kind"`
	AmountUsd       topupd.Money `json:"amountUsd"`
	BalanceAfterUsd topupd.Money `json:"balanceAfterUsd"`
	OrderID         string       `json:"orderId,omitempty"`
	Reference       string       `json:"reference,omitempty"`
}

// AdminOrder is an order as the admin API shows it.
type AdminOrder struct {
	ID        string       `json:"id"`
	AccountID string       `json:"accountId"`
	OrderID   string       `json:"orderId"`
	TrxID     string       `json:"trxid"`
	Status    string       `json:"status"`
	PID       string       `json:"pid"`
	Quantity  int          `json:"quantity"`
	AmountUsd topupd.Money `json:"amountUsd"`
	Codes     []string     `json:"codes"`
	Error     string       `json:"error"`
	Refunded  *bool        `json:"refunded"`
}

// AdminPack is a pack as the admin API shows it.
type AdminPack struct {
	PID        string `json:"pid"`
	Slug       string `json:"slug"`
	StockBased bool   `json:"stockBased"`
	Available  int    `json:"available"`
}

// AdminLine is a service line as the admin API shows it.
type AdminLine struct {
	Slug string `json:"slug"`
	Kind string `json:"kind"`
}

// Account reads one account.
func (a *Admin) Account(ctx context.Context, id string) (AdminAccount, error) {
	var acct AdminAccount
	err := a.Do(ctx, "GET", "/admin/accounts/"+url.PathEscape(id), nil, &acct)
	return acct, err
}

// LedgerLimit is the most entries one ledger read asks for (the admin API's maximum).
const LedgerLimit = 100_000

// Ledger reads an account's ledger, newest first.
func (a *Admin) Ledger(ctx context.Context, id string) ([]LedgerEntry, error) {
	var out struct {
		Entries []LedgerEntry `json:"entries"`
	}
	err := a.Do(ctx, "GET", "/admin/accounts/"+url.PathEscape(id)+"/ledger?limit="+strconv.Itoa(LedgerLimit), nil, &out)
	return out.Entries, err
}

// Order reads one order.
func (a *Admin) Order(ctx context.Context, id string) (AdminOrder, error) {
	var o AdminOrder
	err := a.Do(ctx, "GET", "/admin/orders/"+url.PathEscape(id), nil, &o)
	return o, err
}

// Orders lists orders of every account, newest first, by status ("" for all).
func (a *Admin) Orders(ctx context.Context, status string, limit int) ([]AdminOrder, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if status != "" {
		q.Set("status", status)
	}
	var out struct {
		Orders []AdminOrder `json:"orders"`
	}
	err := a.Do(ctx, "GET", "/admin/orders?"+q.Encode(), nil, &out)
	return out.Orders, err
}

// Packs lists every pack.
func (a *Admin) Packs(ctx context.Context) ([]AdminPack, error) {
	var out struct {
		Products []AdminPack `json:"products"`
	}
	err := a.Do(ctx, "GET", "/admin/products", nil, &out)
	return out.Products, err
}

// Lines lists every service line.
func (a *Admin) Lines(ctx context.Context) ([]AdminLine, error) {
	var out struct {
		Services []AdminLine `json:"services"`
	}
	err := a.Do(ctx, "GET", "/admin/services", nil, &out)
	return out.Services, err
}

// AuditCheck is one check of GET /admin/audit.
type AuditCheck struct {
	Name       string   `json:"name"`
	OK         bool     `json:"ok"`
	Violations int      `json:"violations"`
	Examples   []string `json:"examples"`
}

// Audit is the answer of GET /admin/audit.
type Audit struct {
	Success bool         `json:"success"`
	Checks  []AuditCheck `json:"checks"`
}

// Audit calls GET /admin/audit; found is false when the server has no such
// endpoint (404).
func (a *Admin) Audit(ctx context.Context) (au Audit, found bool, err error) {
	err = a.Do(ctx, "GET", "/admin/audit", nil, &au)
	if IsStatus(err, http.StatusNotFound) {
		return au, false, nil
	}
	return au, err == nil, err
}

// Settings are the admin settings the generator reads and changes.
type Settings struct {
	Maintenance    bool `json:"maintenance"`
	OrdersDisabled bool `json:"ordersDisabled"`
	SimDelayMs     int  `json:"simDelayMs"`
	SimCallMs      int  `json:"simCallMs"`
}
