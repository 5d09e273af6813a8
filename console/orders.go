package console

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// ordersData is the orders page: the search and one page of its orders.
type ordersData struct {
	Q        url.Values
	Orders   []topupd.Order
	Next     template.URL
	Statuses []string
	// Sandbox lists the sandboxes' orders alone (?sandbox=true); else the
	// live ones alone, as GET /admin/orders does.
	Sandbox bool
}

// orders searches orders by trxid or order id, account, status, pack and
// time, newest first, a page at a time: the live orders, or on the
// Sandbox tab (?sandbox=true) the sandboxes' orders alone.
func (c *Console) orders(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	sandbox, account := false, strings.TrimSpace(q.Get("account"))
	switch q.Get("sandbox") {
	case "":
	case "true":
		sandbox = true
		if account != "" {
			account = topupd.SandboxID(account)
		}
	default:
		return pageError{http.StatusBadRequest, "sandbox: true, or nothing for the live orders."}
	}
	find := strings.TrimSpace(q.Get("q"))
	if strings.HasPrefix(find, "ord_") {
		if _, err := c.Service.Order(r.Context(), s.actor, find); err == nil {
			http.Redirect(w, r, "/console/orders/"+url.PathEscape(find), http.StatusSeeOther)
			return nil
		}
	}
	oq := topupd.OrdersQuery{TrxID: find, AccountID: account, Status: topupd.OrderStatus(q.Get("status")),
		PID: strings.TrimSpace(q.Get("pid")), Limit: 50, Sandbox: sandbox}
	var err error
	if oq.From, err = dayParam(q, "from", time.Time{}); err != nil {
		return err
	}
	if oq.To, err = dayParam(q, "to", time.Time{}); err != nil {
		return err
	}
	if !oq.To.IsZero() {
		oq.To = oq.To.AddDate(0, 0, 1) // the whole day named
	}
	if oq.Before, err = service.ParseListCursor(service.OrdersCursor, q.Get("cursor")); err != nil {
		return err
	}
	page, err := c.Service.Orders(r.Context(), s.actor, oq)
	if err != nil {
		return err
	}
	d := ordersData{Q: q, Orders: page.Orders, Statuses: []string{"processing", "completed", "cancelled"}, Sandbox: sandbox}
	if page.Next != nil {
		d.Next = pageQuery(q, "cursor", service.ListCursor(service.OrdersCursor, *page.Next))
	}
	c.render(w, r, s, http.StatusOK, "orders", "Orders", d)
	return nil
}

// orderData is an order's page.
type orderData struct {
	O service.OrderDetail
	// Revealed: O.Codes are the full codes (orderCodes), not masked.
	Revealed bool
	// Margin is a completed order's amount less its cost, when known.
	Margin *topupd.Money
}

// order shows an order: what was bought for whom, its history, its ledger
// entries, and (to a role that may) complete, cancel and retry.
func (c *Console) order(w http.ResponseWriter, r *http.Request, s *session) error {
	o, err := c.Service.OrderDetail(r.Context(), s.actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "order", "Order "+o.ID, orderPage(o))
	return nil
}

// orderAction completes, cancels or retries an order, after a confirmation.
func (c *Console) orderAction(w http.ResponseWriter, r *http.Request, s *session) error {
	id, act := r.PathValue("id"), r.PathValue("action")
	back := "/console/orders/" + url.PathEscape(id)
	o, err := c.Service.Order(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	refund := r.PostFormValue("refund") == "yes"
	codes := codeLines(r.PostFormValue("codes"))
	what, whose := "order "+id, o.AccountID
	if live, sandbox := topupd.LiveID(o.AccountID); sandbox { // its books: a refund goes to the sandbox balance
		what, whose = "sandbox order "+id, "the sandbox of "+live
	}
	var question string
	switch act {
	case "complete":
		question = "Complete " + what + " (" + o.PackName + " for " + whose + ")"
		if len(codes) > 0 {
			question += " delivering the " + plural(len(codes), "code") + " given"
		}
		question += "? The reseller keeps the charge of " + o.Amount.Dollars() + "."
	case "cancel":
		question = "Cancel " + what + " without a refund? The reseller keeps paying " + o.Amount.Dollars() + "."
		if refund {
			question = "Cancel " + what + " and refund " + o.Amount.Dollars() + " to " + whose + "?"
		}
	case "retry":
		question = "Ask the supplier about " + what + " again now, with a fresh deadline?"
	default:
		return pageError{http.StatusNotFound, "There is no such action."}
	}
	if !c.confirmed(w, r, s, question, back) {
		return nil
	}
	switch act {
	case "complete":
		_, err = c.Service.CompleteOrder(r.Context(), s.actor, id, codes)
	case "cancel":
		_, err = c.Service.CancelOrder(r.Context(), s.actor, id, strings.TrimSpace(r.PostFormValue("error")), refund)
	case "retry":
		_, err = c.Service.RetryOrder(r.Context(), s.actor, id)
	}
	if err != nil {
		return err
	}
	msg := map[string]string{"complete": "The order is completed.", "cancel": "The order is cancelled.", "retry": "The order will be retried now."}[act]
	if act == "cancel" && refund {
		msg = "The order is cancelled and " + o.Amount.Dollars() + " refunded."
		if o.Sandbox {
			msg = "The sandbox order is cancelled and " + o.Amount.Dollars() + " refunded to the sandbox balance."
		}
	}
	return c.done(w, r, back, msg)
}

// supplierText is who fulfils an order, as its page says it: the provider,
// the upstream and its reference, and how many calls it took when there
// were any. A key or gift-card order stored with the sim provider (the
// default before the stock provider) was filled from stock, and says so.
func supplierText(o topupd.Order) string {
	p := o.Provider
	if p == topupd.ProviderSim && (o.Kind == topupd.KindGamekey || o.Kind == topupd.KindGiftcard) {
		p = topupd.ProviderStock
	}
	if o.Upstream != "" {
		p += " via " + o.Upstream
	}
	if o.SupplierRef != "" {
		p += " (ref " + o.SupplierRef + ")"
	}
	if o.Attempts > 0 {
		p += ", " + plural(o.Attempts, "attempt")
	}
	return p
}
