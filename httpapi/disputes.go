package httpapi

import (
	"net/http"

	"github.com/topupd/topupd"
)

// Disputes on the reseller API (back-office.md, section 5).

// disputeAnswer is one dispute on the reseller API.
type disputeAnswer struct {
	Success bool `json:"success"`
	topupd.DisputeView
}

// disputesPage is GET /disputes: in simple mode Total, HasMore, Page and
// PageSize are left out.
type disputesPage struct {
	Success  bool                 `json:"success"`
	Count    int                  `json:"count"`
	Disputes []topupd.DisputeView `json:"disputes"`
	Total    *int                 `json:"total,omitempty"`
	HasMore  *bool                `json:"hasMore,omitempty"`
	Page     int                  `json:"page,omitempty"`
	PageSize int                  `json:"pageSize,omitempty"`
}

// openDispute disputes one of the caller's orders: { "reason", "codes"?,
// "detail"? }.
func (a *reseller) openDispute(w http.ResponseWriter, r *http.Request) error {
	m, err := readObject(r)
	if err != nil {
		return err
	}
	obj := &object{m: m}
	var req topupd.DisputeRequest
	obj.take("reason", &req.Reason)
	obj.take("codes", &req.Codes) // absent or null: the whole order; [] is refused
	obj.take("detail", &req.Detail)
	if err := obj.done(); err != nil {
		return err
	}
	d, err := a.Service.OpenDispute(r.Context(), callerOf(r.Context()).caller(), r.PathValue("orderId"), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, disputeAnswer{true, d.View()})
	return nil
}

// dispute answers one of the caller's disputes.
func (a *reseller) dispute(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Service.CallerDispute(r.Context(), callerOf(r.Context()).caller(), r.PathValue("disputeId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, disputeAnswer{true, d.View()})
	return nil
}

// disputes answers the caller's disputes, newest first, of a status or
// all, in simple or paged mode, as GET /deposits does.
func (a *reseller) disputes(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if err := notEmpty(q, "limit", "page", "pageSize", "status"); err != nil {
		return err
	}
	status := q.Get("status")
	if status != "" && status != topupd.DisputeOpen && status != topupd.DisputeResolved {
		return topupd.Errorf(topupd.EInvalidRequest, "status: open or resolved")
	}
	c := callerOf(r.Context()).caller()
	if !q.Has("page") {
		limit, err := clampParam(q.Get("limit"), "limit", historyDefault, 1, historyMax)
		if err != nil {
			return err
		}
		list, _, err := a.Service.CallerDisputes(r.Context(), c, status, 0, limit)
		if err != nil {
			return err
		}
		views := viewDisputes(list)
		writeJSON(w, http.StatusOK, disputesPage{Success: true, Count: len(views), Disputes: views})
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
	list, total, err := a.Service.CallerDisputes(r.Context(), c, status, (page-1)*size, size)
	if err != nil {
		return err
	}
	views := viewDisputes(list)
	more := page*size < total
	writeJSON(w, http.StatusOK, disputesPage{Success: true, Count: len(views), Disputes: views, Total: &total, HasMore: &more, Page: page,
		PageSize: size})
	return nil
}

// viewDisputes shows disputes as the reseller API does.
func viewDisputes(list []topupd.Dispute) []topupd.DisputeView {
	out := make([]topupd.DisputeView, len(list))
	for i := range list {
		out[i] = list[i].View()
	}
	return out
}
