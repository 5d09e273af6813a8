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
