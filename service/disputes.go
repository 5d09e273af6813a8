package service

import (
	"context"

	"github.com/topupd/topupd"
)

// Disputes (back-office.md, section 5). Opening and reading its own is
// the reseller's, with its key; every operator role reads them; setting
// a supplier claim is the owner's, finance's and support's.

// The dispute operations.
const (
	// OpUpdateDispute sets or clears a dispute's supplier claim.
	OpUpdateDispute Op = "dispute.update"
	// OpSearchCodes finds the order that delivered a code (logged, found
	// or not, without the code).
	OpSearchCodes Op = "order.codes-searched"
)

// disputeOps are the dispute operations' permissions.
var disputeOps = map[Op]rule{
	OpUpdateDispute: {perm: topupd.PermDisputes},
	OpSearchCodes:   {perm: topupd.PermCodeSearch},
	OpOpenDispute:   {perm: topupd.PermAccounts},
}

// OpenDispute disputes one of the caller's completed orders (its
// sandbox's with a sandbox key): INVALID_BODY, ORDER_NOT_FOUND,
// ORDER_NOT_COMPLETED, DISPUTE_WINDOW_CLOSED, DISPUTE_OPEN.
func (s *Service) OpenDispute(ctx context.Context, c Caller, orderID string, r topupd.DisputeRequest) (topupd.Dispute, error) {
	return s.d.Store.OpenDispute(ctx, nil, c.Books(), orderID, r, s.d.Now())
}

// OpOpenDispute disputes an order from its account's chat in the
// messaging app (the reseller API's is the key's own, not an operator's
// change).
const OpOpenDispute Op = "dispute.open"

// OpenAccountDispute disputes a live order of an account, as OpenDispute
// does, for a reseller's chat (its own account): the whole order, logged
// with the chat's update, so that a redelivered /dispute opens none more.
func (s *Service) OpenAccountDispute(ctx context.Context, a Actor, accountID, orderID string, r topupd.DisputeRequest) (topupd.Dispute, error) {
	if err := Allowed(a, OpOpenDispute); err != nil {
		return topupd.Dispute{}, err
	}
	if err := a.Own(accountID); err != nil {
		return topupd.Dispute{}, err
	}
	return s.d.Store.OpenDispute(ctx, change(a, OpOpenDispute, accountID), accountID, orderID, r, s.d.Now())
}

// OpenDisputesNow lists the live open disputes, newest first, at most
// limit: the operators' alerts.
func (s *Service) OpenDisputesNow(ctx context.Context, a Actor, limit int) ([]topupd.Dispute, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	list, _, err := s.d.Store.Disputes(ctx, topupd.DisputesQuery{Status: topupd.DisputeOpen, Limit: limit, Now: s.d.Now()})
	return list, err
}

// CallerDispute reads one of the caller's disputes: another books' is
// NOT_FOUND.
func (s *Service) CallerDispute(ctx context.Context, c Caller, id string) (topupd.Dispute, error) {
	return s.d.Store.Dispute(ctx, c.Books(), id)
}

// CallerDisputes reads a page of the caller's disputes of a status (any
// when empty), newest first, and how many it has.
func (s *Service) CallerDisputes(ctx context.Context, c Caller, status string, offset, limit int) ([]topupd.Dispute, int, error) {
	return s.d.Store.Disputes(ctx, topupd.DisputesQuery{AccountID: c.Books(), Status: status, Offset: offset, Limit: limit})
}

// Dispute reads one dispute, any account's.
func (s *Service) Dispute(ctx context.Context, a Actor, id string) (topupd.Dispute, error) {
	if err := readCatalog(a); err != nil {
		return topupd.Dispute{}, err
	}
	return s.d.Store.Dispute(ctx, "", id)
}

// Disputes reads a page of disputes, newest first: live ones, or
// sandboxes' with q.Sandbox, or one account's; overdue ones at now with
// q.Overdue.
func (s *Service) Disputes(ctx context.Context, a Actor, q topupd.DisputesQuery) ([]topupd.Dispute, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	q.Now = s.d.Now()
	list, _, err := s.d.Store.Disputes(ctx, q)
	return list, err
}

// SetSupplierClaim sets (or, nil, clears) a dispute's supplier claim,
// open or resolved: INVALID_BODY, NOT_FOUND.
func (s *Service) SetSupplierClaim(ctx context.Context, a Actor, id string, claim *topupd.SupplierClaim) (topupd.Dispute, error) {
	if err := Allowed(a, OpUpdateDispute); err != nil {
		return topupd.Dispute{}, err
	}
	if claim != nil {
		if err := claim.Check(); err != nil {
			return topupd.Dispute{}, err
		}
	}
	return s.d.Store.SetSupplierClaim(ctx, change(a, OpUpdateDispute, id), id, claim)
}
