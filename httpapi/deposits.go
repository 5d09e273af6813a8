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

// depositsAnswer is GET /deposits in simple mode.
type depositsAnswer struct {
	Success  bool                 `json:"success"`
	Count    int                  `json:"count"`
	Deposits []topupd.DepositView `json:"deposits"`
}

// depositsPage is GET /deposits in paged mode.
type depositsPage struct {
	Success  bool                 `json:"success"`
	Count    int                  `json:"count"`
	Deposits []topupd.DepositView `json:"deposits"`
	Total    int                  `json:"total"`
	HasMore  bool                 `json:"hasMore"`
	Page     int                  `json:"page"`
	PageSize int                  `json:"pageSize"`
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
	q := r.URL.Query()
	if err := notEmpty(q, "limit", "page", "pageSize"); err != nil {
		return err
	}
	c := callerOf(r.Context()).caller()
	if !q.Has("page") {
		limit, err := clampParam(q.Get("limit"), "limit", historyDefault, 1, historyMax)
		if err != nil {
			return err
		}
		list, _, err := a.Service.CallerDeposits(r.Context(), c, 0, limit)
		if err != nil {
			return err
		}
		views := viewDeposits(list)
		writeJSON(w, http.StatusOK, depositsAnswer{Success: true, Count: len(views), Deposits: views})
		return nil
	}
	page, err := intParam(q.Get("page"), "page", 1, 1, 1_000_000_000)
	if err != nil {
		return err
	}
	size, err := clampParam(q.Get("pageSize"), "pageSize", pageSizeDefault, 1, pageSizeMax)
	if err != nil {
		return err
	}
	list, total, err := a.Service.CallerDeposits(r.Context(), c, (page-1)*size, size)
	if err != nil {
		return err
	}
	views := viewDeposits(list)
	writeJSON(w, http.StatusOK, depositsPage{Success: true, Count: len(views), Deposits: views, Total: total, HasMore: page*size < total,
		Page: page, PageSize: size})
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
