package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// CreateAccount creates an account named name; fields may set any account
// flag of PATCH as well (nil for none).
func (a *Admin) CreateAccount(ctx context.Context, name string, fields map[string]any) (AdminAccount, error) {
	body := map[string]any{"name": name}
	for k, v := range fields {
		body[k] = v
	}
	var acct AdminAccount
	err := a.Do(ctx, http.MethodPost, "/admin/accounts", body, &acct)
	return acct, err
}

// Account reads one account.
func (a *Admin) Account(ctx context.Context, id string) (AdminAccount, error) {
	var acct AdminAccount
	err := a.Do(ctx, http.MethodGet, "/admin/accounts/"+esc(id), nil, &acct)
	return acct, err
}

// PatchAccount changes the account flags fields names (apiEnabled,
// adminDisabled, banned, restrictedUntil, ipAllowlist, ipAllowlistRequired,
// name); the others keep their values.
func (a *Admin) PatchAccount(ctx context.Context, id string, fields map[string]any) (AdminAccount, error) {
	var acct AdminAccount
	err := a.Do(ctx, http.MethodPatch, "/admin/accounts/"+esc(id), fields, &acct)
	return acct, err
}

// CreateKey makes an API key for an account, with a label ("" for none);
// its plaintext is in the answer only.
func (a *Admin) CreateKey(ctx context.Context, accountID, label string) (NewKey, error) {
	var body any // nil, not a nil map: that would be sent as null
	if label != "" {
		body = map[string]any{"label": label}
	}
	var k NewKey
	err := a.Do(ctx, http.MethodPost, "/admin/accounts/"+esc(accountID)+"/keys", body, &k)
	return k, err
}

