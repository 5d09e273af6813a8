package console

import (
	"context"
	"fmt"
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// processingOrders counts the orders q selects that are processing, live
// and sandbox, up to a page of each: more is true when there are more
// than the count says.
func (c *Console) processingOrders(ctx context.Context, s *session, q topupd.OrdersQuery) (n int, more bool, err error) {
	q.Status, q.Limit = topupd.StatusProcessing, service.MaxPage
	for _, sandbox := range []bool{false, true} {
		q.Sandbox = sandbox
		page, err := c.Service.Orders(ctx, s.actor, q)
		if err != nil {
			return 0, false, err
		}
		n += len(page.Orders)
		more = more || page.Next != nil
	}
	return n, more, nil
}

// offSaleConfirmed asks, before a line or a pack goes off sale, whether
// to go on, saying how many of its orders (those q selects) are
// processing; it reports whether the form was confirmed, as confirmed.
func (c *Console) offSaleConfirmed(w http.ResponseWriter, r *http.Request, s *session, what string, q topupd.OrdersQuery, back string) (bool, error) {
	if r.PostFormValue("confirmed") == "yes" {
		return true, nil
	}
	question, err := c.offSaleQuestion(r.Context(), s, what, q)
	if err != nil {
		return false, err
	}
	return c.confirmed(w, r, s, question, back), nil
}

// offSaleQuestion asks whether to take what off sale, saying how many of
// its orders (those q selects) are processing.
func (c *Console) offSaleQuestion(ctx context.Context, s *session, what string, q topupd.OrdersQuery) (string, error) {
	n, more, err := c.processingOrders(ctx, s, q)
	if err != nil {
		return "", err
	}
	orders := "None of its orders is processing."
	switch {
	case more:
		orders = fmt.Sprintf("More than %d of its orders are processing: they go on and finish as usual.", n)
	case n == 1:
		orders = "1 of its orders is processing: it goes on and finishes as usual."
	case n > 1:
		orders = fmt.Sprintf("%d of its orders are processing: they go on and finish as usual.", n)
	}
	return "Take " + what + " off sale? Resellers can no longer order it. " + orders, nil
}

// goesOffSale reports whether a status change from was to st takes a line
// or pack off sale.
func goesOffSale(was, st string) bool {
	return was == topupd.StatusActive && st == topupd.StatusDisabled
}
