package topupd

import (
	"context"
	"crypto/rand"
	"math/big"
	"time"
	"unicode/utf8"
)

// Deposits: money in by bank transfer (back-office.md, section 3). A
// reseller opens a ticket for an amount; the exact amount to transfer is
// made unique among pending tickets by its cents, and the transfer's
// description carries the ticket's memo, so that a bank statement's line
// finds its ticket.

// The statuses of a deposit.
const (
	DepositPending        = "pending"
	DepositAwaitingSecond = "awaiting_second"
	DepositConfirmed      = "confirmed"
	DepositRejected       = "rejected"
	DepositExpired        = "expired"
)

// Deposit limits from the spec.
const (
	// MinDeposit and MaxDeposit bound the amount a ticket asks for.
	MinDeposit = 1 * MoneyScale
	MaxDeposit = 100_000 * MoneyScale
	// MaxPendingDeposits is how many pending tickets an account may hold.
	MaxPendingDeposits = 3
	// DefaultDepositTicketHours is how long a ticket stays pending by
	// default; MaxDepositTicketHours the most it may.
	DefaultDepositTicketHours = 24
	MaxDepositTicketHours     = 720
	// DefaultSecondApprovalAbove is the credit above which a second
	// operator's confirmation is needed, by default.
	DefaultSecondApprovalAbove = 1000 * MoneyScale
	// MaxBankField bounds each field of the deposit bank.
	MaxBankField = 200
)

// DepositBank is where resellers transfer to: the depositBank setting.
type DepositBank struct {
	BankName      string `json:"bankName"`
	AccountNumber string `json:"accountNumber"`
	AccountHolder string `json:"accountHolder"`
}

// Check refuses a field that is empty or longer than MaxBankField
// characters (INVALID_BODY).
func (b *DepositBank) Check() error {
	for _, f := range []struct{ name, v string }{{"bankName", b.BankName}, {"accountNumber", b.AccountNumber}, {"accountHolder", b.AccountHolder}} {
		if n := utf8.RuneCountInString(f.v); n == 0 || n > MaxBankField || !utf8.ValidString(f.v) {
			return Errorf(EInvalidBody, "depositBank.%s: 1 to %d characters", f.name, MaxBankField)
		}
	}
	return nil
}

// Deposit is a reseller's ticket for a bank transfer.
type Deposit struct {
	Seq       int64
	ID        string
	AccountID string
	// Sandbox marks a sandbox's ticket: its account is the sandbox.
	Sandbox bool
	// Requested is the amount asked for; Amount the exact amount to
	// transfer (Requested plus 1 to 99 cents).
	Requested, Amount Money
	Memo              string
	Bank              DepositBank
	Status            string
	CreatedAt         time.Time
	ExpiresAt         time.Time
	// BankRef and Received are the confirmation's: the bank's reference
	// of the transfer, and what arrived when it differs.
	BankRef  string
	Received *Money
	// First is the first of two confirmations, once given.
	First *DepositConfirmation
	// Credited, ConfirmedBy, ConfirmedAt and EntryID are set once it is
	// confirmed: what was credited, by whom, when, and the ledger entry.
	Credited    *Money
	ConfirmedBy string
	ConfirmedAt *time.Time
	EntryID     int64
	// Reason and RejectedBy are a rejection's.
	Reason, RejectedBy string
}

// CheckDepositAmount refuses an amount outside MinDeposit to MaxDeposit,
// or with more than 2 decimals (INVALID_BODY).
func CheckDepositAmount(m Money) error {
	if m < MinDeposit || m > MaxDeposit {
		return Errorf(EInvalidBody, "amountUsd: 1 to 100000")
	}
	if m%cent != 0 {
		return Errorf(EInvalidBody, "amountUsd: at most 2 decimals")
	}
	return nil
}

// DepositAmount is the exact amount of a new ticket for requested: plus
// 1 to 99 cents, chosen at random among those no pending ticket has
// (taken); DEPOSIT_AMOUNT_TAKEN when all 99 are.
func DepositAmount(requested Money, taken map[Money]bool) (Money, error) {
	var free []Money
	for c := Money(1); c <= 99; c++ {
		if a := requested + c*cent; !taken[a] {
			free = append(free, a)
		}
	}
	if len(free) == 0 {
		return 0, Errorf(EDepositAmountTaken, "every amount from %s + 0.01 to + 0.99 is another pending ticket's: try another amount", requested)
	}
	return free[randomBelow(len(free))], nil
}

// DepositMemoAlphabet are the characters of a memo after its prefix: no
// 0, 1, I or O, which read alike.
const DepositMemoAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// NewDepositMemo is a fresh memo, "TPD-" and 6 of DepositMemoAlphabet.
func NewDepositMemo() string {
	b := []byte("TPD-")
	for range 6 {
		b = append(b, DepositMemoAlphabet[randomBelow(len(DepositMemoAlphabet))])
	}
	return string(b)
}

