package topupd

import "time"

// EntryKind says why money moved.
type EntryKind string

// The kinds of ledger entry.
const (
	EntryCredit EntryKind = "credit"
	EntryCharge EntryKind = "charge"
	EntryRefund EntryKind = "refund"
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
