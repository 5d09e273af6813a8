package httpapi

import (
	"net/http"

	"github.com/topupd/topupd"
)

// Deposit tickets on the reseller API (back-office.md, section 3).

// depositAnswer is one deposit on the reseller API.
type depositAnswer struct {
	Success bool `json:"success"`
	topupd.DepositView
}

// openDeposit opens a ticket: { "amountUsd" }.
func (a *reseller) openDeposit(w http.ResponseWriter, r *http.Request) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	obj := &object{m: m}
	amount, ok := obj.money("amountUsd")
	if err := obj.done(); err != nil {
		return err
	}
	if !ok {
		return topupd.Errorf(topupd.EInvalidBody, "amountUsd: required, a number of USD")
	}
	d, err := a.Service.OpenDeposit(r.Context(), callerOf(r.Context()).caller(), amount)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, depositAnswer{true, d.View()})
	return nil
}

// deposit answers one of the caller's tickets.
func (a *reseller) deposit(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Service.CallerDeposit(r.Context(), callerOf(r.Context()).caller(), r.PathValue("depositId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, depositAnswer{true, d.View()})
	return nil
}

// deposits answers the caller's tickets, newest first, in simple or paged
// mode, as GET /history does.
func (a *reseller) deposits(w http.ResponseWriter, r *http.Request) error {
	p, paged, err := readListPage(r.URL.Query())
	if err != nil {
		return err
	}
	list, total, err := a.Service.CallerDeposits(r.Context(), callerOf(r.Context()).caller(), p.offset, p.limit)
	if err != nil {
		return err
	}
	writeList(w, "deposits", viewDeposits(list), p, paged, total)
	return nil
}

// viewDeposits shows deposits as the reseller API does.
func viewDeposits(list []topupd.Deposit) []topupd.DepositView {
	out := make([]topupd.DepositView, len(list))
	for i := range list {
		out[i] = list[i].View()
	}
	return out
}
