package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// accountView is an account as the operator sees it.
type accountView struct {
	ID                  string       `json:"id"`
	Name                string       `json:"name"`
	BalanceUsd          topupd.Money `json:"balanceUsd"`
	APIEnabled          bool         `json:"apiEnabled"`
	AdminDisabled       bool         `json:"adminDisabled"`
	Banned              bool         `json:"banned"`
	RestrictedUntil     *string      `json:"restrictedUntil"`
	IPAllowlist         []string     `json:"ipAllowlist"`
	IPAllowlistRequired bool         `json:"ipAllowlistRequired"`
	CreatedAt           string       `json:"createdAt"`
	// Tier, MaxOrderUsd and DailyLimitUsd are null when not set.
	Tier          *string       `json:"tier"`
	MaxOrderUsd   *topupd.Money `json:"maxOrderUsd"`
	DailyLimitUsd *topupd.Money `json:"dailyLimitUsd"`
}

func (a *admin) writeAccount(w http.ResponseWriter, r *http.Request, status int, acct topupd.Account) error {
	v, err := a.viewAccount(r, acct)
	if err != nil {
		return err
	}
	writeJSON(w, status, v)
	return nil
}

// viewAccount is an account with its balance.
func (a *admin) viewAccount(r *http.Request, acct topupd.Account) (accountView, error) {
	bal, err := a.Store.Balance(r.Context(), acct.ID)
	if err != nil {
		return accountView{}, err
	}
	v := accountView{ID: acct.ID, Name: acct.Name, BalanceUsd: bal, APIEnabled: acct.APIEnabled, AdminDisabled: acct.AdminDisabled,
		Banned: acct.Banned, IPAllowlist: acct.IPAllowlist, IPAllowlistRequired: acct.IPAllowlistRequired,
		CreatedAt: acct.CreatedAt.Format(time.RFC3339Nano), MaxOrderUsd: acct.Limits.MaxOrder, DailyLimitUsd: acct.Limits.Daily}
	if acct.Tier != "" {
		v.Tier = &acct.Tier
	}
	if v.IPAllowlist == nil {
		v.IPAllowlist = []string{}
	}
	if acct.RestrictedUntil != nil {
		s := acct.RestrictedUntil.Format(time.RFC3339Nano)
		v.RestrictedUntil = &s
	}
	return v, nil
}

// readAccountPatch reads a body of account fields.
func readAccountPatch(r *http.Request) (topupd.AccountPatch, error) {
	obj, err := readAdminObject(r)
	if err != nil {
		return topupd.AccountPatch{}, err
	}
	p := obj.accountPatch()
	if err := obj.done(); err != nil {
		return p, err
	}
	// A tier and spending limits decide what the account pays: finance's
	// (and the owner's); the rest of the account is support's.
	if p.Priced() {
		if err := may(r, topupd.PermPrices); err != nil {
			return p, err
		}
	}
	if p.Flagged() {
		return p, may(r, topupd.PermAccounts)
	}
	return p, nil
}

func (a *admin) createAccount(w http.ResponseWriter, r *http.Request) error {
	p, err := readAccountPatch(r)
	if err != nil {
		return err
	}
	if p.Name == nil {
		return topupd.Errorf(topupd.EInvalidBody, "name is required")
	}
	acct, err := p.Apply(topupd.Account{ID: topupd.NewID("acc_"), APIEnabled: true, IPAllowlist: []string{}, CreatedAt: a.Now()})
	if err != nil {
		return err
	}
	acct, err = a.Store.CreateAccount(r.Context(), acct)
	if err != nil {
		return err
	}
	return a.writeAccount(w, r, http.StatusCreated, acct)
}

func (a *admin) getAccount(w http.ResponseWriter, r *http.Request) error {
	acct, err := a.Store.Account(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return a.writeAccount(w, r, http.StatusOK, acct)
}

func (a *admin) patchAccount(w http.ResponseWriter, r *http.Request) error {
	p, err := readAccountPatch(r)
	if err != nil {
		return err
	}
	acct, err := a.Store.UpdateAccount(r.Context(), r.PathValue("id"), p)
	if err != nil {
		return err
	}
	return a.writeAccount(w, r, http.StatusOK, acct)
}

func (a *admin) createKey(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var label string
	obj.take("label", &label)
	if err := obj.done(); err != nil {
		return err
	}
	if len(label) > 100 {
		return topupd.Errorf(topupd.EInvalidBody, "label: at most 100 characters")
	}
	key, hash := topupd.NewAPIKey()
	k := topupd.APIKey{ID: topupd.NewID("key_"), AccountID: r.PathValue("id"), Label: label, Prefix: key[:topupd.KeyPrefixLen], CreatedAt: a.Now()}
	if err := a.Store.AddKey(r.Context(), k, hash); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"success": true, "keyId": k.ID, "apiKey": key})
	return nil
}

// rotateKey makes a new key for the account, with the old key's label
// unless the body names one, and revokes the old key a day later
// (topupd.KeyRotationOverlap): clients move over in that time.
func (a *admin) rotateKey(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var label string
	labelled := obj.take("label", &label)
	if err := obj.done(); err != nil {
		return err
	}
	if len(label) > 100 {
		return topupd.Errorf(topupd.EInvalidBody, "label: at most 100 characters")
	}
	accountID, oldID := r.PathValue("id"), r.PathValue("keyId")
	if !labelled {
		keys, err := a.Store.Keys(r.Context(), accountID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if k.ID == oldID {
				label = k.Label
			}
		}
	}
	now := a.Now()
	key, hash := topupd.NewAPIKey()
	k := topupd.APIKey{ID: topupd.NewID("key_"), AccountID: accountID, Label: label, Prefix: key[:topupd.KeyPrefixLen], CreatedAt: now}
	revokeAt := now.Add(topupd.KeyRotationOverlap)
	if err := a.Store.RotateKey(r.Context(), oldID, k, hash, revokeAt); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"success": true, "keyId": k.ID, "apiKey": key, "oldKeyId": oldID,
		"oldKeyRevokedAt": revokeAt.UTC().Format(time.RFC3339Nano)})
	return nil
}

