package httpapi

import (
	"bytes"
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Disputes on the admin API (back-office.md, section 5).

// disputesCursor marks the admin disputes list's cursor.
const disputesCursor = "s"

// disputeRoutes registers the admin API's dispute routes.
func (a *admin) disputeRoutes(mux router) {
	mux.Handle("GET /admin/disputes", a.read(a.adminDisputes))
	mux.Handle("GET /admin/disputes/{id}", a.read(a.adminDispute))
	mux.Handle("PATCH /admin/disputes/{id}", a.call(service.OpUpdateDispute, a.patchDispute))
}

// adminDisputeView is a dispute as the admin API shows it: the reseller's
// view, its codes masked as delivered codes are, with its account,
// whether it is overdue, its supplier claim and who resolved it.
type adminDisputeView struct {
	Success bool `json:"success,omitempty"`
	topupd.DisputeView
	AccountID     string                `json:"accountId"`
	Overdue       bool                  `json:"overdue"`
	SupplierClaim *topupd.SupplierClaim `json:"supplierClaim"`
	ResolvedBy    *string               `json:"resolvedBy"`
}

// viewAdminDispute shows a dispute to an operator.
func (a *admin) viewAdminDispute(d *topupd.Dispute, whole bool) adminDisputeView {
	v := adminDisputeView{Success: whole, DisputeView: d.View(), AccountID: d.AccountID, Overdue: d.Overdue(a.Now()), SupplierClaim: d.SupplierClaim}
	v.Codes = topupd.MaskCodes(v.Codes)
	if d.ResolvedBy != "" {
		v.ResolvedBy = &d.ResolvedBy
	}
	return v
}

func (a *admin) adminDispute(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Service.Dispute(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.viewAdminDispute(&d, true))
	return nil
}

// adminDisputes lists disputes, newest first, paged by cursor:
// ?status=open|resolved&accountId=&overdue=true&sandbox=true.
func (a *admin) adminDisputes(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	limit, before, err := seqPage(v, map[string]bool{"status": true, "accountId": true, "overdue": true, "sandbox": true}, disputesCursor)
	if err != nil {
		return err
	}
	q := topupd.DisputesQuery{Status: v.Get("status"), AccountID: v.Get("accountId"), Before: before, Limit: limit + 1}
	if q.Status != "" && q.Status != topupd.DisputeOpen && q.Status != topupd.DisputeResolved {
		return topupd.Errorf(topupd.EInvalidRequest, "status: open or resolved")
	}
	for name, dst := range map[string]*bool{"sandbox": &q.Sandbox, "overdue": &q.Overdue} {
		switch v.Get(name) {
		case "", "false":
		case "true":
			*dst = true
		default:
			return topupd.Errorf(topupd.EInvalidRequest, "%s: true or false", name)
		}
	}
	list, err := a.Service.Disputes(r.Context(), a.actor(r), q)
	if err != nil {
		return err
	}
	out := struct {
		Success    bool               `json:"success"`
		Disputes   []adminDisputeView `json:"disputes"`
		NextCursor *string            `json:"nextCursor"`
	}{Success: true, Disputes: []adminDisputeView{}}
	if len(list) > limit {
		list = list[:limit]
		out.NextCursor = seqCursor(disputesCursor, list[len(list)-1].Seq)
	}
	for i := range list {
		out.Disputes = append(out.Disputes, a.viewAdminDispute(&list[i], false))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// patchDispute sets or clears a dispute's supplier claim:
// { "supplierClaim": { "reference", "state" } | null }.
func (a *admin) patchDispute(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	raw, ok := obj.m["supplierClaim"]
	if !ok {
		return topupd.Errorf(topupd.EInvalidBody, "supplierClaim: required, an object or null")
	}
	delete(obj.m, "supplierClaim")
	if err := obj.done(); err != nil {
		return err
	}
	var claim *topupd.SupplierClaim
	if !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		c, err := decodeStrict[topupd.SupplierClaim](raw, "supplierClaim")
		if err != nil {
			return err
		}
		claim = &c
	}
	d, err := a.Service.SetSupplierClaim(r.Context(), a.actor(r), r.PathValue("id"), claim)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.viewAdminDispute(&d, true))
	return nil
}
