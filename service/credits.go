package service

import (
	"context"
	"strings"

	"github.com/topupd/topupd"
)

// Credited is what a credit did.
type Credited struct {
	// Entry is the credit's ledger entry: for a repeated reference, the
	// first credit's.
	Entry topupd.LedgerEntry
	// Balance is the account's balance after it.
	Balance topupd.Money
	// Repeated is set when the reference was used before for the account:
	// nothing was credited again.
	Repeated bool
}

// MaxCreditReference is the longest reference of a credit.
const MaxCreditReference = 200

// Ledger entries an operator reads at a time: DefaultLedger unless asked,
// at most MaxLedger.
const (
	DefaultLedger = 1000
	MaxLedger     = 100_000
)

// Credit credits an account (or, negative, corrects its balance) with a
// reference, 1 to MaxCreditReference characters, that makes it once: a
// reference used before for the account credits nothing again.
func (s *Service) Credit(ctx context.Context, a Actor, accountID string, amount topupd.Money, reference string) (Credited, error) {
	if _, sandbox := topupd.LiveID(accountID); sandbox {
		return Credited{}, topupd.Errorf(topupd.ENotFound, "account %s", accountID) // reached through its account (CreditSandbox)
	}
	return s.credit(ctx, a, accountID, accountID, amount, reference)
}

// CreditSandbox is Credit on the account's sandbox balance (integration.md),
// opening the sandbox if it was not; the balance never goes below 0 either.
func (s *Service) CreditSandbox(ctx context.Context, a Actor, accountID string, amount topupd.Money, reference string) (Credited, error) {
	if err := Allowed(a, OpCredit); err != nil {
		return Credited{}, err
	}
	if err := s.accountExists(ctx, accountID); err != nil {
		return Credited{}, err
	}
	return s.credit(ctx, a, accountID, topupd.SandboxID(accountID), amount, reference)
}

// credit credits books, the account's own or its sandbox's.
func (s *Service) credit(ctx context.Context, a Actor, accountID, books string, amount topupd.Money, reference string) (Credited, error) {
	if err := Allowed(a, OpCredit); err != nil {
		return Credited{}, err
	}
	if err := a.Own(accountID); err != nil {
		return Credited{}, err
	}
	switch {
	case amount == 0:
		return Credited{}, topupd.Errorf(topupd.EInvalidBody, "amountUsd must not be 0")
	case strings.TrimSpace(reference) == "" || len(reference) > MaxCreditReference:
		return Credited{}, topupd.Errorf(topupd.EInvalidBody, "reference is required (at most %d characters)", MaxCreditReference)
	}
	e, repeated, err := s.d.Store.Credit(ctx, change(a, OpCredit, books), books, amount, reference, s.d.Now())
	if err != nil {
		return Credited{}, err
	}
	s.changed(ctx)
	bal, err := s.d.Store.Balance(ctx, books)
	if err != nil {
		return Credited{}, err
	}
	return Credited{Entry: e, Balance: bal, Repeated: repeated}, nil
}

// Ledger reads an account's newest ledger entries, newest first: limit
// of them, held to 1 to MaxLedger.
func (s *Service) Ledger(ctx context.Context, a Actor, accountID string, limit int) ([]topupd.LedgerEntry, error) {
	if err := s.accountReadable(a, accountID); err != nil {
		return nil, err
	}
	if err := s.accountExists(ctx, accountID); err != nil {
		return nil, err
	}
	return s.d.Store.Ledger(ctx, accountID, min(max(limit, 1), MaxLedger))
}
