package topupd

import (
	"time"
	"unicode/utf8"
)

// Confirming and rejecting deposit tickets (back-office.md, section 3):
// the state machine, apart from the store that keeps it. A confirmation
// credits at most the second-approval threshold by itself; above it, the
// first moves the ticket to awaiting_second and a different operator's
// credits it.

// MaxBankRef bounds a bank reference; MaxDepositReason a rejection's reason.
const (
	MaxBankRef       = 200
	MaxDepositReason = 500
)

// DepositConfirmation is one operator's confirmation of a ticket: the
// bank's reference of the transfer, and what arrived when it differs from
// the ticket's amount.
type DepositConfirmation struct {
	Operator string
	At       time.Time
	BankRef  string
	// Received, when set, is what the bank received: what is credited.
	Received *Money
	// Imported marks a bank statement's match: it confirms a pending
	// ticket only, never giving a second approval.
	Imported bool
}

// Check refuses a bank reference that is empty or longer than MaxBankRef
// characters, or a received amount that is not above 0 in whole cents
// (INVALID_BODY).
func (c *DepositConfirmation) Check() error {
	if n := utf8.RuneCountInString(c.BankRef); n == 0 || n > MaxBankRef || !utf8.ValidString(c.BankRef) {
		return Errorf(EInvalidBody, "bankRef: 1 to %d characters", MaxBankRef)
	}
	if r := c.Received; r != nil && (*r <= 0 || *r > MaxDeposit || *r%cent != 0) {
		return Errorf(EInvalidBody, "receivedUsd: above 0, at most 100000, at most 2 decimals")
	}
	return nil
}

// DepositStep is what a confirmation makes of a ticket: its new status,
// and, once confirmed, the credit.
type DepositStep struct {
	Status string
	// Credit is what is credited, set when Status is DepositConfirmed.
	Credit Money
}

// ConfirmDeposit decides a confirmation c of a ticket whose status is
// status, its amount amount and its first confirmation first (nil
// before one), with the threshold above: DEPOSIT_FINAL for a final
// ticket; SECOND_APPROVAL_REQUIRED for the first operator again;
// CONFIRMATION_MISMATCH for a second that names another bank reference
// or another received amount.
func ConfirmDeposit(status string, amount Money, first *DepositConfirmation, c DepositConfirmation, above Money) (DepositStep, error) {
	switch status {
	case DepositPending:
		credit := amount
		if c.Received != nil {
			credit = *c.Received
		}
		if credit > above {
			return DepositStep{Status: DepositAwaitingSecond}, nil
		}
		return DepositStep{Status: DepositConfirmed, Credit: credit}, nil
	case DepositAwaitingSecond:
		if first == nil {
			return DepositStep{}, Errorf(EInternal, "deposit awaiting a second approval without a first")
		}
		if c.Imported {
			return DepositStep{}, Errorf(EDepositFinal, "the ticket awaits a second approval, which an import never gives")
		}
		if c.Operator == first.Operator {
			return DepositStep{}, Errorf(ESecondApprovalRequired, "%s confirmed it first: another operator confirms it", first.Operator)
		}
		if c.BankRef != first.BankRef {
			return DepositStep{}, Errorf(EConfirmationMismatch, "bankRef %q, but the first confirmation said %q", c.BankRef, first.BankRef)
		}
		credit := amount
		if first.Received != nil {
			credit = *first.Received
		}
		if c.Received != nil && *c.Received != credit {
			return DepositStep{}, Errorf(EConfirmationMismatch, "receivedUsd %s, but the first confirmation said %s", *c.Received, credit)
		}
		return DepositStep{Status: DepositConfirmed, Credit: credit}, nil
	}
	return DepositStep{}, Errorf(EDepositFinal, "the ticket is %s", status)
}

// RejectDeposit decides a rejection of a ticket whose status is status:
// a pending ticket, or one awaiting its second approval, is rejected;
// anything else is DEPOSIT_FINAL. The reason must be 1 to 500 characters
// (INVALID_BODY).
func RejectDeposit(status, reason string) error {
	if n := utf8.RuneCountInString(reason); n == 0 || n > MaxDepositReason || !utf8.ValidString(reason) {
		return Errorf(EInvalidBody, "reason: 1 to %d characters", MaxDepositReason)
	}
	if status != DepositPending && status != DepositAwaitingSecond {
		return Errorf(EDepositFinal, "the ticket is %s", status)
	}
	return nil
}
