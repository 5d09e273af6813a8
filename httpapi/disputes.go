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
	p, paged, err := readListPage(q, "status")
	if err != nil {
		return err
	}
	status := q.Get("status")
	if status != "" && status != topupd.DisputeOpen && status != topupd.DisputeResolved {
		return topupd.Errorf(topupd.EInvalidRequest, "status: open or resolved")
	}
	list, total, err := a.Service.CallerDisputes(r.Context(), callerOf(r.Context()).caller(), status, p.offset, p.limit)
	if err != nil {
		return err
	}
	writeList(w, "disputes", viewDisputes(list), p, paged, total)
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
