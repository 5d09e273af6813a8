package httpapi

import (
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// reconTotals are a reconciliation's totals as the admin API shows them.
type reconTotals struct {
	OurOrders    int          `json:"ourOrders"`
	TheirOrders  int          `json:"theirOrders"`
	OurCostUSD   topupd.Money `json:"ourCostUsd"`
	TheirCostUSD topupd.Money `json:"theirCostUsd"`
}

// mismatchView is one mismatch as the admin API shows it.
type mismatchView struct {
	ID             int             `json:"id"`
	Kind           string          `json:"kind"`
	Reference      string          `json:"reference"`
	OrderID        string          `json:"orderId,omitempty"`
	SupplierRef    string          `json:"supplierRef,omitempty"`
	OurAmountUSD   *topupd.Money   `json:"ourAmountUsd,omitempty"`
	TheirAmountUSD *topupd.Money   `json:"theirAmountUsd,omitempty"`
	OurStatus      string          `json:"ourStatus,omitempty"`
	TheirStatus    string          `json:"theirStatus,omitempty"`
	State          string          `json:"state"`
	Resolution     *resolutionView `json:"resolution,omitempty"`
}

// resolutionView is how a mismatch was resolved, as the admin API shows it.
type resolutionView struct {
	Action   string    `json:"action"`
	Note     string    `json:"note"`
	Operator string    `json:"operator"`
	At       time.Time `json:"at"`
	EntryID  string    `json:"entryId,omitempty"`
}

// viewMismatch shows one mismatch.
func viewMismatch(m *topupd.Mismatch) mismatchView {
	v := mismatchView{ID: m.ID, Kind: m.Kind, Reference: m.Reference, OrderID: m.OrderID, SupplierRef: m.SupplierRef,
		OurAmountUSD: m.Ours, TheirAmountUSD: m.Theirs, OurStatus: string(m.OurStatus), TheirStatus: string(m.TheirStatus), State: topupd.MismatchOpen}
	if r := m.Resolution; r != nil {
		v.State = topupd.MismatchResolved
		v.Resolution = &resolutionView{Action: r.Action, Note: r.Note, Operator: r.Operator, At: r.At.UTC()}
		if r.EntryID != 0 {
			v.Resolution.EntryID = strconv.FormatInt(r.EntryID, 10)
		}
	}
	return v
}

// reconView is a reconciliation as the admin API shows it; a list's rows
// leave its mismatches out.
type reconView struct {
	Success         bool            `json:"success,omitempty"`
	ID              string          `json:"id"`
	Supplier        string          `json:"supplier"`
	From            string          `json:"from"`
	To              string          `json:"to"`
	Source          string          `json:"source"`
	State           string          `json:"state"`
	CreatedAt       time.Time       `json:"createdAt"`
	Operator        string          `json:"operator"`
	ClosedAt        *time.Time      `json:"closedAt"`
	Matched         int             `json:"matched"`
	Totals          reconTotals     `json:"totals"`
	BalanceDriftUSD *topupd.Money   `json:"balanceDriftUsd"`
	Mismatches      *[]mismatchView `json:"mismatches,omitempty"`
}

// viewRecon shows a reconciliation, with its mismatches when whole.
func viewRecon(r *topupd.Reconciliation, whole bool) reconView {
	v := reconView{Success: whole, ID: r.ID, Supplier: r.Supplier, From: r.Period.From.Format(time.DateOnly), To: r.Period.To.Format(time.DateOnly),
		Source: r.Source, State: r.State, CreatedAt: r.CreatedAt.UTC(), Operator: r.Operator, ClosedAt: utcPtr(r.ClosedAt), Matched: r.Matched,
		Totals:          reconTotals{r.Totals.OurOrders, r.Totals.TheirOrders, r.Totals.OurCost, r.Totals.TheirCost},
		BalanceDriftUSD: r.BalanceDrift}
	if whole {
		ms := make([]mismatchView, len(r.Mismatches))
		for i := range r.Mismatches {
			ms[i] = viewMismatch(&r.Mismatches[i])
		}
		v.Mismatches = &ms
	}
	return v
}

// csvParams are the query parameters of a reconciliation from a file.
var csvParams = map[string]bool{"from": true, "to": true, "reference": true, "amount": true, "status": true, "time": true}

// runReconciliation reconciles with an upstream over a period: pulled
// from it for a JSON body, from the supplier's file for text/csv.
func (a *admin) runReconciliation(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	var rec topupd.Reconciliation
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "text/csv" {
		q := r.URL.Query()
		for k, v := range q {
			if !csvParams[k] || len(v) > 1 {
				return topupd.Errorf(topupd.EInvalidRequest, "%s: unknown or given more than once", k)
			}
		}
		p, err := topupd.ParseReconPeriod(q.Get("from"), q.Get("to"), a.Now(), topupd.EInvalidRequest)
		if err != nil {
			return err
		}
		cols := topupd.CSVColumns{Reference: q.Get("reference"), Amount: q.Get("amount"), Status: q.Get("status"), Time: q.Get("time")}
		if rec, err = a.Service.ReconcileCSV(r.Context(), a.actor(r), name, p, cols, r.Body); err != nil {
			return err
		}
	} else {
		if len(r.URL.Query()) > 0 {
			return topupd.Errorf(topupd.EInvalidRequest, "a pull takes no query parameters: send the period in the body")
		}
		obj, err := readAdminObject(r)
		if err != nil {
			return err
		}
		var from, to string
		obj.take("from", &from)
		obj.take("to", &to)
		if err := obj.done(); err != nil {
			return err
		}
		p, err := topupd.ParseReconPeriod(from, to, a.Now(), topupd.EInvalidBody)
		if err != nil {
			return err
		}
		if rec, err = a.Service.ReconcilePull(r.Context(), a.actor(r), name, p); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusCreated, viewRecon(&rec, true))
	return nil
}

// getReconciliation answers one reconciliation with its mismatches.
func (a *admin) getReconciliation(w http.ResponseWriter, r *http.Request) error {
	rec, err := a.Service.Reconciliation(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewRecon(&rec, true))
	return nil
}

// reconsCursor is the kind of the reconciliations' cursors.
const reconsCursor = "r"

// listReconciliations answers a page of reconciliations, newest first.
func (a *admin) listReconciliations(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	limit, before, err := seqPage(v, map[string]bool{"supplier": true, "state": true}, reconsCursor)
	if err != nil {
		return err
	}
	q := topupd.ReconciliationsQuery{Supplier: v.Get("supplier"), State: v.Get("state"), Before: before, Limit: limit + 1}
	switch q.State {
	case "", topupd.ReconOpen, topupd.ReconClosed:
	default:
		return topupd.Errorf(topupd.EInvalidRequest, "state: open or closed")
	}
	list, err := a.Service.Reconciliations(r.Context(), a.actor(r), q)
	if err != nil {
		return err
	}
	out := struct {
		Success         bool        `json:"success"`
		Reconciliations []reconView `json:"reconciliations"`
		NextCursor      *string     `json:"nextCursor"`
	}{Success: true, Reconciliations: []reconView{}}
	if len(list) > limit {
		list = list[:limit]
		out.NextCursor = seqCursor(reconsCursor, list[len(list)-1].Seq)
	}
	for i := range list {
		out.Reconciliations = append(out.Reconciliations, viewRecon(&list[i], false))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// closeReconciliation closes a reconciliation none of whose mismatches is open.
func (a *admin) closeReconciliation(w http.ResponseWriter, r *http.Request) error {
	rec, err := a.Service.CloseReconciliation(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewRecon(&rec, true))
	return nil
}

// fixEffectView is what a fix does, or would, as the admin API shows it.
type fixEffectView struct {
	RefundUSD       *topupd.Money `json:"refundUsd,omitempty"`
	OrderStatus     string        `json:"orderStatus,omitempty"`
	CostUSD         *topupd.Money `json:"costUsd,omitempty"`
	BalanceAfterUSD *topupd.Money `json:"balanceAfterUsd,omitempty"`
}

// resolveMismatch resolves a mismatch by an action with a note, or with
// "preview": true tells what that would do.
func (a *admin) resolveMismatch(w http.ResponseWriter, r *http.Request) error {
	mid, err := strconv.Atoi(r.PathValue("mid"))
	if err != nil || mid < 1 {
		return topupd.Errorf(topupd.ENotFound, "mismatch %s", r.PathValue("mid"))
	}
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var action, note string
	var preview bool
	obj.take("action", &action)
	obj.take("note", &note)
	obj.take("preview", &preview)
	if err := obj.done(); err != nil {
		return err
	}
	m, eff, err := a.Service.ResolveMismatch(r.Context(), a.actor(r), r.PathValue("id"), mid, action, note, preview)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Success  bool          `json:"success"`
		Preview  bool          `json:"preview"`
		Effect   fixEffectView `json:"effect"`
		Mismatch mismatchView  `json:"mismatch"`
	}{true, preview, fixEffectView{RefundUSD: eff.Refund, OrderStatus: string(eff.OrderStatus), CostUSD: eff.Cost, BalanceAfterUSD: eff.BalanceAfter},
		viewMismatch(&m)})
	return nil
}