// Keys lists an account's keys, newest first: never the keys themselves.
func (a *Admin) Keys(ctx context.Context, accountID string) ([]Key, error) {
	var out struct {
		Keys []Key `json:"keys"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/accounts/"+esc(accountID)+"/keys", nil, &out)
	return out.Keys, err
}

// Accounts reads one page of accounts, newest first: search matches the id
// or a part of the name ("" for all), cursor is the page before's
// NextCursor ("" for the first), limit is 1 to 500 (0: 50).
func (a *Admin) Accounts(ctx context.Context, search, cursor string, limit int) (AccountPage, error) {
	v := url.Values{}
	if search != "" {
		v.Set("q", search)
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	path := "/admin/accounts"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out struct {
		Accounts   []AdminAccount `json:"accounts"`
		NextCursor *string        `json:"nextCursor"`
	}
	err := a.Do(ctx, http.MethodGet, path, nil, &out)
	p := AccountPage{Accounts: out.Accounts}
	if out.NextCursor != nil {
		p.NextCursor = *out.NextCursor
	}
	return p, err
}

// RevokeKey refuses a key from now on.
func (a *Admin) RevokeKey(ctx context.Context, keyID string) error {
	return a.Do(ctx, http.MethodDelete, "/admin/keys/"+esc(keyID), nil, nil)
}

// Credit adds amount (negative: a correction) to an account's balance under
// a reference; a repeated reference credits nothing again.
func (a *Admin) Credit(ctx context.Context, accountID string, amount Money, reference string) (CreditResult, error) {
	var out CreditResult
	err := a.Do(ctx, http.MethodPost, "/admin/accounts/"+esc(accountID)+"/credits",
		map[string]any{"amountUsd": amount, "reference": reference}, &out)
	return out, err
}

// Ledger reads an account's newest limit ledger entries (0: the server's
// default), newest first.
func (a *Admin) Ledger(ctx context.Context, accountID string, limit int) ([]LedgerEntry, error) {
	path := "/admin/accounts/" + esc(accountID) + "/ledger"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var out struct {
		Entries []LedgerEntry `json:"entries"`
	}
	err := a.Do(ctx, http.MethodGet, path, nil, &out)
	return out.Entries, err
}

// PutService creates or replaces the line l.Slug names.
func (a *Admin) PutService(ctx context.Context, l Line) (Line, error) {
	var out Line
	err := a.Do(ctx, http.MethodPut, "/admin/services/"+esc(l.Slug), l, &out)
	return out, err
}

// PatchService changes the fields of a line that fields names.
func (a *Admin) PatchService(ctx context.Context, slug string, fields map[string]any) (Line, error) {
	var out Line
	err := a.Do(ctx, http.MethodPatch, "/admin/services/"+esc(slug), fields, &out)
	return out, err
}

// Services lists every line, the disabled ones too.
func (a *Admin) Services(ctx context.Context) ([]Line, error) {
	var out struct {
		Services []Line `json:"services"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/services", nil, &out)
	return out.Services, err
}

// PutProduct creates or replaces the pack p.PID names.
func (a *Admin) PutProduct(ctx context.Context, p Pack) (Pack, error) {
	var out Pack
	pid := p.PID
	p.Available = 0
	err := a.Do(ctx, http.MethodPut, "/admin/products/"+esc(pid), p, &out)
	return out, err
}

// PatchProduct changes the fields of a pack that fields names; a price
// edit never changes who fulfils the pack.
func (a *Admin) PatchProduct(ctx context.Context, pid string, fields map[string]any) (Pack, error) {
	var out Pack
	err := a.Do(ctx, http.MethodPatch, "/admin/products/"+esc(pid), fields, &out)
	return out, err
}

// Products lists every pack, the disabled ones too, with its stock.
func (a *Admin) Products(ctx context.Context) ([]Pack, error) {
	var out struct {
		Products []Pack `json:"products"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/products", nil, &out)
	return out.Products, err
}

// AddStock adds codes to a pack's stock; a code held anywhere already is
// counted as a duplicate and not added.
func (a *Admin) AddStock(ctx context.Context, pid string, codes []string) (StockResult, error) {
	var out StockResult
	err := a.Do(ctx, http.MethodPost, "/admin/products/"+esc(pid)+"/stock", map[string]any{"codes": codes}, &out)
	return out, err
}

// PutUpstream creates or replaces an upstream server and our API key
// there, once the server has asked it for our balance with the key (a
// refusal is UPSTREAM_KEY_REFUSED, no answer UPSTREAM_UNREACHABLE, and
// nothing is saved). To save one without asking, PUT the body with
// "check": false through Do.
func (a *Admin) PutUpstream(ctx context.Context, name, baseURL, apiKey string) error {
	return a.Do(ctx, http.MethodPut, "/admin/upstreams/"+esc(name), map[string]any{"baseUrl": baseURL, "apiKey": apiKey}, nil)
}

// Upstreams lists every upstream with its health.
func (a *Admin) Upstreams(ctx context.Context) ([]UpstreamServer, error) {
	var out struct {
		Upstreams []UpstreamServer `json:"upstreams"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/upstreams", nil, &out)
	return out.Upstreams, err
}

// Providers lists every supplier's health and stuck orders.
func (a *Admin) Providers(ctx context.Context) ([]Health, error) {
	var out struct {
		Providers []Health `json:"providers"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/providers", nil, &out)
	return out.Providers, err
}

// Orders reads one page of the orders q selects.
func (a *Admin) Orders(ctx context.Context, q AdminOrdersQuery) (AdminOrderPage, error) {
	v := url.Values{}
	for name, s := range map[string]string{"status": q.Status, "accountId": q.AccountID, "trxid": q.TrxID, "pid": q.PID,
		"slug": q.Slug, "provider": q.Provider, "cursor": q.Cursor} {
		if s != "" {
			v.Set(name, s)
		}
	}
	for name, t := range map[string]time.Time{"from": q.From, "to": q.To} {
		if !t.IsZero() {
			v.Set(name, t.UTC().Format(time.RFC3339Nano))
		}
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return a.orderPage(ctx, "/admin/orders", v)
}

// StuckOrders reads the first page of the processing orders that need the
// operator: past their deadline, or carrying an alert.
func (a *Admin) StuckOrders(ctx context.Context) (AdminOrderPage, error) {
	return a.orderPage(ctx, "/admin/orders/stuck", nil)
}

func (a *Admin) orderPage(ctx context.Context, path string, q url.Values) (AdminOrderPage, error) {
	var out struct {
		Orders     []AdminOrder `json:"orders"`
		NextCursor *string      `json:"nextCursor"`
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	err := a.Do(ctx, http.MethodGet, path, nil, &out)
	page := AdminOrderPage{Orders: out.Orders}
	if out.NextCursor != nil {
		page.NextCursor = *out.NextCursor
	}
	return page, err
}

// Order reads one order by its order id or internal id, with its history.
func (a *Admin) Order(ctx context.Context, id string) (AdminOrder, error) {
	var o AdminOrder
	err := a.Do(ctx, http.MethodGet, "/admin/orders/"+esc(id), nil, &o)
	return o, err
}

// OrderCodes reads an order's delivered codes in full: the owner's alone
// (any other role is refused with ROLE_FORBIDDEN). Every other view of an
// order shows each code masked to its last 4 characters, and each call of
// this one is recorded in the action log as order.codes-viewed.
func (a *Admin) OrderCodes(ctx context.Context, id string) ([]string, error) {
	var out struct {
		Codes []string `json:"codes"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/orders/"+esc(id)+"/codes", nil, &out)
	return out.Codes, err
}

// CompleteOrder completes a processing order, delivering codes (nil for a top-up).
func (a *Admin) CompleteOrder(ctx context.Context, id string, codes []string) (AdminOrder, error) {
	var body any // nil, not a nil map: that would be sent as null
	if codes != nil {
		body = map[string]any{"codes": codes}
	}
	var o AdminOrder
	err := a.Do(ctx, http.MethodPost, "/admin/orders/"+esc(id)+"/complete", body, &o)
	return o, err
}

// CancelOrder cancels a processing order with an error, refunding it when refund is true.
func (a *Admin) CancelOrder(ctx context.Context, id, errText string, refund bool) (AdminOrder, error) {
	var o AdminOrder
	err := a.Do(ctx, http.MethodPost, "/admin/orders/"+esc(id)+"/cancel", map[string]any{"error": errText, "refund": refund}, &o)
	return o, err
}

// RetryOrder makes a processing order due now, with a fresh deadline.
func (a *Admin) RetryOrder(ctx context.Context, id string) (AdminOrder, error) {
	var o AdminOrder
	err := a.Do(ctx, http.MethodPost, "/admin/orders/"+esc(id)+"/retry", nil, &o)
	return o, err
}

// Settings reads the settings.
func (a *Admin) Settings(ctx context.Context) (Settings, error) {
	var s Settings
	err := a.Do(ctx, http.MethodGet, "/admin/settings", nil, &s)
	return s, err
}

// PatchSettings changes the settings fields names (maintenance,
// ordersDisabled, eligibilityMinTopupUsd, simDelayMs, simCallMs).
func (a *Admin) PatchSettings(ctx context.Context, fields map[string]any) (Settings, error) {
	var s Settings
	err := a.Do(ctx, http.MethodPatch, "/admin/settings", fields, &s)
	return s, err
}

// Audit checks every invariant of the books.
func (a *Admin) Audit(ctx context.Context) (Audit, error) {
	var au Audit
	err := a.Do(ctx, http.MethodGet, "/admin/audit", nil, &au)
	return au, err
}

// CreateOperator adds an operator with a role (owner, finance, support or
// viewer) and returns their first token, shown this once.
func (a *Admin) CreateOperator(ctx context.Context, name, role string) (token string, err error) {
	var out struct {
		Token string `json:"token"`
	}
	err = a.Do(ctx, http.MethodPost, "/admin/operators", map[string]any{"name": name, "role": role}, &out)
	return out.Token, err
}

// Operators lists every named operator.
func (a *Admin) Operators(ctx context.Context) ([]Operator, error) {
	var out struct {
		Operators []Operator `json:"operators"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/operators", nil, &out)
	return out.Operators, err
}

// PatchOperator changes an operator's role or disabled flag (fields names them).
func (a *Admin) PatchOperator(ctx context.Context, name string, fields map[string]any) error {
	return a.Do(ctx, http.MethodPatch, "/admin/operators/"+esc(name), fields, nil)
}

// CreateOperatorToken gives an operator one more token, shown this once.
func (a *Admin) CreateOperatorToken(ctx context.Context, name string) (string, error) {
	var out struct {
		Token string `json:"token"`
	}
	err := a.Do(ctx, http.MethodPost, "/admin/operators/"+esc(name)+"/tokens", nil, &out)
	return out.Token, err
}

// SetupLink makes a one-time console setup link for an operator, valid
// 24 h: where they set a password and enrol TOTP.
func (a *Admin) SetupLink(ctx context.Context, name string) (SetupLink, error) {
	var out SetupLink
	err := a.Do(ctx, http.MethodPost, "/admin/operators/"+esc(name)+"/setup-link", nil, &out)
	return out, err
}

// Actions reads one page of the action log, newest first; query holds its
// filters (operator, accountId, action, from, to, limit, cursor).
func (a *Admin) Actions(ctx context.Context, query url.Values) (ActionPage, error) {
	path := "/admin/actions"
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	var out struct {
		Actions    []Action `json:"actions"`
		NextCursor *string  `json:"nextCursor"`
	}
	err := a.Do(ctx, http.MethodGet, path, nil, &out)
	p := ActionPage{Actions: out.Actions}
	if out.NextCursor != nil {
		p.NextCursor = *out.NextCursor
	}
	return p, err
}

// StockPacks reads the packs whose orders draw codes from their own stock,
// as the server decides it: packs of key and card lines (gamekey,
// giftcard) and stock-based packs, unless an upstream fulfils them; each
// with StockBased set.
func (a *Admin) StockPacks(ctx context.Context) ([]Pack, error) {
	lines, err := a.Services(ctx)
	if err != nil {
		return nil, err
	}
	stocked := map[string]bool{}
	for _, l := range lines {
		stocked[l.Slug] = l.Kind == "gamekey" || l.Kind == "giftcard"
	}
	packs, err := a.Products(ctx)
	if err != nil {
		return nil, err
	}
	var out []Pack
	for _, p := range packs {
		if (stocked[p.Slug] || p.StockBased) && p.Provider != "upstream" {
			p.StockBased = true
			out = append(out, p)
		}
	}
	return out, nil
}
