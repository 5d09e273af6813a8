package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Search by code (back-office.md, section 5): the owner and finance find
// the live order that delivered a code a reseller quotes. The form is a
// POST to the Orders page's own address, answered there without a
// redirect, so that the code is in no address: not in the browser's
// history, not in a log of paths. The service writes each search, found
// or not, in the action log, without the code; the page shows the code
// masked (topupd.MaskCode).

// maxSearchCode bounds a code typed into the search, as an operator's
// codes are bounded (service.CheckCodes).
const maxSearchCode = 1000

// codeResult is a search by code's answer on the Orders page.
type codeResult struct {
	// Masked is the code searched, masked.
	Masked string
	// Found says an order delivered it: the page's list holds it alone.
	Found bool
}

// searchByCode finds the order that delivered a code (service.Orders with
// OrdersQuery.Code) and shows it on the Orders page, or says none did.
func (c *Console) searchByCode(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.runCodeSearch(w, r, s)
	return c.formFailed(w, r, s, err, "orders", func() (string, any, error) {
		d, err := c.firstOrders(r, s)
		return "Orders", d, err
	})
}

// runCodeSearch is searchByCode's work; refusals are fieldErrors.
func (c *Console) runCodeSearch(w http.ResponseWriter, r *http.Request, s *session) error {
	code := r.PostFormValue("code") // exact: case and spaces count
	switch {
	case strings.TrimSpace(code) == "":
		return fieldError{"code", "Type the code exactly as it was delivered: case and spaces count."}
	case len(code) > maxSearchCode:
		return fieldError{"code", "A code is at most 1,000 characters."}
	}
	page, err := c.Service.Orders(r.Context(), s.actor, topupd.OrdersQuery{Code: code, Limit: 1})
	if err != nil {
		return err
	}
	if err := c.nameAccounts(r.Context(), s, &page); err != nil {
		return err
	}
	page.Next, page.More = nil, false
	d := ordersData{Q: url.Values{}, Page: page, Statuses: orderStatuses, ByCode: &codeResult{Masked: topupd.MaskCode(code), Found: len(page.Orders) > 0}}
	c.render(w, r, s, http.StatusOK, "orders", "Orders", d)
	return nil
}

// firstOrders is the Orders page unfiltered: the newest live orders.
func (c *Console) firstOrders(r *http.Request, s *session) (ordersData, error) {
	d := ordersData{Q: url.Values{}, Statuses: orderStatuses}
	var err error
	if d.Page, err = c.Service.Orders(r.Context(), s.actor, topupd.OrdersQuery{Limit: ordersShown}); err != nil {
		return d, err
	}
	if err := c.nameAccounts(r.Context(), s, &d.Page); err != nil {
		return d, err
	}
	if d.Page.Next != nil {
		d.Next = pageQuery(d.Q, "cursor", service.ListCursor(service.OrdersCursor, *d.Page.Next))
	}
	d.CSV = pageQuery(d.Q, "cursor", "")
	return d, nil
}
