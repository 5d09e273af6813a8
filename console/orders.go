package console

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/topupd/topupd/client"
)

// ordersData is the orders page: the search and one page of its orders.
type ordersData struct {
	Q        url.Values
	Orders   []client.AdminOrder
	Next     template.URL
	Statuses []string
}

// orders searches orders by trxid or order id, account, status, pack and
// time, newest first, a page at a time.
func (c *Console) orders(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	find := strings.TrimSpace(q.Get("q"))
	if strings.HasPrefix(find, "ord_") {
		if _, err := c.Admin.Order(s.ctx, find); err == nil {
			http.Redirect(w, r, "/console/orders/"+url.PathEscape(find), http.StatusSeeOther)
			return nil
		}
	}
	aq := client.AdminOrdersQuery{TrxID: find, AccountID: strings.TrimSpace(q.Get("account")), Status: q.Get("status"),
		PID: strings.TrimSpace(q.Get("pid")), Cursor: q.Get("cursor"), Limit: 50}
	var err error
	if aq.From, err = dayParam(q, "from", time.Time{}); err != nil {
		return err
	}
	if aq.To, err = dayParam(q, "to", time.Time{}); err != nil {
		return err
	}
	if !aq.To.IsZero() {
		aq.To = aq.To.AddDate(0, 0, 1) // the whole day named
	}
	page, err := c.Admin.Orders(s.ctx, aq)
	if err != nil {
		return err
	}
	d := ordersData{Q: q, Orders: page.Orders, Statuses: []string{"processing", "completed", "cancelled"}}
	if page.NextCursor != "" {
		d.Next = pageQuery(q, "cursor", page.NextCursor)
	}
	c.render(w, r, s, http.StatusOK, "orders", "Orders", d)
	return nil
}

// orderData is an order's page.
type orderData struct {
	O      client.AdminOrder
	Ledger []client.LedgerEntry
}

// order shows an order: what was bought for whom, its history, its ledger
// entries, and (to a role that may) complete, cancel and retry.
func (c *Console) order(w http.ResponseWriter, r *http.Request, s *session) error {
	o, err := c.Admin.Order(s.ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	d := orderData{O: o, Ledger: o.Ledger}
	c.render(w, r, s, http.StatusOK, "order", "Order "+o.OrderID, d)
	return nil
}

// orderAction completes, cancels or retries an order, after a confirmation.
func (c *Console) orderAction(w http.ResponseWriter, r *http.Request, s *session) error {
	id, act := r.PathValue("id"), r.PathValue("action")
	back := "/console/orders/" + url.PathEscape(id)
	o, err := c.Admin.Order(s.ctx, id)
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
		question += "? The reseller keeps the charge of " + o.AmountUSD.Dollars() + "."
	case "cancel":
		question = "Cancel order " + id + " without a refund? The reseller keeps paying " + o.AmountUSD.Dollars() + "."
		if refund {
			question = "Cancel order " + id + " and refund " + o.AmountUSD.Dollars() + " to " + o.AccountID + "?"
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
		msg = "The order is cancelled and " + o.AmountUSD.Dollars() + " refunded."
	}
	return c.done(w, r, back, msg)
}