// randomBelow is a uniform random number in [0, n).
func randomBelow(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return int(v.Int64())
}

// DepositView is a deposit as the reseller API, its events and its
// webhooks show it.
type DepositView struct {
	DepositID    string      `json:"depositId"`
	RequestedUSD Money       `json:"requestedUsd"`
	AmountUSD    Money       `json:"amountUsd"`
	Memo         string      `json:"memo"`
	Bank         DepositBank `json:"bank"`
	Status       string      `json:"status"`
	CreatedAt    time.Time   `json:"createdAt"`
	ExpiresAt    time.Time   `json:"expiresAt"`
	CreditedUSD  *Money      `json:"creditedUsd,omitempty"`
	ConfirmedAt  *time.Time  `json:"confirmedAt,omitempty"`
	Reason       string      `json:"reason,omitempty"`
	Sandbox      bool        `json:"sandbox,omitempty"`
}

// View is the deposit as a reseller sees it.
func (d *Deposit) View() DepositView {
	v := DepositView{DepositID: d.ID, RequestedUSD: d.Requested, AmountUSD: d.Amount, Memo: d.Memo, Bank: d.Bank, Status: d.Status,
		CreatedAt: d.CreatedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC(), CreditedUSD: d.Credited, Reason: d.Reason, Sandbox: d.Sandbox}
	if d.ConfirmedAt != nil {
		at := d.ConfirmedAt.UTC()
		v.ConfirmedAt = &at
	}
	return v
}

// DepositsQuery selects a page of deposits, newest first (oldest first
// with Oldest).
type DepositsQuery struct {
	// AccountID, when set, keeps that account's (a sandbox's id: its
	// sandbox's); Status, when set, that status's.
	AccountID, Status string
	// Sandbox keeps sandboxes' tickets instead of live ones (the admin
	// list); ignored with AccountID.
	Sandbox bool
	// Before, when set, starts after the deposit of this seq; Offset skips
	// that many (a reseller's paged mode).
	Before int64
	Offset int
	Limit  int
	// Oldest lists the oldest first: the operators' queue of open
	// tickets.
	Oldest bool
}

// DepositStore keeps deposit tickets.
type DepositStore interface {
	// OpenDeposit opens a ticket for requested (checked) for an account
	// (a sandbox's id for a sandbox key's), at now, in one transaction
	// holding the account's lock: DEPOSITS_DISABLED without a deposit
	// bank, DEPOSIT_LIMIT, DEPOSIT_AMOUNT_TAKEN. Pending tickets past
	// their time expire first.
	// ch, when set, is the action log's entry of the opening (a chat's).
	OpenDeposit(ctx context.Context, ch *Change, accountID string, requested Money, now time.Time) (Deposit, error)
	// Deposit returns a ticket by its id; with accountID set, only that
	// account's (NOT_FOUND otherwise).
	Deposit(ctx context.Context, accountID, id string) (Deposit, error)
	// Deposits returns a page of tickets, newest first (oldest first
	// with q.Oldest), and, with AccountID set, how many that account has.
	Deposits(ctx context.Context, q DepositsQuery) ([]Deposit, int, error)
	// OpenDeposits counts the live tickets pending and awaiting a second
	// approval, by status.
	OpenDeposits(ctx context.Context) (map[string]int, error)
	// ConfirmDeposit records an operator's confirmation of a ticket, in
	// one transaction holding its row lock, logged as the change ch: the
	// first of two above the threshold, or the one that credits it (one
	// deposit ledger entry, with its deposit.confirmed and
	// balance.credited events). NOT_FOUND, DEPOSIT_FINAL,
	// SECOND_APPROVAL_REQUIRED, CONFIRMATION_MISMATCH, BANK_REF_USED.
	ConfirmDeposit(ctx context.Context, ch *Change, id string, c DepositConfirmation) (Deposit, error)
	// RejectDeposit rejects a pending ticket, or one awaiting its second
	// approval, with its deposit.rejected event: NOT_FOUND, DEPOSIT_FINAL.
	RejectDeposit(ctx context.Context, ch *Change, id, reason, operator string, at time.Time) (Deposit, error)
	// DepositByMemo returns the live ticket of a memo (NOT_FOUND for
	// none, or a sandbox's).
	DepositByMemo(ctx context.Context, memo string) (Deposit, error)
	// BankRefUsed tells whether a bank reference confirmed a ticket.
	BankRefUsed(ctx context.Context, bankRef string) (bool, error)
	// RecordDepositImport writes an import's action log entry, with its
	// counts.
	RecordDepositImport(ctx context.Context, ch *Change, matched, unmatched int) error
	// ExpireDeposits expires every pending ticket whose time has passed
	// at now, each with its deposit.expired event; it returns how many.
	ExpireDeposits(ctx context.Context, now time.Time) (int, error)
}
