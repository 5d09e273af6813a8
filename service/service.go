// Package service is topupd's one set of operations: every change a person
// or a client can ask for, typed, whoever asks (the admin API, the
// operator's console, the messaging app's bot, the command line). Each
// operation takes an explicit Actor, checks that the actor's role allows
// it (the role rules' one home), validates its input, records the change
// in the action log in the change's own transaction, and answers domain
// errors (topupd.Error) that each front end shows in its own way.
//
// The front ends are thin adapters over it: they decode a request, build
// the Actor from their own authentication, call one operation, and encode
// its answer. Operations move here a piece at a time (issue 20): orders
// first.
package service

import (
	"context"
	"errors"
	"time"

	"github.com/topupd/topupd"
)

// Actor is who asks for an operation: an operator (by the admin API's
// bearer token, a console session, or the command line as root), or a
// chat of the messaging app linked to an operator or to an account.
type Actor struct {
	// Operator names the operator, or the chat (topupd.ChatActor) of a
	// reseller.
	Operator string
	// Role is the operator's role (RoleResellerChat for a reseller's chat).
	Role topupd.Role
	// Account, for a reseller's chat, is the one account it may act on.
	Account string
	// IP and RequestID say where the request came from, for the action log.
	IP, RequestID string
	// UpdateID, when not zero, is the messaging app's update that asked:
	// it is acted on once (see topupd.Change.UpdateID).
	UpdateID int64
}

// Store is what the service needs of the database.
type Store interface {
	Order(ctx context.Context, accountID, id string) (topupd.Order, error)
	Settle(ctx context.Context, seq int64, st topupd.Settlement) (topupd.Order, error)
	RetryOrder(ctx context.Context, seq int64, now, deadline time.Time) (topupd.Order, error)
}

// Deps are the service's dependencies.
type Deps struct {
	// Store is the database.
	Store Store
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Deadline is how long an operator's retry gives a stuck order
	// (topupd.DefaultOrderDeadline when zero).
	Deadline time.Duration
	// Wake, when set, tells the fulfilment engine that an order is due.
	Wake func()
}

// Service runs the operations.
type Service struct {
	d Deps
}

// New returns the service over its dependencies.
func New(d Deps) (*Service, error) {
	if d.Store == nil {
		return nil, errors.New("service.New: a store is required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Deadline <= 0 {
		d.Deadline = topupd.DefaultOrderDeadline
	}
	if d.Wake == nil {
		d.Wake = func() {}
	}
	return &Service{d: d}, nil
}

// Op names an operation; it is also the name of its change in the
// action log.
type Op string

// The operations, and the permission each needs: the role rules' one home.
const (
	OpCompleteOrder Op = "order.complete"
	OpCancelOrder   Op = "order.cancel"
	OpRetryOrder    Op = "order.retry"
)

var permissionOf = map[Op]topupd.Permission{
	OpCompleteOrder: topupd.PermOrders,
	OpCancelOrder:   topupd.PermOrders,
	OpRetryOrder:    topupd.PermOrders,
}

// Allowed refuses an actor whose role does not allow op: 403
// ROLE_FORBIDDEN. Every operation checks it before it reads or changes
// anything; a front end may check it before it reads a request's body.
func Allowed(a Actor, op Op) error {
	perm, ok := permissionOf[op]
	if !ok {
		return topupd.Errorf(topupd.EInternal, "service: no permission for %s", op)
	}
	if !a.Role.May(perm) {
		return topupd.Errorf(topupd.ERoleForbidden, "the %s role may not do this", a.Role)
	}
	return nil
}

// change is the action log's entry of an operation, carried to the store
// in ctx: the store writes it in the change's own transaction.
func change(ctx context.Context, a Actor, op Op, target string) context.Context {
	return topupd.WithChange(ctx, &topupd.Change{Actor: topupd.Actor{Operator: a.Operator, IP: a.IP, RequestID: a.RequestID},
		Action: string(op), Target: target, UpdateID: a.UpdateID})
}
