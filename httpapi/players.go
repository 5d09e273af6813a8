package httpapi

import (
	"context"
	"net/http"

	"github.com/topupd/topupd"
)

// Players asks a pack's suppliers about a player (fulfil.Engine.CheckPlayer).
type Players interface {
	// CheckPlayer asks the suppliers, in turn, about the player of account
	// fields f; an error is SUPPLIER_UNAVAILABLE.
	CheckPlayer(ctx context.Context, suppliers []topupd.Supplier, f topupd.AccountFields) (topupd.PlayerCheck, error)
}

// playerAnswer answers POST /players/check: valid (with the nickname when
// the supplier gives one), not valid (with the error), or not supported.
type playerAnswer struct {
	Error     string `json:"error,omitempty"`
	Nickname  string `json:"nickname,omitempty"`
	Success   bool   `json:"success"`
	Supported *bool  `json:"supported,omitempty"`
	Valid     *bool  `json:"valid,omitempty"`
}

// checkPlayer asks the pack's suppliers whether the player exists: the
// body is checked as an order's would be (without trxid), then the
// suppliers are asked. Nothing is charged or recorded. A pack drawing
// from stock cannot be checked.
func (a *reseller) checkPlayer(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c := callerOf(ctx)
	req, err := DecodePlayerCheck(r)
	if err != nil {
		return err
	}
	pack, draft, err := a.Store.PrepareOrder(ctx, topupd.PlaceOrder{AccountID: c.account.ID, Sandbox: c.account.Sandbox, Request: req, SimOff: a.SimOff})
	if err != nil {
		return err
	}
	var res topupd.PlayerCheck
	if c.account.Sandbox { // every sandbox check follows the sim rules, whatever the pack
		res, err = a.Players.CheckPlayer(ctx, []topupd.Supplier{{Provider: topupd.ProviderSandbox}}, draft.Fields)
	} else {
		res, err = a.askPlayer(ctx, &pack, &draft)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewPlayerCheck(res))
	return nil
}

// askPlayer decides who answers a check of a valid body, and asks: the
// pack's suppliers, in the engine's order; a pack drawing from stock has
// none to ask, and is not supported.
func (a *reseller) askPlayer(ctx context.Context, pack *topupd.Pack, draft *topupd.Draft) (topupd.PlayerCheck, error) {
	if draft.DrawsStock {
		return topupd.PlayerCheck{}, nil
	}
	return a.Players.CheckPlayer(ctx, pack.SupplierList(), draft.Fields)
}

// viewPlayerCheck is the answer of a check.
func viewPlayerCheck(res topupd.PlayerCheck) playerAnswer {
	out := playerAnswer{Success: true}
	switch {
	case !res.Supported:
		out.Supported = &res.Supported
	case res.Valid:
		out.Valid, out.Nickname = &res.Valid, res.Nickname
	default:
		out.Valid, out.Error = &res.Valid, topupd.InvalidPlayer
	}
	return out
}
