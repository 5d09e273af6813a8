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
}

// orders searches orders by trxid or order id, account, status, pack and
// time, newest first, a page at a time.
func (c *Console) orders(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	find := strings.TrimSpace(q.Get("q"))
	if strings.HasPrefix(find, "ord_") {
		if _, err := c.Service.Order(r.Context(), s.actor, find); err == nil {
			http.Redirect(w, r, "/console/orders/"+url.PathEscape(find), http.StatusSeeOther)
			return nil
		}
	}
	oq := topupd.OrdersQuery{TrxID: find, AccountID: strings.TrimSpace(q.Get("account")), Status: topupd.OrderStatus(q.Get("status")),
		PID: strings.TrimSpace(q.Get("pid")), Limit: 50}
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
	d := ordersData{Q: q, Orders: page.Orders, Statuses: []string{"processing", "completed", "cancelled"}}
	if page.Next != nil {
		d.Next = pageQuery(q, "cursor", service.ListCursor(service.OrdersCursor, *page.Next))
	}
	c.render(w, r, s, http.StatusOK, "orders", "Orders", d)
	return nil
}

// orderData is an order's page.
type orderData struct {
	O service.OrderDetail
}

// order shows an order: what was bought for whom, its history, its ledger
// entries, and (to a role that may) complete, cancel and retry.
func (c *Console) order(w http.ResponseWriter, r *http.Request, s *session) error {
	o, err := c.Service.OrderDetail(r.Context(), s.actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "order", "Order "+o.ID, orderData{O: o})
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
	var question string
	switch act {
	case "complete":
		question = "Complete order " + id + " (" + o.PackName + " for " + o.AccountID + ")"
		if len(codes) > 0 {
			question += " delivering the " + plural(len(codes), "code") + " given"
		}
		question += "? The reseller keeps the charge of " + o.Amount.Dollars() + "."
	case "cancel":
		question = "Cancel order " + id + " without a refund? The reseller keeps paying " + o.Amount.Dollars() + "."
		if refund {
			question = "Cancel order " + id + " and refund " + o.Amount.Dollars() + " to " + o.AccountID + "?"
		}
	case "retry":
		question = "Ask the supplier about order " + id + " again now, with a fresh deadline?"
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
	}
	return c.done(w, r, back, msg)
}
