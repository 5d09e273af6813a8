package console

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// LargeCredit is the amount ($1,000) from which a credit asks to be confirmed.
var LargeCredit = topupd.USD(1000)

// accountsData is the accounts page: a search and one page of accounts.
type accountsData struct {
	Q        string
	Accounts []service.Account
	Next     template.URL
}

// accounts lists and searches accounts, newest first.
func (c *Console) accounts(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	page, err := c.Service.Accounts(r.Context(), s.actor, service.AccountsQuery{Search: q.Get("q"), Cursor: q.Get("cursor"), Limit: 50})
	if err != nil {
		return err
	}
	d := accountsData{Q: q.Get("q"), Accounts: page.Accounts}
	if page.NextCursor != "" {
		d.Next = pageQuery(q, "cursor", page.NextCursor)
	}
	c.render(w, r, s, http.StatusOK, "accounts", "Accounts", d)
	return nil
}

// createAccount makes an account and opens its page.
func (c *Console) createAccount(w http.ResponseWriter, r *http.Request, s *session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	a, err := c.Service.CreateAccount(r.Context(), s.actor, topupd.AccountPatch{Name: &name})
	if err != nil {
		return err
	}
	return c.done(w, r, "/console/accounts/"+url.PathEscape(a.ID), "Account "+a.ID+" is created.")
}

// accountData is an account's page.
type accountData struct {
	A      service.Account
	Keys   []topupd.APIKey
	Ledger []topupd.LedgerEntry
	// LedgerOlder is the ledgerBefore of the page of older entries (0:
	// none); LedgerPaged tells a page of older entries from the newest.
	LedgerOlder int64
	LedgerPaged bool
	Allowlist   string
	Restricted  string
	From, To    string
	NewKey      *service.NewKey
	Chats       []topupd.Chat
	ChatLink    *service.ChatLinkCode
	// Prices are what the account pays for each pack; Tiers the tiers to
	// choose from.
	Prices service.AccountPrices
	Tiers  []topupd.Tier
}

// limitField is one spending limit's field on the account's page.
type limitField struct {
	topupd.LimitSetting
	// ID is the input's element id: the form field's name in kebab case.
	ID    string
	Value *topupd.Money
}

// Limits are the account's spending limits, as topupd.LimitSettings lists
// them.
func (d accountData) Limits() []limitField {
	out := make([]limitField, len(topupd.LimitSettings))
	for i, l := range topupd.LimitSettings {
		out[i] = limitField{LimitSetting: l, ID: kebab(l.Form), Value: *l.Of(&d.A.Limits)}
	}
	return out
}

// kebab writes a camelCase name in kebab case: ipAllowlist, ip-allowlist.
func kebab(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			b.WriteByte('-')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// account shows an account: balance, ledger, statement, keys, flags,
// allow-list, and the forms the operator's role may use.
func (c *Console) account(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.accountPage(r, s, r.PathValue("id"))
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "account", "Account "+d.A.Name, d)
	return nil
}

// accountPage gathers an account's page.
func (c *Console) accountPage(r *http.Request, s *session, id string) (accountData, error) {
	ctx := r.Context()
	a, err := c.Service.Account(ctx, s.actor, id)
	if err != nil {
		return accountData{}, err
	}
	d := accountData{A: a, Allowlist: strings.Join(a.IPAllowlist, "\n")}
	if a.RestrictedUntil != nil {
		d.Restricted = a.RestrictedUntil.UTC().Format("2006-01-02T15:04")
	}
	now := c.Now().UTC()
	d.From, d.To = now.AddDate(0, -1, 0).Format(time.DateOnly), now.Format(time.DateOnly)
	if d.Keys, err = c.Service.Keys(ctx, s.actor, id); err != nil {
		return d, err
	}
	if d.Chats, err = c.Service.Chats(ctx, s.actor, id); err != nil {
		return d, err
	}
	if d.Prices, err = c.Service.AccountPrices(ctx, s.actor, id); err != nil {
		return d, err
	}
	if d.Tiers, err = c.Service.Tiers(ctx, s.actor); err != nil {
		return d, err
	}
	before, err := ledgerBefore(r)
	if err != nil {
		return d, err
	}
	lp, err := c.Service.LedgerOlder(ctx, s.actor, id, before, 50)
	d.Ledger, d.LedgerOlder, d.LedgerPaged = lp.Entries, lp.Older, before != 0
	return d, err
}

// ledgerBefore reads the ledger's page from ?ledgerBefore= (the ID of the
// entry the page starts below); 0 is the newest entries.
func ledgerBefore(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("ledgerBefore")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, pageError{http.StatusBadRequest, "ledgerBefore: the number of a ledger entry."}
	}
	return n, nil
}

