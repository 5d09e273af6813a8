package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/topupd/topupd"
)

// adminOrder is an order as the operator sees it: the reseller shape plus
// its internal id, account, supplier and any alert.
type adminOrder struct {
	ID          string `json:"id"`
	AccountID   string `json:"accountId"`
	Provider    string `json:"provider"`
	Upstream    string `json:"upstream,omitempty"`
	UpstreamPID string `json:"upstreamPid,omitempty"`
	SupplierRef string `json:"supplierRef,omitempty"`
	Attempts    int    `json:"attempts"`
	DeadlineAt  string `json:"deadlineAt"`
	Alert       string `json:"alert,omitempty"`
	// CostUsd is what the order cost the business, fixed when it was fulfilled.
	CostUsd *topupd.Money `json:"costUsd,omitempty"`
	orderView
}

// adminOrderView is the answer about one order: the order, its history,
// its ledger entries and, when its pack listed suppliers, how trying each
// went.
type adminOrderView struct {
	Success bool `json:"success"`
	adminOrder
	History          []orderEvent  `json:"history"`
	Ledger           []entryView   `json:"ledger"`
	SupplierAttempts []attemptView `json:"supplierAttempts"`
}

// attemptView is one supplier of an order's list and how trying it went.
type attemptView struct {
	Attempt     int           `json:"attempt"`
	Provider    string        `json:"provider"`
	Upstream    string        `json:"upstream,omitempty"`
	UpstreamPID string        `json:"upstreamPid,omitempty"`
	CostUSD     *topupd.Money `json:"costUsd,omitempty"`
	Outcome     string        `json:"outcome"`
	Why         string        `json:"why,omitempty"`
	StartedAt   *string       `json:"startedAt,omitempty"`
	FinishedAt  *string       `json:"finishedAt,omitempty"`
}

// viewAttempts shows an order's supplier attempts.
func viewAttempts(list []topupd.SupplierAttempt) []attemptView {
	at := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		s := t.UTC().Format(time.RFC3339Nano)
		return &s
	}
	out := make([]attemptView, len(list))
	for i, a := range list {
		out[i] = attemptView{Attempt: a.Attempt, Provider: a.Provider, Upstream: a.Upstream, UpstreamPID: a.UpstreamPID,
			Outcome: string(a.Outcome), Why: a.Why, StartedAt: at(a.StartedAt), FinishedAt: at(a.FinishedAt)}
		if a.Cost > 0 {
			out[i].CostUSD = &list[i].Cost
		}
	}
	return out
}

// orderEvent is one step of an order's history as the API shows it.
type orderEvent struct {
	At   string `json:"at"`
	Kind string `json:"kind"`
	Note string `json:"note"`
}

// viewOrder is the answer about one order, with its whole history (placed,
// the events the store recorded, and its final state), its charge and any
// refund, and its supplier attempts.
func (a *admin) viewOrder(ctx context.Context, o *topupd.Order) (adminOrderView, error) {
	events, err := a.Store.OrderEvents(ctx, o.Seq)
	if err != nil {
		return adminOrderView{}, err
	}
	story := topupd.OrderHistory(o, events)
	history := make([]orderEvent, len(story))
	for i, e := range story {
		history[i] = orderEvent{At: e.At.UTC().Format(time.RFC3339Nano), Kind: e.Kind, Note: e.Note}
	}
	entries, err := a.Store.OrderEntries(ctx, o.Seq)
	if err != nil {
		return adminOrderView{}, err
	}
	attempts, err := a.Store.SupplierAttempts(ctx, o.Seq)
	if err != nil {
		return adminOrderView{}, err
	}
	return adminOrderView{Success: true, adminOrder: a.orderItem(o), History: history, Ledger: viewEntries(entries),
		SupplierAttempts: viewAttempts(attempts)}, nil
}

