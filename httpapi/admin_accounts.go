package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// writeAccount answers an account with its balance.
func writeAccount(w http.ResponseWriter, status int, acct service.Account) error {
	writeJSON(w, status, viewAccount(&acct))
	return nil
}

// viewAccount is an account with its balance, as the operator sees it.
func viewAccount(acct *service.Account) client.AdminAccount {
	v := client.AdminAccount{ID: acct.ID, Name: acct.Name, BalanceUSD: acct.Balance, APIEnabled: acct.APIEnabled, AdminDisabled: acct.AdminDisabled,
		Banned: acct.Banned, RestrictedUntil: acct.RestrictedUntil, IPAllowlist: acct.IPAllowlist, IPAllowlistRequired: acct.IPAllowlistRequired,
		CreatedAt: acct.CreatedAt, Tier: nullable(acct.Tier)}
	if r := acct.ClaimRatio30d; r != nil {
		ratio := topupd.Money(*r)
		v.ClaimRatio30d = &ratio
	}
	for _, l := range topupd.LimitSettings {
		if dst := v.Limit(l.Name); dst != nil {
			*dst = *l.Of(&acct.Limits)
		}
	}
	if v.IPAllowlist == nil {
		v.IPAllowlist = []string{}
	}
	return v
}

// readAccountPatch reads a body of account fields (the service decides
// which of them the caller's role may change).
func readAccountPatch(r *http.Request) (topupd.AccountPatch, error) {
	obj, err := readAdminObject(r)
	if err != nil {
		return topupd.AccountPatch{}, err
	}
	p := obj.accountPatch()
	return p, obj.done()
}

func (a *admin) createAccount(w http.ResponseWriter, r *http.Request) error {
	p, err := readAccountPatch(r)
	if err != nil {
		return err
	}
	acct, err := a.Service.CreateAccount(r.Context(), a.actor(r), p)
	if err != nil {
		return err
	}
	return writeAccount(w, http.StatusCreated, acct)
}

func (a *admin) getAccount(w http.ResponseWriter, r *http.Request) error {
	acct, err := a.Service.Account(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeAccount(w, http.StatusOK, acct)
}

func (a *admin) patchAccount(w http.ResponseWriter, r *http.Request) error {
	p, err := readAccountPatch(r)
	if err != nil {
		return err
	}
	acct, err := a.Service.UpdateAccount(r.Context(), a.actor(r), r.PathValue("id"), p)
	if err != nil {
		return err
	}
	return writeAccount(w, http.StatusOK, acct)
}

// The answers below list their members in alphabetical order, the order
// in which the maps they replace were encoded: the bytes stay the same.

// newKeyAnswer is the answer of a key just made: the key, shown this once.
type newKeyAnswer struct {
	APIKey  string `json:"apiKey"`
	KeyID   string `json:"keyId"`
	Sandbox bool   `json:"sandbox,omitempty"`
	Success bool   `json:"success"`
}

// rotatedKeyAnswer is the answer of a key made in place of another.
type rotatedKeyAnswer struct {
	APIKey          string `json:"apiKey"`
	KeyID           string `json:"keyId"`
	OldKeyID        string `json:"oldKeyId"`
	OldKeyRevokedAt string `json:"oldKeyRevokedAt"`
	Success         bool   `json:"success"`
}

// readLabel reads a key's body: an optional label (nil when absent).
func readLabel(r *http.Request) (*string, error) {
	obj, err := readAdminObject(r)
	if err != nil {
		return nil, err
	}
	var label string
	labelled := obj.take("label", &label)
	if err := obj.done(); err != nil {
		return nil, err
	}
	if !labelled {
		return nil, nil
	}
	return &label, nil
}

// createKey makes a key: a live key, or with "sandbox": true a sandbox key.
func (a *admin) createKey(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var label string
	var sandbox bool
	obj.take("label", &label)
	obj.take("sandbox", &sandbox)
	if err := obj.done(); err != nil {
		return err
	}
	create := a.Service.CreateKey
	if sandbox {
		create = a.Service.CreateSandboxKey
	}
	k, err := create(r.Context(), a.actor(r), r.PathValue("id"), label)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, newKeyAnswer{APIKey: k.Secret, KeyID: k.ID, Sandbox: k.Sandbox, Success: true})
	return nil
}

// rotateKey makes a new key for the account, with the old key's label
// unless the body names one, and revokes the old key a day later
// (topupd.KeyRotationOverlap): clients move over in that time.
func (a *admin) rotateKey(w http.ResponseWriter, r *http.Request) error {
	label, err := readLabel(r)
	if err != nil {
		return err
	}
	k, err := a.Service.RotateKey(r.Context(), a.actor(r), r.PathValue("id"), r.PathValue("keyId"), label)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, rotatedKeyAnswer{APIKey: k.Secret, KeyID: k.ID, OldKeyID: k.OldKeyID,
		OldKeyRevokedAt: k.OldRevokedAt.UTC().Format(time.RFC3339Nano), Success: true})
	return nil
}

