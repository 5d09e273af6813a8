package service

import (
	"context"

	"github.com/topupd/topupd"
)

// The operations on deposit tickets (back-office.md, section 3). Opening
// and reading tickets is the reseller's, with its key; every operator
// role reads them.

// OpenDeposit opens a deposit ticket for the caller's books (its
// sandbox's, with a sandbox key): amount from 1 to 100,000 USD in whole
// cents (INVALID_BODY), DEPOSITS_DISABLED, DEPOSIT_LIMIT,
// DEPOSIT_AMOUNT_TAKEN.
func (s *Service) OpenDeposit(ctx context.Context, c Caller, amount topupd.Money) (topupd.Deposit, error) {
	if err := topupd.CheckDepositAmount(amount); err != nil {
		return topupd.Deposit{}, err
	}
	return s.d.Store.OpenDeposit(ctx, c.Books(), amount, s.d.Now())
}

// CallerDeposit reads one of the caller's tickets: another account's, or
// another books', is NOT_FOUND.
func (s *Service) CallerDeposit(ctx context.Context, c Caller, id string) (topupd.Deposit, error) {
	return s.d.Store.Deposit(ctx, c.Books(), id)
}

// CallerDeposits reads a page of the caller's tickets, newest first, and
// how many it has.
func (s *Service) CallerDeposits(ctx context.Context, c Caller, offset, limit int) ([]topupd.Deposit, int, error) {
	return s.d.Store.Deposits(ctx, topupd.DepositsQuery{AccountID: c.Books(), Offset: offset, Limit: limit})
}

// Deposit reads one ticket, any account's.
func (s *Service) Deposit(ctx context.Context, a Actor, id string) (topupd.Deposit, error) {
	if err := readCatalog(a); err != nil {
		return topupd.Deposit{}, err
	}
	return s.d.Store.Deposit(ctx, "", id)
}

// Deposits reads a page of tickets, newest first: live ones, or
// sandboxes' with q.Sandbox, or one account's.
func (s *Service) Deposits(ctx context.Context, a Actor, q topupd.DepositsQuery) ([]topupd.Deposit, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	list, _, err := s.d.Store.Deposits(ctx, q)
	return list, err
}

// The operators' deposit operations: the owner's and finance's.
const (
	// OpConfirmDeposit confirms a deposit ticket: the first of two
	// confirmations above the threshold, or the one that credits it.
	OpConfirmDeposit Op = "deposit.confirm"
	// OpRejectDeposit rejects a deposit ticket.
	OpRejectDeposit Op = "deposit.reject"
)

// depositOps are the deposit operations' permissions.
var depositOps = map[Op]rule{
	OpConfirmDeposit: {perm: topupd.PermCredit},
	OpRejectDeposit:  {perm: topupd.PermCredit},
}

// ConfirmDeposit confirms a ticket with the bank's reference of the
// transfer and, when it differs from the ticket's amount, what arrived
// (what is then credited): INVALID_BODY, NOT_FOUND, DEPOSIT_FINAL,
// SECOND_APPROVAL_REQUIRED, CONFIRMATION_MISMATCH, BANK_REF_USED.
func (s *Service) ConfirmDeposit(ctx context.Context, a Actor, id, bankRef string, received *topupd.Money) (topupd.Deposit, error) {
	if err := Allowed(a, OpConfirmDeposit); err != nil {
		return topupd.Deposit{}, err
	}
	c := topupd.DepositConfirmation{Operator: a.Operator, At: s.d.Now(), BankRef: bankRef, Received: received}
	if err := c.Check(); err != nil {
		return topupd.Deposit{}, err
	}
	return s.d.Store.ConfirmDeposit(ctx, change(a, OpConfirmDeposit, id), id, c)
}

// RejectDeposit rejects a ticket, with a reason of 1 to 500 characters:
// INVALID_BODY, NOT_FOUND, DEPOSIT_FINAL.
func (s *Service) RejectDeposit(ctx context.Context, a Actor, id, reason string) (topupd.Deposit, error) {
	if err := Allowed(a, OpRejectDeposit); err != nil {
		return topupd.Deposit{}, err
	}
	if err := topupd.RejectDeposit(topupd.DepositPending, reason); err != nil {
		return topupd.Deposit{}, err
	}
	return s.d.Store.RejectDeposit(ctx, change(a, OpRejectDeposit, id), id, reason, a.Operator, s.d.Now())
}