// accountAgain gathers an account's page to draw a refused form of it again.
func (c *Console) accountAgain(r *http.Request, s *session, id string) func() (string, any, error) {
	return func() (string, any, error) {
		d, err := c.accountPage(r, s, id)
		return "Account " + d.A.Name, d, err
	}
}

// chatLink makes a one-time code that links a messaging app chat to the
// account, shown once on the account's page.
func (c *Console) chatLink(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	code, err := c.Service.ChatLink(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	return c.showOnce(w, r, s, id, func(d *accountData) { d.ChatLink = &code })
}

// showOnce answers the account's page with something shown this once (a
// key, a link code), set by show: never in a redirect or a cookie.
func (c *Console) showOnce(w http.ResponseWriter, r *http.Request, s *session, id string, show func(*accountData)) error {
	d, err := c.accountPage(r, s, id)
	if err != nil {
		return err
	}
	show(&d)
	c.render(w, r, s, http.StatusCreated, "account", "Account "+d.A.Name, d)
	return nil
}

// unlinkChat unlinks one of the account's chats, after a confirmation.
func (c *Console) unlinkChat(w http.ResponseWriter, r *http.Request, s *session) error {
	id, chat := r.PathValue("id"), r.PathValue("chatId")
	back := "/console/accounts/" + url.PathEscape(id)
	n, err := strconv.ParseInt(chat, 10, 64)
	if err != nil {
		return pageError{http.StatusBadRequest, "There is no such chat."}
	}
	if !c.confirmed(w, r, s, "Unlink chat "+chat+" from "+id+"? It stops getting notices and can no longer act on the account.", back) {
		return nil
	}
	if err := c.Service.UnlinkChat(r.Context(), s.actor, id, n); err != nil {
		return err
	}
	return c.done(w, r, back, "Chat "+chat+" is unlinked.")
}

// credit credits (or, negative, corrects) an account with a required
// reference; a large amount asks to be confirmed first, with the amount
// and the balance it makes. A refused amount or reference shows the form
// again, with what was typed and the refusal beside the field.
func (c *Console) credit(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	err := c.creditAccount(w, r, s, id)
	return c.formFailed(w, r, s, err, "account", c.accountAgain(r, s, id))
}

// creditAccount is credit's work; refusals are fieldErrors.
func (c *Console) creditAccount(w http.ResponseWriter, r *http.Request, s *session, id string) error {
	back := "/console/accounts/" + url.PathEscape(id)
	amount, problem := parseAmount(r.PostFormValue("amount"), centPlaces)
	switch {
	case problem != "":
		return fieldError{"amount", problem}
	case amount == 0:
		return fieldError{"amount", "Enter an amount other than zero: positive to credit, negative to correct."}
	}
	ref := strings.TrimSpace(r.PostFormValue("reference"))
	switch {
	case ref == "":
		return fieldError{"reference", "Enter a reference, such as the bank transfer's number: a repeated reference credits nothing again."}
	case len(ref) > service.MaxCreditReference:
		return fieldError{"reference", "A reference is at most " + strconv.Itoa(service.MaxCreditReference) + " characters."}
	}
	a, err := c.Service.Account(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	if amount >= LargeCredit || amount <= -LargeCredit {
		verb := "Credit " + usdText(amount) + " to "
		if amount < 0 {
			verb = "Take " + usdText(-amount) + " from "
		}
		q := verb + a.Name + " (" + id + "), reference " + ref + "? The balance goes from " + usdText(a.Balance) + " to " + usdText(a.Balance+amount) + "."
		if !c.confirmed(w, r, s, q, back) {
			return nil
		}
	}
	res, err := c.Service.Credit(r.Context(), s.actor, id, amount, ref)
	if topupd.CodeOf(err) == topupd.EInsufficientBalance {
		return fieldError{"amount", "The balance is " + usdText(a.Balance) + ": a correction cannot take it below zero."}
	} else if err != nil {
		return err
	}
	msg := "Credited " + usdText(amount) + "; the balance is " + usdText(res.Balance) + "."
	if res.Repeated {
		msg = "Reference " + ref + " was used before: nothing was credited again. The balance is " + usdText(res.Balance) + "."
	}
	return c.done(w, r, back, msg)
}

// flags changes an account's flags (a patch of only them).
func (c *Console) flags(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	yes := func(name string) *bool {
		on := r.PostFormValue(name) == "yes"
		return &on
	}
	p := topupd.AccountPatch{APIEnabled: yes("apiEnabled"), AdminDisabled: yes("adminDisabled"), Banned: yes("banned"),
		IPAllowlistRequired: yes("ipAllowlistRequired")}
	var until *time.Time
	if v := strings.TrimSpace(r.PostFormValue("restrictedUntil")); v != "" {
		t, err := time.Parse("2006-01-02T15:04", v)
		if err != nil {
			return pageError{http.StatusBadRequest, "Restricted until: a date and time such as 2026-12-01T09:00 (UTC)."}
		}
		t = t.UTC()
		until = &t
	}
	p.RestrictedUntil = &until
	if _, err := c.Service.UpdateAccount(r.Context(), s.actor, id, p); err != nil {
		return err
	}
	return c.done(w, r, "/console/accounts/"+url.PathEscape(id), "The flags are saved.")
}

// terms sets an account's price tier and spending limits (a patch of only
// them); an empty limit lifts it.
func (c *Console) terms(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	var tier *string
	if t := r.PostFormValue("tier"); t != "" {
		tier = &t
	}
	p := topupd.AccountPatch{Tier: &tier, Limits: topupd.LimitsPatch{}}
	for _, l := range topupd.LimitSettings {
		var limit *topupd.Money
		if v := strings.TrimSpace(r.PostFormValue(l.Form)); v != "" {
			m, problem := parseAmount(v, centPlaces)
			if problem == "" && m < 0 {
				problem = "A limit cannot be negative."
			}
			if problem != "" {
				return c.formFailed(w, r, s, fieldError{l.Form, l.Short + ": " + problem + " Leave it empty for no limit."}, "account", c.accountAgain(r, s, id))
			}
			limit = &m
		}
		p.Limits[l.Name] = limit
	}
	if _, err := c.Service.UpdateAccount(r.Context(), s.actor, id, p); err != nil {
		return err
	}
	return c.done(w, r, "/console/accounts/"+url.PathEscape(id), "The prices and limits are saved.")
}

// allowlist replaces an account's IPv4 allow-list; entries that are not
// IPv4 addresses or CIDRs show the form again, naming them.
func (c *Console) allowlist(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	list := words(r.PostFormValue("ipAllowlist"))
	if list == nil {
		list = []string{}
	}
	var bad []string
	for _, e := range list {
		if _, err := topupd.ParseAllowlist([]string{e}); err != nil {
			bad = append(bad, e)
		}
	}
	var err error
	if bad != nil {
		err = fieldError{"ipAllowlist", "Not an IPv4 address or range: " + strings.Join(bad, ", ") + ". Write an address such as 203.0.113.7 or a range such as 203.0.113.0/24, one a line."}
	} else {
		_, err = c.Service.UpdateAccount(r.Context(), s.actor, id, topupd.AccountPatch{IPAllowlist: &list})
	}
	if err != nil {
		return c.formFailed(w, r, s, err, "account", c.accountAgain(r, s, id))
	}
	return c.done(w, r, "/console/accounts/"+url.PathEscape(id), "The allow-list is saved: "+plural(len(list), "entry")+".")
}

// createKey makes an API key with a label, live or (the box ticked) a
// sandbox key, and shows it this once, on the account's page (never in a
// redirect or a cookie).
func (c *Console) createKey(w http.ResponseWriter, r *http.Request, s *session) error {
	id, label := r.PathValue("id"), strings.TrimSpace(r.PostFormValue("label"))
	create := c.Service.CreateKey
	if r.PostFormValue("sandbox") == "yes" {
		create = c.Service.CreateSandboxKey
	}
	k, err := create(r.Context(), s.actor, id, label)
	if err != nil {
		return err
	}
	return c.showOnce(w, r, s, id, func(d *accountData) { d.NewKey = &k })
}

// revokeKey revokes an API key, after a confirmation.
func (c *Console) revokeKey(w http.ResponseWriter, r *http.Request, s *session) error {
	id, key := r.PathValue("id"), r.PathValue("keyId")
	back := "/console/accounts/" + url.PathEscape(id)
	if !c.confirmed(w, r, s, "Revoke key "+key+"? Clients using it are refused from now on.", back) {
		return nil
	}
	if err := c.Service.RevokeKey(r.Context(), s.actor, key); err != nil {
		return err
	}
	return c.done(w, r, back, "Key "+key+" is revoked.")
}

// statementCSV downloads an account's statement of [from, to] as CSV.
func (c *Console) statementCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	id, q := r.PathValue("id"), r.URL.Query()
	now := c.Now().UTC()
	from, err := dayParam(q, "from", now.AddDate(0, -1, 0))
	if err != nil {
		return err
	}
	to, err := dayParam(q, "to", now)
	if err != nil {
		return err
	}
	// To the second, as the admin API's from and to were spelt.
	st, err := c.Service.Statement(r.Context(), s.actor, id, from.Truncate(time.Second), to.AddDate(0, 0, 1).Truncate(time.Second))
	if err != nil {
		return err
	}
	return sendCSVRows(w, "statement-"+id+"-"+from.Format(time.DateOnly)+".csv", service.StatementCSV(st))
}

// sendCSV answers a CSV download.
func sendCSV(w http.ResponseWriter, name string, body []byte) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
	_, err := w.Write(body)
	return err
}
