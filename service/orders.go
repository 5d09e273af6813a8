package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// The order operations.
const (
	OpCompleteOrder Op = "order.complete"
	OpCancelOrder   Op = "order.cancel"
	OpRetryOrder    Op = "order.retry"
)

// orderOps are the order operations' permissions.
var orderOps = map[Op]rule{
	OpCompleteOrder: {perm: topupd.PermOrders},
	OpCancelOrder:   {perm: topupd.PermOrders},
	OpRetryOrder:    {perm: topupd.PermOrders},
}

// orderStore is what the order operations need of the database.
type orderStore interface {
	Order(ctx context.Context, accountID, id string) (topupd.Order, error)
	Settle(ctx context.Context, ch *topupd.Change, seq int64, st topupd.Settlement) (topupd.Order, error)
	RetryOrder(ctx context.Context, ch *topupd.Change, seq int64, now, deadline time.Time) (topupd.Order, error)
}

// OperatorCancelled is the error of an order an operator cancels without
// saying why.
const OperatorCancelled = "CANCELLED BY OPERATOR"

// MaxSettleCodes bounds the codes one completion delivers.
const MaxSettleCodes = 10_000

// CompleteOrder completes a processing order, delivering codes: each 1 to
// 1,000 characters, and never one delivered before or held in stock
// (CODE_ALREADY_USED). Codes for an order that takes none (a top-up or
// subscription not from an upstream, topupd.Order.TakesCodes), or for a
// sandbox order (which delivers TEST- codes of its own), are INVALID BODY.
// A final order is ORDER_FINAL. A sandbox order completes, cancels and
// retries on its sandbox's books, as the engine would settle it.
func (s *Service) CompleteOrder(ctx context.Context, a Actor, orderID string, codes []string) (topupd.Order, error) {
	if err := Allowed(a, OpCompleteOrder); err != nil {
		return topupd.Order{}, err
	}
	if err := CheckCodes(codes, 0, MaxSettleCodes); err != nil {
		return topupd.Order{}, err
	}
	return s.settle(ctx, a, OpCompleteOrder, orderID, topupd.Settlement{Status: topupd.StatusCompleted, Codes: codes})
}

// CancelOrder cancels a processing order with an error (OperatorCancelled
// when empty; at most 500 characters), refunding its charge when refund is
// set. A final order is ORDER_FINAL.
func (s *Service) CancelOrder(ctx context.Context, a Actor, orderID, why string, refund bool) (topupd.Order, error) {
	if err := Allowed(a, OpCancelOrder); err != nil {
		return topupd.Order{}, err
	}
	if why == "" {
		why = OperatorCancelled
	}
	if len(why) > 500 {
		return topupd.Order{}, topupd.Errorf(topupd.EInvalidBody, "error: at most 500 characters")
	}
	return s.settle(ctx, a, OpCancelOrder, orderID, topupd.Settlement{Status: topupd.StatusCancelled, Error: why, Refund: refund})
}

// RetryOrder makes a processing order due now, with a fresh deadline, and
// tells the engine. A final order is ORDER_FINAL.
func (s *Service) RetryOrder(ctx context.Context, a Actor, orderID string) (topupd.Order, error) {
	if err := Allowed(a, OpRetryOrder); err != nil {
		return topupd.Order{}, err
	}
	o, err := s.order(ctx, a, orderID)
	if err != nil {
		return o, err
	}
	now := s.d.Now()
	if o, err = s.d.Store.RetryOrder(ctx, change(a, OpRetryOrder, orderID), o.Seq, now, now.Add(s.d.Deadline)); err != nil {
		return o, err
	}
	s.d.Wake()
	return o, nil
}

// settle applies an operator's decision to a processing order.
func (s *Service) settle(ctx context.Context, a Actor, op Op, orderID string, st topupd.Settlement) (topupd.Order, error) {
	o, err := s.order(ctx, a, orderID)
	if err != nil {
		return o, err
	}
	if o.Status.Final() {
		return o, topupd.Errorf(topupd.EOrderFinal, "order %s is already %s", o.ID, o.Status)
	}
	if len(st.Codes) > 0 && o.Sandbox {
		return o, topupd.SandboxCodesRefused(o.ID)
	}
	if len(st.Codes) > 0 && !o.TakesCodes() {
		return o, topupd.Errorf(topupd.EInvalidBody, "codes: order %s is a %s and delivers no codes", o.ID, o.Kind)
	}
	st.Now = s.d.Now()
	return s.d.Store.Settle(ctx, change(a, op, orderID), o.Seq, st)
}

// order finds an order by its public or internal id, within the actor's
// account and its sandbox when the actor is a reseller's chat.
func (s *Service) order(ctx context.Context, a Actor, orderID string) (topupd.Order, error) {
	o, err := s.d.Store.Order(ctx, "", orderID)
	if live, _ := topupd.LiveID(o.AccountID); err == nil && a.Account != "" && live != a.Account {
		return topupd.Order{}, topupd.Fail(topupd.EOrderNotFound)
	}
	return o, err
}

// CheckCodes checks a list of codes from an operator: between least and
// most of them, each 1 to 1,000 characters.
func CheckCodes(codes []string, least, most int) error {
	if len(codes) < least || len(codes) > most {
		return topupd.Errorf(topupd.EInvalidBody, "codes: %d to %d codes", least, most)
	}
	for i, c := range codes {
		if c == "" || len(c) > 1000 {
			return topupd.Errorf(topupd.EInvalidBody, "codes[%d]: 1 to 1000 characters", i)
		}
	}
	return nil
}
