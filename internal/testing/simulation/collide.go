package simulation

import (
	"context"
	"net/http"
	"slices"

	"github.com/topupd/topupd"
)

// A trxid is one account's for ever: another account's request with it
// is 403 FORBIDDEN (the reseller API's spec), and places, charges and
// repeats nothing. collide sends one, now and then, in place of a repeat.

// collide sends rq's request, whose trxid an order of rq.account holds,
// from another live account, to node n, and checks the answer.
func (w *World) collide(ctx context.Context, n *node, rq *request) error {
	others := slices.DeleteFunc(slices.Clone(w.model.accounts), func(a string) bool { return a == rq.account })
	if len(others) == 0 {
		return w.send(ctx, n, rq)
	}
	thief := &request{account: others[w.rng.IntN(len(others))], req: rq.req}
	rs := &requestState{}
	ctx = context.WithValue(ctx, requestKey{}, rs)
	a, err := w.post(ctx, n, thief)
	if err != nil {
		return err
	}
	w.logf("%s POST /orders %s %s from %s, not its owner %s: %d %s", n.owner, rq.req.TrxID, rq.req.PID,
		w.shop(thief.account), w.shop(rq.account), a.status, a.Error)
	switch {
	case a.status >= 500 && (n.dead || rs.dbFault):
	case a.status == http.StatusOK:
		w.fail("%s was answered with an order for trxid %s, %s's", w.shop(thief.account), rq.req.TrxID, w.shop(rq.account))
	case a.status != http.StatusForbidden || topupd.ErrorCode(a.Code) != topupd.EForbidden:
		w.fail("%s's request with %s's trxid %s was answered %d %s, not 403 FORBIDDEN", w.shop(thief.account), w.shop(rq.account), rq.req.TrxID, a.status, a.Code)
	}
	return nil
}

// isLive reports whether account is one of the live accounts (not a
// sandbox).
func (w *World) isLive(account string) bool { return slices.Contains(w.model.accounts, account) }
