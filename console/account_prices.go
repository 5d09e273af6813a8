package console

import (
	"net/http"
	"net/url"

	"github.com/topupd/topupd"
)

// setAccountPrice sets what one account pays for one pack, its own price,
// which wins over its tier (service.SetAccountPrice, as the admin API's
// PUT /admin/accounts/{id}/prices/{pid}). A large price or a large change
// of what the account pays asks to be confirmed; a refused price shows the
// form again with what was typed and the refusal in plain words.
func (c *Console) setAccountPrice(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	err := c.saveAccountPrice(w, r, s, id)
	return c.formFailed(w, r, s, err, "account", c.accountAgain(r, s, id))
}

// saveAccountPrice is setAccountPrice's work; refusals are fieldErrors.
func (c *Console) saveAccountPrice(w http.ResponseWriter, r *http.Request, s *session, id string) error {
	pid := r.PostFormValue("pid")
	price, problem := parseAmount(r.PostFormValue("priceUsd"), centPlaces)
	if problem == "" && price <= 0 {
		problem = "A price is more than zero. To charge the tier's or the pack's price again, remove the account's own price."
	}
	if problem != "" {
		return fieldError{"priceUsd", problem}
	}
	prices, err := c.Service.AccountPrices(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	var was topupd.Money
	for _, p := range prices.Prices {
		if p.PID == pid {
			was = p.Price
		}
	}
	back := "/console/accounts/" + url.PathEscape(id)
	if price != was && largePriceChange(was, price) {
		q := "Charge account " + id + " " + usdText(price) + " for " + pid + " instead of " + usdText(was) + ", " + priceMove(was, price) + "? That is a large change: check the digits."
		if !c.confirmed(w, r, s, q, back) {
			return nil
		}
	}
	allow := r.PostFormValue("allowBelowCost") == "yes"
	err = c.Service.SetAccountPrice(r.Context(), s.actor, id, pid, price, allow)
	if topupd.CodeOf(err) == topupd.EBelowCost {
		pack, perr := c.findPack(r, s, pid)
		if perr != nil {
			return perr
		}
		return fieldError{"priceUsd", "The price " + usdText(price) + " is below what " + pid + " costs, " + usdText(pack.HighestCost()) +
			": every sale to this account would lose money. Raise the price, or tick “Allow a price below the cost” to sell at a loss."}
	} else if err != nil {
		return err
	}
	return c.done(w, r, back, "The account pays "+usdText(price)+" for "+pid+" (its own price).")
}

// removeAccountPrice removes an account's own price for one pack: its
// tier's or the pack's price applies again (service.DeleteAccountPrice).
func (c *Console) removeAccountPrice(w http.ResponseWriter, r *http.Request, s *session) error {
	id, pid := r.PathValue("id"), r.PathValue("pid")
	if err := c.Service.DeleteAccountPrice(r.Context(), s.actor, id, pid); err != nil {
		return err
	}
	msg := "The account's own price for " + pid + " is removed."
	if prices, err := c.Service.AccountPrices(r.Context(), s.actor, id); err == nil {
		for _, p := range prices.Prices {
			if p.PID == pid {
				msg += " It pays " + usdText(p.Price) + " (" + priceSource(p.Source) + ")."
			}
		}
	}
	return c.done(w, r, "/console/accounts/"+url.PathEscape(id), msg)
}

// priceSource says where an account's price comes from, in words.
func priceSource(source string) string {
	switch source {
	case topupd.PriceOwn:
		return "its own price"
	case topupd.PriceTier:
		return "its tier's price"
	case topupd.PriceMarkup:
		return "its tier's markup on the cost"
	case topupd.PriceDiscount:
		return "its tier's percentage off the list price"
	}
	return "the pack's price"
}

// OwnPrices reports whether the account has a price of its own, for its
// page: the table of what it pays is then shown open.
func (d accountData) OwnPrices() bool {
	for _, p := range d.Prices.Prices {
		if p.Source == topupd.PriceOwn {
			return true
		}
	}
	return false
}
