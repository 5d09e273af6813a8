package service

import (
	"context"
	"io"

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
	return s.d.Store.OpenDeposit(ctx, nil, c.Books(), amount, s.d.Now())
}

// OpOpenDeposit opens a deposit ticket for an account from its chat in
// the messaging app (the reseller API's opening is the key's own, and is
// not an operator's change).
const OpOpenDeposit Op = "deposit.open"

// OpenAccountDeposit opens a live deposit ticket for an account, as
// OpenDeposit does, for a reseller's chat (its own account) or an
// operator who may manage accounts; the opening is logged, with the
// chat's update, so that a redelivered /deposit opens no second ticket.
func (s *Service) OpenAccountDeposit(ctx context.Context, a Actor, accountID string, amount topupd.Money) (topupd.Deposit, error) {
	if err := Allowed(a, OpOpenDeposit); err != nil {
		return topupd.Deposit{}, err
	}
	if err := a.Own(accountID); err != nil {
		return topupd.Deposit{}, err
	}
	if err := topupd.CheckDepositAmount(amount); err != nil {
		return topupd.Deposit{}, err
	}
	return s.d.Store.OpenDeposit(ctx, change(a, OpOpenDeposit, accountID), accountID, amount, s.d.Now())
}

// AccountDeposits reads an account's live tickets of a status (any when
// empty), newest first, at most limit: for a reseller's chat, its own.
func (s *Service) AccountDeposits(ctx context.Context, a Actor, accountID, status string, limit int) ([]topupd.Deposit, error) {
	if err := Allowed(a, OpRead); err != nil {
		return nil, err
	}
	if err := a.Own(accountID); err != nil {
		return nil, err
	}
	list, _, err := s.d.Store.Deposits(ctx, topupd.DepositsQuery{AccountID: accountID, Status: status, Limit: limit})
	return list, err
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

// Deposits reads a page of tickets, newest first (oldest first with
// q.Oldest): live ones, or sandboxes' with q.Sandbox, or one account's.
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
	// OpImportDeposits matches a bank statement's rows with pending
	// tickets, confirming each it finds.
	OpImportDeposits Op = "deposit.import"
)

// depositOps are the deposit operations' permissions.
var depositOps = map[Op]rule{
	OpOpenDeposit:    {perm: topupd.PermAccounts},
	OpConfirmDeposit: {perm: topupd.PermCredit},
	OpRejectDeposit:  {perm: topupd.PermCredit},
	OpImportDeposits: {perm: topupd.PermCredit},
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

// ImportDeposits reads a bank statement by its named columns
// (ParseBankStatement: a bad file changes nothing) and confirms, as the
// calling operator, the pending live ticket each row finds, with the
// row's bank reference: the first of two confirmations above the
// threshold (an import never gives the second). Each match is its own
// confirmation (deposit.confirm), so an import racing an operator, or
// imported twice, credits each ticket once; the import is logged as
// deposit.import with its counts.
func (s *Service) ImportDeposits(ctx context.Context, a Actor, cols topupd.BankColumns, file io.Reader) (topupd.DepositImport, error) {
	var out topupd.DepositImport
	if err := Allowed(a, OpImportDeposits); err != nil {
		return out, err
	}
	rows, err := topupd.ParseBankStatement(file, cols)
	if err != nil {
		return out, err
	}
	for i := range rows {
		m, why, err := s.importRow(ctx, a, &rows[i])
		if err != nil {
			return out, err
		}
		if why != "" {
			out.Unmatched = append(out.Unmatched, topupd.ImportMiss{Row: rows[i], Why: why})
		} else {
			out.Matched = append(out.Matched, m)
		}
	}
	err = s.d.Store.RecordDepositImport(ctx, change(a, OpImportDeposits, ""), len(out.Matched), len(out.Unmatched))
	return out, err
}

// importRow confirms the ticket one row finds, or says why it finds none.
func (s *Service) importRow(ctx context.Context, a Actor, row *topupd.BankRow) (topupd.ImportMatch, string, error) {
	var d *topupd.Deposit
	for _, memo := range topupd.MemosIn(row.Reference) {
		found, err := s.d.Store.DepositByMemo(ctx, memo)
		if topupd.CodeOf(err) == topupd.ENotFound {
			continue
		} else if err != nil {
			return topupd.ImportMatch{}, "", err
		}
		if row.Finds(&found) {
			d = &found
			break
		}
	}
	if d == nil {
		return topupd.ImportMatch{}, topupd.WhyNoTicket, nil
	}
	if used, err := s.d.Store.BankRefUsed(ctx, row.BankRef); err != nil {
		return topupd.ImportMatch{}, "", err
	} else if used {
		return topupd.ImportMatch{}, topupd.WhyBankRefUsed, nil
	}
	if d.Status != topupd.DepositPending {
		return topupd.ImportMatch{}, topupd.WhyTicketPending, nil
	}
	got, err := s.d.Store.ConfirmDeposit(ctx, change(a, OpConfirmDeposit, d.ID), d.ID,
		topupd.DepositConfirmation{Operator: a.Operator, At: s.d.Now(), BankRef: row.BankRef, Imported: true})
	switch {
	case err == nil:
	case topupd.CodeOf(err) == topupd.EBankRefUsed:
		return topupd.ImportMatch{}, topupd.WhyBankRefUsed, nil // another confirmation took it meanwhile
	case topupd.CodeOf(err) == topupd.EDepositFinal || topupd.CodeOf(err) == topupd.ESecondApprovalRequired ||
		topupd.CodeOf(err) == topupd.EConfirmationMismatch:
		return topupd.ImportMatch{}, topupd.WhyTicketPending, nil
	default:
		return topupd.ImportMatch{}, "", err
	}
	return topupd.ImportMatch{Line: row.Line, DepositID: d.ID, Status: got.Status}, "", nil
}
