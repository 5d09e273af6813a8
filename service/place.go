package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// Fulfiller makes the first supplier call of an order just placed (the
// fulfilment engine).
type Fulfiller interface {
	// Owner is the name it leases orders under.
	Owner() string
	// LeaseUntil is when a lease taken now would run out.
	LeaseUntil(now time.Time) time.Time
	// Attempt works on a leased order for up to wait (or until ctx ends) and
	// returns it as it then stands.
	Attempt(ctx context.Context, o topupd.Order, wait time.Duration) topupd.Order
	// Answered records the first supplier call of an order its placement
	// answered (topupd.PlaceOrder.Sim: completed, or pending), as Attempt
	// records a call: its log line, its metric and the supplier's health.
	Answered(ctx context.Context, o topupd.Order)
}

// Players asks a pack's suppliers about a player (the fulfilment engine).
type Players interface {
	// CheckPlayer asks the suppliers, in turn, about the player of account
	// fields f; an error is SUPPLIER_UNAVAILABLE.
	CheckPlayer(ctx context.Context, suppliers []topupd.Supplier, f topupd.AccountFields) (topupd.PlayerCheck, error)
}

// OrdersOpen refuses orders while the settings close them: MAINTENANCE,
// then API_ORDER_DISABLED. A front end asks it before it reads an order's
// body, as PlaceOrder does again.
func OrdersOpen(st topupd.Settings) error {
	switch {
	case st.Maintenance:
		return topupd.Fail(topupd.EMaintenance)
	case st.OrdersDisabled:
		return topupd.Fail(topupd.EOrdersDisabled)
	}
	return nil
}

// OrderCall is a caller's request to place an order, as its front end
// read it.
type OrderCall struct {
	Caller
	// Settings are the settings the call is answered under (the front
	// end's cached copy, read as the call came in).
	Settings topupd.Settings
	// Request is the order asked for, decoded and checked for form.
	Request topupd.OrderRequest
	// HintHeld says an in-flight hint of the request (its trxid or
	// idempotency key) was held by an earlier request: a repeat of an
	// order whose first supplier call still runs is DUPLICATE_IN_FLIGHT
	// (topupd.PlaceOrder.HintHeld).
	HintHeld bool
}

// PlaceOrder places an order: while orders are open (OrdersOpen), one
// store transaction checks, charges and creates it, or answers the order
// it repeats (replay true, nothing charged); then a new order's first
// supplier call is made, waiting up to the inline wait for its answer. It
// answers the order as it then stands. Every guarantee (one charge, a
// balance never negative, a code sold once, the limits) is the store
// transaction's.
func (s *Service) PlaceOrder(ctx context.Context, call OrderCall) (o topupd.Order, replay bool, err error) {
	if err := OrdersOpen(call.Settings); err != nil {
		return o, false, err
	}
	if s.d.Fulfiller == nil {
		return o, false, topupd.Errorf(topupd.EInternal, "service.PlaceOrder: no fulfiller")
	}
	route, err := s.route(call.Caller)
	if err != nil {
		return o, false, err
	}
	now := s.d.Now()
	o, replay, err = s.d.Store.PlaceOrder(ctx, topupd.PlaceOrder{
		AccountID: call.Account.ID, Sandbox: call.Account.Sandbox, Request: call.Request, Now: now, Deadline: s.d.Deadline,
		SimOff: s.d.SimOff, LeaseOwner: s.d.Fulfiller.Owner(), LeaseUntil: s.d.Fulfiller.LeaseUntil(now), HintHeld: call.HintHeld,
		Sim: topupd.SimTermsOf(call.Settings), Route: route,
	})
	if err != nil || replay {
		return o, replay, err
	}
	switch {
	case o.Status == topupd.StatusProcessing && o.Supplier != topupd.SupplierAccepted:
		o = s.d.Fulfiller.Attempt(ctx, o, s.d.InlineWait)
	case topupd.FollowsSimRules(o.Provider) && len(o.Codes) == 0:
		// Answered in its placement by the sim rules (no key or card: no
		// TEST- codes): completed, or accepted and pending.
		s.d.Fulfiller.Answered(ctx, o)
	}
	return o, false, nil
}

// CheckPlayer asks the pack's suppliers whether the player of a request
// exists: the request is checked as an order's would be (without its
// trxid), then the suppliers are asked, in the engine's order. Nothing is
// charged or recorded. A pack drawing from stock has none to ask, and is
// not supported; a sandbox's check follows the sim rules, whatever the
// pack.
func (s *Service) CheckPlayer(ctx context.Context, c Caller, req topupd.OrderRequest) (topupd.PlayerCheck, error) {
	if s.d.Players == nil {
		return topupd.PlayerCheck{}, topupd.Errorf(topupd.EInternal, "service.CheckPlayer: no player checker")
	}
	route, err := s.route(c)
	if err != nil {
		return topupd.PlayerCheck{}, err
	}
	ctx = topupd.WithRoute(ctx, route) // for the suppliers it asks
	pack, draft, err := s.d.Store.PrepareOrder(ctx, topupd.PlaceOrder{AccountID: c.Account.ID, Sandbox: c.Account.Sandbox,
		Request: req, SimOff: s.d.SimOff})
	switch {
	case err != nil:
		return topupd.PlayerCheck{}, err
	case c.Account.Sandbox:
		return s.d.Players.CheckPlayer(ctx, []topupd.Supplier{{Provider: topupd.ProviderSandbox}}, draft.Fields)
	case draft.DrawsStock:
		return topupd.PlayerCheck{}, nil
	}
	return s.d.Players.CheckPlayer(ctx, pack.SupplierList(), draft.Fields)
}
