package service

import (
	"context"
	"strings"

	"github.com/topupd/topupd"
)

// FindOrders finds the orders an order id or a trxid names, live or
// sandbox, as the messaging app's /order and /find ask: an order id
// (ord_…) names one order, whichever books it is on; a trxid is unique
// among the live orders and, apart, among the sandbox ones, so it names
// at most one of each, and both come back, the live one first. A string
// that looks like an order id but names none is looked up as a trxid too.
// A reseller's chat finds its own account's orders and its sandbox's
// alone. Each order's codes are masked; none found is an empty list.
func (s *Service) FindOrders(ctx context.Context, a Actor, idOrTrxid string) ([]topupd.Order, error) {
	if err := Allowed(a, OpRead); err != nil {
		return nil, err
	}
	if strings.HasPrefix(idOrTrxid, "ord_") { // only an order id is looked up as one: a trxid of digits would read as an internal number
		o, err := s.Order(ctx, a, idOrTrxid)
		if err == nil {
			return []topupd.Order{o}, nil
		}
		if topupd.CodeOf(err) != topupd.EOrderNotFound {
			return nil, err
		}
	}
	var found []topupd.Order
	for _, sandbox := range []bool{false, true} {
		q := topupd.OrdersQuery{TrxID: idOrTrxid, Sandbox: sandbox, Limit: 1}
		if a.Account != "" {
			q.AccountID = books(a.Account, sandbox)
		}
		page, err := s.Orders(ctx, a, q)
		if err != nil {
			return nil, err
		}
		found = append(found, page.Orders...)
	}
	return found, nil
}

// books is the id of the account whose books hold an account's live
// orders, or its sandbox orders.
func books(accountID string, sandbox bool) string {
	if sandbox {
		return topupd.SandboxID(accountID)
	}
	return accountID
}

// OwnBooks is Own for what an account's sandbox holds too: a reseller's
// chat reads its account's sandbox orders as its live ones.
func (a Actor) OwnBooks(accountID string) error {
	live, _ := topupd.LiveID(accountID)
	return a.Own(live)
}
