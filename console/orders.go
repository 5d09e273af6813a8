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
	Q    url.Values
	Page service.OrderPage
	Next template.URL
	// CSV is the query of the CSV export of the list as filtered.
	CSV template.URL
	// Accounts are the accounts a name matched when it matched several
	// (none chosen); NoAccount says it matched none.
	Accounts  []service.Account
	NoAccount bool
	Statuses  []string
	// Sandbox lists the sandboxes' orders alone (?sandbox=true); else the
	// live ones alone, as GET /admin/orders does.
	Sandbox bool
	// ByCode is a search by code's answer (orders_code_search.go): Page
	// holds the order found, if any.
	ByCode *codeResult
}

// orderStatuses are the statuses the search offers; ordersShown how many
// orders a page lists.
var orderStatuses = []string{"processing", "completed", "cancelled"}

const ordersShown = 50

// orders searches orders by trxid or order id, account, status, pack and
// time, newest first, a page at a time: the live orders, or on the
// Sandbox tab (?sandbox=true) the sandboxes' orders alone.
func (c *Console) orders(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	d := ordersData{Q: q, Statuses: orderStatuses}
	oq, ok, err := c.ordersQuery(w, r, s, &d)
	if err != nil || !ok {
		return err
	}
	oq.Limit = ordersShown
	if oq.Before, err = service.ParseListCursor(service.OrdersCursor, q.Get("cursor")); err != nil {
		return err
	}
	if d.NoAccount || len(d.Accounts) > 0 {
		c.render(w, r, s, http.StatusOK, "orders", "Orders", d)
		return nil
	}
	if d.Page, err = c.Service.Orders(r.Context(), s.actor, oq); err != nil {
		return err
	}
	if err := c.nameAccounts(r.Context(), s, &d.Page); err != nil {
		return err
	}
	if d.Page.Next != nil {
		d.Next = pageQuery(q, "cursor", service.ListCursor(service.OrdersCursor, *d.Page.Next))
	}
	d.CSV = pageQuery(q, "cursor", "")
	c.render(w, r, s, http.StatusOK, "orders", "Orders", d)
	return nil
}

// ordersQuery reads the orders list's filters into a query: a trxid's
// start (or an order id, which opens the order: ok false), the player's
// id, the account by id or by name (d.Accounts or d.NoAccount when a name
// chooses none), status, pack and days.
func (c *Console) ordersQuery(w http.ResponseWriter, r *http.Request, s *session, d *ordersData) (topupd.OrdersQuery, bool, error) {
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
		return topupd.OrdersQuery{}, false, pageError{http.StatusBadRequest, "sandbox: true, or nothing for the live orders."}
	}
	d.Sandbox = sandbox
	if account != "" && !strings.HasPrefix(account, "acc_") {
		found, err := c.Service.AccountsNamed(r.Context(), s.actor, account)
		if err != nil {
			return topupd.OrdersQuery{}, false, err
		}
		switch len(found) {
		case 0:
			d.NoAccount = true
		case 1:
			account = found[0].ID
			if sandbox {
				account = topupd.SandboxID(account)
			}
		default:
			d.Accounts = found
		}
	}
	find := strings.TrimSpace(q.Get("q"))
	if strings.HasPrefix(find, "ord_") {
		if _, err := c.Service.Order(r.Context(), s.actor, find); err == nil {
			http.Redirect(w, r, "/console/orders/"+url.PathEscape(find), http.StatusSeeOther)
			return topupd.OrdersQuery{}, false, nil
		}
	}
	oq := topupd.OrdersQuery{TrxIDPrefix: find, AccountID: account, Status: topupd.OrderStatus(q.Get("status")),
		PlayerID: strings.TrimSpace(q.Get("player")), PID: strings.TrimSpace(q.Get("pid")), Sandbox: sandbox}
	var err error
	if oq.From, err = dayParam(q, "from", time.Time{}); err != nil {
		return oq, false, err
	}
	if oq.To, err = dayParam(q, "to", time.Time{}); err != nil {
		return oq, false, err
	}
	if !oq.To.IsZero() {
		oq.To = oq.To.AddDate(0, 0, 1) // the whole day named
	}
	return oq, true, nil
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
