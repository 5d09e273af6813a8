package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// adminOrder is an order as the operator sees it: the admin fields
// (client.OrderAdmin, the client's reading of them) before the reseller
// shape.
type adminOrder struct {
	client.OrderAdmin
	orderView
}

// adminOrderView is the answer about one order: the order, its history,
// its ledger entries and, when its pack listed suppliers, how trying each
// went.
type adminOrderView struct {
	Success bool `json:"success"`
	adminOrder
	History          []orderEvent             `json:"history"`
	Ledger           []client.LedgerEntry     `json:"ledger"`
	SupplierAttempts []client.SupplierAttempt `json:"supplierAttempts"`
}

// viewAttempts shows an order's supplier attempts.
func viewAttempts(list []topupd.SupplierAttempt) []client.SupplierAttempt {
	out := make([]client.SupplierAttempt, len(list))
	for i, a := range list {
		out[i] = client.SupplierAttempt{Attempt: a.Attempt, Provider: a.Provider, Upstream: a.Upstream, UpstreamPID: a.UpstreamPID,
			Outcome: string(a.Outcome), Why: a.Why, StartedAt: a.StartedAt.UTC(), FinishedAt: a.FinishedAt.UTC()}
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

// viewDetail is the answer about one order: the order, its whole history
// (placed, the events the store recorded, and its final state), its charge
// and any refund, and its supplier attempts.
func (a *admin) viewDetail(d *service.OrderDetail) adminOrderView {
	history := make([]orderEvent, len(d.History))
	for i, e := range d.History {
		history[i] = orderEvent{At: e.At.UTC().Format(time.RFC3339Nano), Kind: e.Kind, Note: e.Note}
	}
	return adminOrderView{Success: true, adminOrder: a.orderItem(&d.Order), History: history, Ledger: viewEntries(d.Ledger),
		SupplierAttempts: viewAttempts(d.SupplierAttempts)}
}

// writeOrder answers an order an operation answered, with its history.
func (a *admin) writeOrder(w http.ResponseWriter, r *http.Request, o *topupd.Order) error {
	d, err := a.Service.Detail(r.Context(), a.actor(r), *o)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.viewDetail(&d))
	return nil
}

// orderItem is one order in the admin shape, as lists hold it. The
// service masks every code of the orders it reads (topupd.MaskCode):
// GET /admin/orders/{orderId}/codes, the owner's and logged, is the one
// way to read them.
func (a *admin) orderItem(o *topupd.Order) adminOrder {
	account, _ := topupd.LiveID(o.AccountID) // a sandbox order shows its account, and "sandbox": true
	item := adminOrder{OrderAdmin: client.OrderAdmin{ID: itoa(o.Seq), AccountID: account, Provider: o.Provider, Upstream: o.Upstream,
		UpstreamPID: o.UpstreamPID, SupplierRef: o.SupplierRef, Attempts: o.Attempts, DeadlineAt: o.DeadlineAt.UTC(), Alert: o.Alert},
		orderView: viewOrder(o, a.Now())}
	if m, ok := o.Margin(); ok { // a completed order's cost and margin, when its cost is known
		item.CostUSD, item.MarginUSD = o.Cost, &m
	}
	return item
}

// orderCodesAnswer is an order's delivered codes in full.
type orderCodesAnswer struct {
	Success   bool     `json:"success"`
	OrderID   string   `json:"orderId"`
	ID        string   `json:"id"`
	AccountID string   `json:"accountId"`
	Status    string   `json:"status"`
	Codes     []string `json:"codes"`
}

// orderCodes answers an order's delivered codes in full: the owner's
// alone, each read recorded in the action log (service.OrderCodes).
func (a *admin) orderCodes(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Service.OrderCodes(r.Context(), a.actor(r), r.PathValue("orderId"))
	if err != nil {
		return err
	}
	codes := o.Codes
	if codes == nil {
		codes = []string{}
	}
	w.Header().Set("Cache-Control", "no-store")
	account, _ := topupd.LiveID(o.AccountID)
	writeJSON(w, http.StatusOK, orderCodesAnswer{Success: true, OrderID: o.ID, ID: itoa(o.Seq), AccountID: account,
		Status: string(o.Status), Codes: codes})
	return nil
}

func (a *admin) listOrders(w http.ResponseWriter, r *http.Request) error {
	q, err := parseOrdersQuery(r.URL.Query())
	if err != nil {
		return err
	}
	return a.writeOrders(w, r, q)
}

// orderPageAnswer is a page of orders in the admin shape, with the cursor
// of the next page (null on the last).
type orderPageAnswer struct {
	Success    bool         `json:"success"`
	Count      int          `json:"count"`
	Orders     []adminOrder `json:"orders"`
	NextCursor *string      `json:"nextCursor"`
}

// writeOrders answers the page of orders a query selects (service.Orders).
func (a *admin) writeOrders(w http.ResponseWriter, r *http.Request, q topupd.OrdersQuery) error {
	page, err := a.Service.Orders(r.Context(), a.actor(r), q)
	if err != nil {
		return err
	}
	out := viewEach(page.Orders, a.orderItem)
	writeJSON(w, http.StatusOK, orderPageAnswer{Success: true, Count: len(out), Orders: out, NextCursor: nextCursor(service.OrdersCursor, page.Next)})
	return nil
}

func (a *admin) getOrder(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Service.OrderDetail(r.Context(), a.actor(r), r.PathValue("orderId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.viewDetail(&d))
	return nil
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
	// UpstreamBalancePollMinutes is how often upstreams' balances are read.
	UpstreamBalancePollMinutes int `json:"upstreamBalancePollMinutes"`
	// ReconcileAt is when the nightly reconciliation runs; null never.
	ReconcileAt *string `json:"reconcileAt"`
	// DepositBank is where deposits are transferred to; null: no tickets.
	DepositBank *topupd.DepositBank `json:"depositBank"`
	// DepositTicketHours is how long a ticket stays pending.
	DepositTicketHours int `json:"depositTicketHours"`
	// DepositSecondApprovalAboveUsd is the credit above which a second
	// operator confirms a deposit.
	DepositSecondApprovalAboveUsd topupd.Money `json:"depositSecondApprovalAboveUsd"`
	// HoldAbovePercent is the rise above which a pricing rule's new price
	// waits for an operator.
	HoldAbovePercent topupd.Percent `json:"holdAbovePercent"`
	// DisputeWindowDays and DisputeAnswerHours rule disputes.
	DisputeWindowDays  int `json:"disputeWindowDays"`
	DisputeAnswerHours int `json:"disputeAnswerHours"`
}

// viewSettings shows the settings.
func viewSettings(s topupd.Settings) settingsView {
	var at *string
	if s.ReconcileAt != "" {
		at = &s.ReconcileAt
	}
	return settingsView{s.Maintenance, s.OrdersDisabled, s.EligibilityMinTopup, s.SimDelayMs, s.SimCallMs, s.UpstreamBalancePollMinutes, at,
		s.DepositBank, s.DepositTicketHours, s.DepositSecondApprovalAbove, s.HoldAbove,
		s.DisputeWindowDays, s.DisputeAnswerHours}
}

func (a *admin) getSettings(w http.ResponseWriter, r *http.Request) error {
	s, err := a.Service.Settings(r.Context(), a.actor(r))
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
	var delay, call, poll int
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
	if obj.take("upstreamBalancePollMinutes", &poll) {
		p.UpstreamBalancePollMinutes = &poll
	}
	if raw, ok := obj.m["reconcileAt"]; ok {
		at := "" // null: never
		if strings.TrimSpace(string(raw)) == "null" {
			delete(obj.m, "reconcileAt")
		} else if obj.take("reconcileAt", &at); at == "" {
			at = "-" // "" is no time of day: null says never
		}
		p.ReconcileAt = &at
	}
	obj.depositSettings(&p)
	if err := obj.done(); err != nil {
		return err
	}
	s, err := a.Service.UpdateSettings(r.Context(), a.actor(r), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewSettings(s))
	return nil
}

// depositSettings takes the deposit settings of a settings patch:
// depositBank (an object of exactly its three fields, or null),
// depositTicketHours and depositSecondApprovalAboveUsd.
func (o *object) depositSettings(p *topupd.SettingsPatch) {
	if raw, ok := o.m["depositBank"]; ok {
		var bank *topupd.DepositBank
		if strings.TrimSpace(string(raw)) == "null" {
			delete(o.m, "depositBank")
		} else if fields, err := readBank(raw); err != nil {
			delete(o.m, "depositBank")
			if o.err == nil {
				o.err = err
			}
		} else {
			delete(o.m, "depositBank")
			bank = fields
		}
		p.DepositBank = &bank
	}
	var hours int
	if o.take("depositTicketHours", &hours) {
		p.DepositTicketHours = &hours
	}
	if above, ok := o.money("depositSecondApprovalAboveUsd"); ok {
		p.DepositSecondApprovalAbove = &above
	}
	var hold topupd.Percent
	if o.take("holdAbovePercent", &hold) {
		p.HoldAbove = &hold
	}
	var windowDays, answerHours int
	if o.take("disputeWindowDays", &windowDays) {
		p.DisputeWindowDays = &windowDays
	}
	if o.take("disputeAnswerHours", &answerHours) {
		p.DisputeAnswerHours = &answerHours
	}
}

// readBank reads a depositBank object: its three fields, each a string,
// and nothing else (INVALID_BODY).
func readBank(raw []byte) (*topupd.DepositBank, error) {
	inner := &object{}
	if err := json.Unmarshal(raw, &inner.m); err != nil || inner.m == nil {
		return nil, topupd.Errorf(topupd.EInvalidBody, "depositBank: an object with bankName, accountNumber and accountHolder, or null")
	}
	var b topupd.DepositBank
	for _, f := range []struct {
		name string
		dst  *string
	}{{"bankName", &b.BankName}, {"accountNumber", &b.AccountNumber}, {"accountHolder", &b.AccountHolder}} {
		if !inner.take(f.name, f.dst) && inner.err == nil {
			return nil, topupd.Errorf(topupd.EInvalidBody, "depositBank.%s: required", f.name)
		}
	}
	if err := inner.done(); err != nil {
		return nil, topupd.Errorf(topupd.EInvalidBody, "depositBank: %v", err)
	}
	return &b, nil
}
