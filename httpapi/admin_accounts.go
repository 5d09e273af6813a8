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
}

func (a *admin) writeAccount(w http.ResponseWriter, r *http.Request, status int, acct topupd.Account) error {
	bal, err := a.Store.Balance(r.Context(), acct.ID)
	if err != nil {
		return err
	}
	v := accountView{ID: acct.ID, Name: acct.Name, BalanceUsd: bal, APIEnabled: acct.APIEnabled, AdminDisabled: acct.AdminDisabled,
		Banned: acct.Banned, IPAllowlist: acct.IPAllowlist, IPAllowlistRequired: acct.IPAllowlistRequired,
		CreatedAt: acct.CreatedAt.Format(time.RFC3339Nano)}
	if v.IPAllowlist == nil {
		v.IPAllowlist = []string{}
	}
	if acct.RestrictedUntil != nil {
		s := acct.RestrictedUntil.Format(time.RFC3339Nano)
		v.RestrictedUntil = &s
	}
	writeJSON(w, status, v)
	return nil
}

// readAccountPatch reads a body of account fields.
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
	key, hash := topupd.NewAPIKey()
	keyID := topupd.NewID("key_")
	if err := a.Store.AddKey(r.Context(), r.PathValue("id"), keyID, hash, a.Now()); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"success": true, "keyId": keyID, "apiKey": key})
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
	out := make([]entryView, len(entries))
	for i, e := range entries {
		out[i] = entryView{ID: entryID(e.ID), Kind: string(e.Kind), AmountUsd: e.Amount, BalanceAfterUsd: e.BalanceAfter,
			OrderID: e.OrderID, Reference: e.Reference, CreatedAt: e.CreatedAt.Format(time.RFC3339Nano)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "entries": out})
	return nil
}