// keyView is a key as the operator sees it: never the key itself.
type keyView struct {
	KeyID      string  `json:"keyId"`
	Label      string  `json:"label"`
	Prefix     string  `json:"prefix"`
	CreatedAt  string  `json:"createdAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	RevokedAt  *string `json:"revokedAt"`
}

// listKeys answers an account's keys, newest first.
func (a *admin) listKeys(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := a.Store.Account(r.Context(), id); err != nil {
		return err
	}
	keys, err := a.Store.Keys(r.Context(), id)
	if err != nil {
		return err
	}
	out := make([]keyView, len(keys))
	for i, k := range keys {
		out[i] = keyView{KeyID: k.ID, Label: k.Label, Prefix: k.Prefix, CreatedAt: rfc3339(k.CreatedAt),
			LastUsedAt: rfc3339Ptr(k.LastUsedAt), RevokedAt: rfc3339Ptr(k.RevokedAt)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "keys": out})
	return nil
}

// rfc3339 spells a time as the API does.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// rfc3339Ptr spells a time that may be absent (null).
func rfc3339Ptr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := rfc3339(*t)
	return &s
}

// accountsFilters are the filters of GET /admin/accounts besides paging.
var accountsFilters = map[string]bool{"q": true}

// listAccounts answers accounts newest first: q matches the id or a part
// of the name; the cursor names the last account of the page before.
func (a *admin) listAccounts(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	p, err := parsePage(v, accountsFilters, accountsCursor)
	if err != nil {
		return err
	}
	q := topupd.AccountsQuery{Search: strings.TrimSpace(v.Get("q")), Limit: p.Limit + 1}
	if p.After != "" {
		after, err := a.Store.Account(r.Context(), p.After)
		if err != nil {
			return topupd.Errorf(topupd.EInvalidRequest, "cursor: not one this list gave")
		}
		q.After = &after
	}
	accts, err := a.Store.Accounts(r.Context(), q)
	if err != nil {
		return err
	}
	var next *string
	if len(accts) > p.Limit {
		accts = accts[:p.Limit]
		next = cursorOf(accountsCursor, accts[len(accts)-1].ID)
	}
	out := make([]accountView, len(accts))
	for i := range accts {
		if out[i], err = a.viewAccount(r, accts[i]); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "accounts": out, "nextCursor": next})
	return nil
}

func (a *admin) revokeKey(w http.ResponseWriter, r *http.Request) error {
	keyID := r.PathValue("keyId")
	if err := a.Store.RevokeKey(r.Context(), keyID, a.Now()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "keyId": keyID, "revoked": true})
	return nil
}

func (a *admin) credit(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	amount, ok := obj.money("amountUsd")
	var ref string
	obj.take("reference", &ref)
	if err := obj.done(); err != nil {
		return err
	}
	switch {
	case !ok:
		return topupd.Errorf(topupd.EInvalidBody, "amountUsd is required")
	case amount == 0:
		return topupd.Errorf(topupd.EInvalidBody, "amountUsd must not be 0")
	case strings.TrimSpace(ref) == "" || len(ref) > 200:
		return topupd.Errorf(topupd.EInvalidBody, "reference is required (at most 200 characters)")
	}
	id := r.PathValue("id")
	e, repeated, err := a.Store.Credit(r.Context(), id, amount, ref, a.Now())
	if err != nil {
		return err
	}
	bal, err := a.Store.Balance(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "balanceUsd": bal, "entryId": entryID(e.ID), "repeated": repeated})
	return nil
}

// entryID spells a ledger entry id.
func entryID(id int64) string { return "led_" + itoa(id) }

// entryView is a ledger entry as the operator sees it.
type entryView struct {
	ID              string       `json:"id"`
	Kind            string       `json:"kind"`
	AmountUsd       topupd.Money `json:"amountUsd"`
	BalanceAfterUsd topupd.Money `json:"balanceAfterUsd"`
	OrderID         string       `json:"orderId,omitempty"`
	Reference       string       `json:"reference,omitempty"`
	CreatedAt       string       `json:"createdAt"`
}

func (a *admin) ledger(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if _, err := a.Store.Account(r.Context(), id); err != nil {
		return err
	}
	limit, err := clampParam(r.URL.Query().Get("limit"), "limit", 1000, 1, 100_000)
	if err != nil {
		return err
	}
	entries, err := a.Store.Ledger(r.Context(), id, limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "entries": viewEntries(entries)})
	return nil
}

// viewEntries shows ledger entries as the admin API does.
func viewEntries(entries []topupd.LedgerEntry) []entryView {
	out := make([]entryView, len(entries))
	for i, e := range entries {
		out[i] = entryView{ID: entryID(e.ID), Kind: string(e.Kind), AmountUsd: e.Amount, BalanceAfterUsd: e.BalanceAfter,
			OrderID: e.OrderID, Reference: e.Reference, CreatedAt: e.CreatedAt.Format(time.RFC3339Nano)}
	}
	return out
}
