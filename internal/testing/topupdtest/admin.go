package topupdtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/topupd/topupd/client"
)

// Account is a reseller account with one live key.
type Account struct {
	ID    string
	Key   string
	KeyID string
}

// ctx is the context of the harness's own admin calls.
func (h *T) ctx() context.Context { return context.Background() }

// must fails the test on an admin call's error.
func (h *T) must(what string, err error) {
	h.TB.Helper()
	if err != nil {
		h.TB.Fatalf("%s: %v", what, err)
	}
}

// NewAccount creates an account with the given flags, a key and, when
// credit is not "", one credit.
func (h *T) NewAccount(credit string, flags map[string]any) Account {
	h.TB.Helper()
	acct, err := h.AdminClient.CreateAccount(h.ctx(), fmt.Sprintf("reseller %d", h.seq.Add(1)), flags)
	h.must("creating an account", err)
	k, err := h.AdminClient.CreateKey(h.ctx(), acct.ID, "")
	h.must("creating a key", err)
	if acct.ID == "" || k.APIKey == "" || k.KeyID == "" {
		h.TB.Fatalf("a new account %+v with key %+v", acct, k)
	}
	a := Account{ID: acct.ID, Key: k.APIKey, KeyID: k.KeyID}
	h.Logs.Secret(a.Key, "the API key of "+a.ID)
	if credit != "" {
		h.Credit(a, credit)
	}
	return a
}

// Credit credits an account under a fresh reference.
func (h *T) Credit(a Account, amount string) {
	h.TB.Helper()
	_, err := h.AdminClient.Credit(h.ctx(), a.ID, ParseClientUSD(h.TB, amount), fmt.Sprintf("ref-%d", h.seq.Add(1)))
	h.must("crediting "+a.ID, err)
}

// PatchAccount changes account flags.
func (h *T) PatchAccount(a Account, flags map[string]any) {
	h.TB.Helper()
	_, err := h.AdminClient.PatchAccount(h.ctx(), a.ID, flags)
	h.must("patching "+a.ID, err)
}

// Settings changes the operator settings.
func (h *T) Settings(patch map[string]any) {
	h.TB.Helper()
	_, err := h.AdminClient.PatchSettings(h.ctx(), patch)
	h.must("patching the settings", err)
}

// PutLine creates or replaces a service line.
func (h *T) PutLine(slug string, line map[string]any) {
	h.TB.Helper()
	h.must("PUT /admin/services/"+slug, h.AdminClient.Do(h.ctx(), "PUT", "/admin/services/"+slug, line, nil))
}

// PutPack creates or replaces a pack.
func (h *T) PutPack(pid string, pack map[string]any) {
	h.TB.Helper()
	h.must("PUT /admin/products/"+pid, h.AdminClient.Do(h.ctx(), "PUT", "/admin/products/"+pid, pack, nil))
}

// AddStock adds n fresh codes to a pack and returns them.
func (h *T) AddStock(pid string, n int) []string {
	h.TB.Helper()
	codes := make([]string, n)
	for i := range codes {
		codes[i] = fmt.Sprintf("%s-CODE-%04d-%d", strings.ToUpper(pid), i, h.seq.Add(1))
	}
	r, err := h.AdminClient.AddStock(h.ctx(), pid, codes)
	h.must("adding stock to "+pid, err)
	if r.Added != n {
		h.TB.Fatalf("add stock %s: %+v, want %d added", pid, r, n)
	}
	h.Codes[pid] = append(h.Codes[pid], codes...)
	for _, c := range codes {
		h.Logs.Secret(c, "a code of "+pid)
	}
	return codes
}

// Entry is one ledger entry as the admin API shows it.
type Entry struct {
	Kind      string
	AmountUsd string
	OrderID   string
}

// Ledger returns the account's entries, newest first.
func (h *T) Ledger(a Account) []Entry {
	h.TB.Helper()
	entries, err := h.AdminClient.Ledger(h.ctx(), a.ID, 0)
	h.must("reading the ledger of "+a.ID, err)
	out := make([]Entry, len(entries))
	for i, e := range entries {
		out[i] = Entry{Kind: e.Kind, AmountUsd: e.AmountUSD.String(), OrderID: e.OrderID}
	}
	return out
}

// AdminOrder reads one order through the admin API.
func (h *T) AdminOrder(id string) client.AdminOrder {
	h.TB.Helper()
	o, err := h.AdminClient.Order(h.ctx(), id)
	h.must("reading order "+id, err)
	return o
}

// AdminCall calls the admin API through AdminClient and decodes a 2xx
// answer into out (when not nil); any other answer fails the test.
func (h *T) AdminCall(method, path string, body, out any) {
	h.TB.Helper()
	h.must(method+" "+path, h.AdminClient.Do(h.ctx(), method, path, body, out))
}

// NewOperator adds an operator with a role, through the admin API as root,
// and returns their token (registered as a secret of the log).
func (h *T) NewOperator(name, role string) string {
	h.TB.Helper()
	var out struct {
		Token string `json:"token"`
	}
	h.AdminCall("POST", "/admin/operators", map[string]any{"name": name, "role": role}, &out)
	if out.Token == "" {
		h.TB.Fatalf("operator %s: no token", name)
	}
	h.Logs.Secret(out.Token, "the token of operator "+name)
	return out.Token
}

// AdminAs calls the admin API with an operator's token.
func (h *T) AdminAs(token, method, path string, body any) Reply {
	h.TB.Helper()
	r, err := h.Call(h.Admin.URL, method, path, Headers{"Authorization": "Bearer " + token}, body)
	if err != nil {
		h.TB.Fatal(err)
	}
	return r
}

// AuditClean fails the test on any violation of GET /admin/audit's
// checks, but those named in except.
func (h *T) AuditClean(except ...string) {
	h.TB.Helper()
	audit := h.AdminOK(http.StatusOK, "GET", "/admin/audit", nil)
	checks, _ := audit.Body["checks"].([]any)
	if len(checks) == 0 {
		h.TB.Fatalf("audit: no checks in %v", audit)
	}
	for _, c := range checks {
		c, _ := c.(map[string]any)
		if !slices.Contains(except, fmt.Sprint(c["name"])) && fmt.Sprint(c["violations"]) != "0" {
			h.TB.Errorf("audit: %v", c)
		}
	}
}