// keysAnswer is an account's keys.
type keysAnswer struct {
	Keys    []client.Key `json:"keys"`
	Success bool         `json:"success"`
}

// listKeys answers an account's keys, newest first.
func (a *admin) listKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := a.Service.Keys(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	out := make([]client.Key, len(keys))
	for i, k := range keys {
		out[i] = client.Key{KeyID: k.ID, Label: k.Label, Prefix: k.Prefix, CreatedAt: k.CreatedAt.UTC(),
			LastUsedAt: utcPtr(k.LastUsedAt), RevokedAt: utcPtr(k.RevokedAt), Sandbox: k.Sandbox}
	}
	writeJSON(w, http.StatusOK, keysAnswer{Success: true, Keys: out})
	return nil
}

// accountsFilters are the filters of GET /admin/accounts besides paging.
var accountsFilters = map[string]bool{"q": true}

// accountsAnswer is a page of accounts.
type accountsAnswer struct {
	Accounts   []client.AdminAccount `json:"accounts"`
	NextCursor *string               `json:"nextCursor"`
	Success    bool                  `json:"success"`
}

// listAccounts answers accounts newest first: q matches the id or a part
// of the name; the cursor names the last account of the page before.
func (a *admin) listAccounts(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	p, err := parsePage(v, accountsFilters, accountsCursor)
	if err != nil {
		return err
	}
	page, err := a.Service.Accounts(r.Context(), a.actor(r), service.AccountsQuery{Search: v.Get("q"), Cursor: v.Get("cursor"), Limit: p.Limit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountsAnswer{Success: true, Accounts: viewEach(page.Accounts, viewAccount), NextCursor: nullable(page.NextCursor)})
	return nil
}

// keyRevoked is the answer of a key revoked.
type keyRevoked struct {
	KeyID   string `json:"keyId"`
	Revoked bool   `json:"revoked"`
	Success bool   `json:"success"`
}

func (a *admin) revokeKey(w http.ResponseWriter, r *http.Request) error {
	keyID := r.PathValue("keyId")
	if err := a.Service.RevokeKey(r.Context(), a.actor(r), keyID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, keyRevoked{Success: true, KeyID: keyID, Revoked: true})
	return nil
}

// creditAnswer is what a credit did.
type creditAnswer struct {
	BalanceUsd topupd.Money `json:"balanceUsd"`
	EntryID    string       `json:"entryId"`
	Repeated   bool         `json:"repeated"`
	Success    bool         `json:"success"`
}

func (a *admin) credit(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	amount, ok := obj.money("amountUsd")
	var ref string
	var sandbox bool
	obj.take("reference", &ref)
	obj.take("sandbox", &sandbox)
	if err := obj.done(); err != nil {
		return err
	}
	if !ok {
		return topupd.Errorf(topupd.EInvalidBody, "amountUsd is required")
	}
	credit := a.Service.Credit
	if sandbox { // the account's sandbox balance
		credit = a.Service.CreditSandbox
	}
	c, err := credit(r.Context(), a.actor(r), r.PathValue("id"), amount, ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, creditAnswer{Success: true, BalanceUsd: c.Balance, EntryID: entryID(c.Entry.ID), Repeated: c.Repeated})
	return nil
}

// entryID spells a ledger entry id.
func entryID(id int64) string { return "led_" + itoa(id) }

// ledgerAnswer is an account's newest ledger entries.
type ledgerAnswer struct {
	Entries []client.LedgerEntry `json:"entries"`
	Success bool                 `json:"success"`
}

func (a *admin) ledger(w http.ResponseWriter, r *http.Request) error {
	limit, lerr := clampParam(r.URL.Query().Get("limit"), "limit", service.DefaultLedger, 1, service.MaxLedger)
	entries, err := a.Service.Ledger(r.Context(), a.actor(r), r.PathValue("id"), limit)
	if lerr != nil && err == nil { // an unknown account is answered before a bad limit
		return lerr
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ledgerAnswer{Success: true, Entries: viewEntries(entries)})
	return nil
}

// viewEntries shows ledger entries as the admin API does.
func viewEntries(entries []topupd.LedgerEntry) []client.LedgerEntry {
	out := make([]client.LedgerEntry, len(entries))
	for i, e := range entries {
		out[i] = client.LedgerEntry{ID: entryID(e.ID), Kind: string(e.Kind), AmountUSD: e.Amount, BalanceAfterUSD: e.BalanceAfter,
			OrderID: e.OrderID, Reference: e.Reference, CreatedAt: e.CreatedAt}
	}
	return out
}
