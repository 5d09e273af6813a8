package topupd

import "time"

// EntryKind says why money moved.
type EntryKind string

// The kinds of ledger entry.
const (
	EntryCredit EntryKind = "credit"
	EntryCharge EntryKind = "charge"
	EntryRefund EntryKind = "refund"
	// EntryDeposit is a deposit ticket's credit (back-office.md, section
	// 3): its reference is the deposit's id.
	EntryDeposit EntryKind = "deposit"
)

// LedgerEntry is one movement of an account's money. The balance is the sum of
// the account's entries; BalanceAfter is that sum up to and including this one.
type LedgerEntry struct {
	ID           int64
	AccountID    string
	Kind         EntryKind
	Amount       Money
	BalanceAfter Money
	OrderID      string
	Reference    string
	CreatedAt    time.Time
}

// StatementEntry is one ledger entry of a statement, with the trxid and pid
// of its order when it is an order's charge or refund.
type StatementEntry struct {
	LedgerEntry
	TrxID, PID string
}

// Statement is an account's ledger entries made in [From, To), oldest
// first, between the balance at From (Opening) and the balance at To
// (Closing): the balance at a time is the sum of the entries made before it.
type Statement struct {
	AccountID        string
	From, To         time.Time
	Opening, Closing Money
	Entries          []StatementEntry
}

// MaxStatementEntries bounds the entries of one statement: a longer one is
// asked for in shorter periods.
const MaxStatementEntries = 100_000
