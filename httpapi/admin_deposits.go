package httpapi

import (
	"mime"
	"net/http"
	"time"

	"github.com/topupd/topupd"
)

// Deposit tickets on the admin API (back-office.md, section 3).

// depositConfirmation is one operator's confirmation of a deposit.
type depositConfirmation struct {
	Operator string `json:"operator"`
	At       string `json:"at"`
}

// adminDepositView is a deposit as the admin API shows it: the reseller's
// view and its account, with the confirmation's fields (null until the
// ticket is confirmed or rejected).
type adminDepositView struct {
	Success bool `json:"success,omitempty"`
	topupd.DepositView
	AccountID     string                `json:"accountId"`
	BankRef       *string               `json:"bankRef"`
	ReceivedUSD   *topupd.Money         `json:"receivedUsd"`
	Confirmations []depositConfirmation `json:"confirmations"`
	RejectedBy    *string               `json:"rejectedBy"`
}

// viewAdminDeposit shows a deposit to an operator.
func viewAdminDeposit(d *topupd.Deposit, whole bool) adminDepositView {
	v := adminDepositView{Success: whole, DepositView: d.View(), AccountID: d.AccountID, Confirmations: []depositConfirmation{},
		ReceivedUSD: d.Received}
	if d.BankRef != "" {
		v.BankRef = &d.BankRef
	}
	if f := d.First; f != nil {
		v.Confirmations = append(v.Confirmations, depositConfirmation{Operator: f.Operator, At: f.At.UTC().Format(time.RFC3339Nano)})
	}
	if d.ConfirmedAt != nil {
		v.Confirmations = append(v.Confirmations, depositConfirmation{Operator: d.ConfirmedBy, At: d.ConfirmedAt.UTC().Format(time.RFC3339Nano)})
	}
	if d.RejectedBy != "" {
		v.RejectedBy = &d.RejectedBy
	}
	return v
}

// confirmDeposit confirms a ticket: { "bankRef", "receivedUsd"? }.
func (a *admin) confirmDeposit(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var bankRef string
	obj.take("bankRef", &bankRef)
	var received *topupd.Money
	if m, ok := obj.money("receivedUsd"); ok {
		received = &m
	}
	if err := obj.done(); err != nil {
		return err
	}
	d, err := a.Service.ConfirmDeposit(r.Context(), a.actor(r), r.PathValue("id"), bankRef, received)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminDeposit(&d, true))
	return nil
}

// rejectDeposit rejects a ticket: { "reason" }.
func (a *admin) rejectDeposit(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var reason string
	obj.take("reason", &reason)
	if err := obj.done(); err != nil {
		return err
	}
	d, err := a.Service.RejectDeposit(r.Context(), a.actor(r), r.PathValue("id"), reason)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminDeposit(&d, true))
	return nil
}

// depositsCursor is the kind of the deposits list's cursors.
const depositsCursor = "d"

// adminDeposit answers one deposit.
func (a *admin) adminDeposit(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Service.Deposit(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewAdminDeposit(&d, true))
	return nil
}

// adminDeposits answers a page of deposits, newest first: live ones
// unless sandbox=true; status and accountId filter.
func (a *admin) adminDeposits(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	limit, before, err := seqPage(v, map[string]bool{"status": true, "accountId": true, "sandbox": true}, depositsCursor)
	if err != nil {
		return err
	}
	q := topupd.DepositsQuery{Status: v.Get("status"), AccountID: v.Get("accountId"), Before: before, Limit: limit + 1}
	switch q.Status {
	case "", topupd.DepositPending, topupd.DepositAwaitingSecond, topupd.DepositConfirmed, topupd.DepositRejected, topupd.DepositExpired:
	default:
		return topupd.Errorf(topupd.EInvalidRequest, "status: pending, awaiting_second, confirmed, rejected or expired")
	}
	switch v.Get("sandbox") {
	case "", "false":
	case "true":
		q.Sandbox = true
	default:
		return topupd.Errorf(topupd.EInvalidRequest, "sandbox: true or false")
	}
	list, err := a.Service.Deposits(r.Context(), a.actor(r), q)
	if err != nil {
		return err
	}
	out := struct {
		Success    bool               `json:"success"`
		Deposits   []adminDepositView `json:"deposits"`
		NextCursor *string            `json:"nextCursor"`
	}{Success: true, Deposits: []adminDepositView{}}
	if len(list) > limit {
		list = list[:limit]
		out.NextCursor = seqCursor(depositsCursor, list[len(list)-1].Seq)
	}
	for i := range list {
		out.Deposits = append(out.Deposits, viewAdminDeposit(&list[i], false))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// importParams are the query parameters of a bank statement's import.
var importParams = map[string]bool{"amount": true, "reference": true, "date": true, "bankRef": true}

// importMatch and importMiss are an import's rows as the admin API shows
// them.
type importMatch struct {
	Line      int    `json:"line"`
	DepositID string `json:"depositId"`
	Status    string `json:"status"`
}

type importMiss struct {
	Line      int          `json:"line"`
	Amount    topupd.Money `json:"amount"`
	Reference string       `json:"reference"`
	Date      string       `json:"date"`
	BankRef   string       `json:"bankRef"`
	Why       string       `json:"why"`
}

// importDeposits matches a bank statement (text/csv, its columns named by
// the query) with the pending tickets.
func (a *admin) importDeposits(w http.ResponseWriter, r *http.Request) error {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "text/csv" {
		return topupd.Errorf(topupd.EInvalidBody, "send the bank statement as text/csv")
	}
	q := r.URL.Query()
	for k, v := range q {
		if !importParams[k] || len(v) > 1 {
			return topupd.Errorf(topupd.EInvalidRequest, "%s: unknown or given more than once", k)
		}
	}
	cols := topupd.BankColumns{Amount: q.Get("amount"), Reference: q.Get("reference"), Date: q.Get("date"), BankRef: q.Get("bankRef")}
	res, err := a.Service.ImportDeposits(r.Context(), a.actor(r), cols, r.Body)
	if err != nil {
		return err
	}
	out := struct {
		Success   bool          `json:"success"`
		Matched   []importMatch `json:"matched"`
		Unmatched []importMiss  `json:"unmatched"`
	}{Success: true, Matched: []importMatch{}, Unmatched: []importMiss{}}
	for _, m := range res.Matched {
		out.Matched = append(out.Matched, importMatch(m))
	}
	for _, m := range res.Unmatched {
		out.Unmatched = append(out.Unmatched, importMiss{Line: m.Row.Line, Amount: m.Row.Amount, Reference: m.Row.Reference, Date: m.Row.DateText,
			BankRef: m.Row.BankRef, Why: m.Why})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
