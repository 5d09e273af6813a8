package console

import (
	"net/http"
)

// orderCodes shows an order's delivered codes in full, to the owner
// (topupd.PermOrderCodes): a POST, so the read is a deliberate act, which
// the service records in the action log (order.codes-viewed) before any
// code is read. The page is the order's page with the codes unmasked;
// every other view of the order shows them masked.
func (c *Console) orderCodes(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	full, err := c.Service.OrderCodes(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	o, err := c.Service.OrderDetail(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	o.Codes = full.Codes
	d := orderPage(o)
	d.Revealed = true
	c.render(w, r, s, http.StatusOK, "order", "Order "+o.ID, d)
	return nil
}
