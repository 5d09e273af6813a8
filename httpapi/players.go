package httpapi

import (
	"net/http"

	"github.com/topupd/topupd"
)

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
	res, err := a.Service.CheckPlayer(ctx, c.callerVia(r), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewPlayerCheck(res))
	return nil
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