// writeOrder answers one order with its history.
func (a *admin) writeOrder(w http.ResponseWriter, r *http.Request, o *topupd.Order) error {
	v, err := a.viewOrder(r.Context(), o)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// orderItem is one order in the admin shape, as lists hold it. Every
// admin view of an order is made here, so that none shows a delivered
// code in full: each is masked (topupd.MaskCode). GET
// /admin/orders/{orderId}/codes, the owner's and logged, is the one way to
// read them.
func (a *admin) orderItem(o *topupd.Order) adminOrder {
	v := viewOrder(o, a.Now())
	v.Codes = topupd.MaskCodes(v.Codes)
	return adminOrder{ID: itoa(o.Seq), AccountID: o.AccountID, Provider: o.Provider, Upstream: o.Upstream,
		UpstreamPID: o.UpstreamPID, SupplierRef: o.SupplierRef, Attempts: o.Attempts, Alert: o.Alert, CostUsd: o.Cost,
		DeadlineAt: o.DeadlineAt.UTC().Format(time.RFC3339Nano), orderView: v}
}

// orderCodes answers an order's delivered codes in full: the owner's
// alone (PermOrderCodes). The store reads them in the transaction that
// records the read in the action log (order.codes-viewed), so that no code
// is answered unless that record is committed.
func (a *admin) orderCodes(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Store.OrderCodes(r.Context(), r.PathValue("orderId"))
	if err != nil {
		return err
	}
	codes := o.Codes
	if codes == nil {
		codes = []string{}
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "orderId": o.ID, "id": itoa(o.Seq), "accountId": o.AccountID,
		"status": string(o.Status), "codes": codes})
	return nil
}

func (a *admin) listOrders(w http.ResponseWriter, r *http.Request) error {
	q, err := parseOrdersQuery(r.URL.Query())
	if err != nil {
		return err
	}
	q.Now = a.Now()
	return a.writeOrders(w, r, q)
}

// writeOrders answers the page of orders a query selects, in the admin
// shape, with the cursor of the next page (null on the last).
func (a *admin) writeOrders(w http.ResponseWriter, r *http.Request, q topupd.OrdersQuery) error {
	q.Limit++ // one more than asked tells whether a next page exists
	orders, err := a.Store.Orders(r.Context(), q)
	if err != nil {
		return err
	}
	var next *string
	if len(orders) == q.Limit {
		orders = orders[:q.Limit-1]
		last := &orders[len(orders)-1]
		next = keyCursor(ordersCursor, last.CreatedAt, last.Seq)
	}
	out := make([]adminOrder, len(orders))
	for i := range orders {
		out[i] = a.orderItem(&orders[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "count": len(out), "orders": out, "nextCursor": next})
	return nil
}

func (a *admin) getOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Store.Order(r.Context(), "", r.PathValue("orderId"))
	if err != nil {
		return err
	}
	return a.writeOrder(w, r, &o)
}

func (a *admin) completeOrder(w http.ResponseWriter, r *http.Request) error {
	codes, err := readCodes(r, 0)
	if err != nil {
		return err
	}
	o, err := a.Service.CompleteOrder(r.Context(), a.actor(r), r.PathValue("orderId"), codes)
	if err != nil {
		return err
	}
	return a.writeOrder(w, r, &o)
}

func (a *admin) cancelOrder(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	why, refund := "", true
	obj.take("error", &why)
	obj.take("refund", &refund)
	if err := obj.done(); err != nil {
		return err
	}
	o, err := a.Service.CancelOrder(r.Context(), a.actor(r), r.PathValue("orderId"), why, refund)
	if err != nil {
		return err
	}
	return a.writeOrder(w, r, &o)
}

// settingsView is the settings as the operator sees and sends them.
type settingsView struct {
	Maintenance            bool         `json:"maintenance"`
	OrdersDisabled         bool         `json:"ordersDisabled"`
	EligibilityMinTopupUsd topupd.Money `json:"eligibilityMinTopupUsd"`
	SimDelayMs             int          `json:"simDelayMs"`
	SimCallMs              int          `json:"simCallMs"`
}

func viewSettings(s topupd.Settings) settingsView {
	return settingsView{s.Maintenance, s.OrdersDisabled, s.EligibilityMinTopup, s.SimDelayMs, s.SimCallMs}
}

func (a *admin) getSettings(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Store.Settings(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewSettings(s))
	return nil
}

func (a *admin) patchSettings(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var p topupd.SettingsPatch
	var m, od bool
	var delay, call int
	if obj.take("maintenance", &m) {
		p.Maintenance = &m
	}
	if obj.take("ordersDisabled", &od) {
		p.OrdersDisabled = &od
	}
	if min, ok := obj.money("eligibilityMinTopupUsd"); ok {
		p.EligibilityMinTopup = &min
	}
	if obj.take("simDelayMs", &delay) {
		p.SimDelayMs = &delay
	}
	if obj.take("simCallMs", &call) {
		p.SimCallMs = &call
	}
	if err := obj.done(); err != nil {
		return err
	}
	s, err := a.Store.UpdateSettings(r.Context(), p)
	if err != nil {
		return err
	}
	if a.Wake != nil {
		a.Wake()
	}
	writeJSON(w, http.StatusOK, viewSettings(s))
	return nil
}
