package topupd

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"time"
)

// Importing a bank statement (back-office.md, section 3): each row that
// finds its pending ticket (its amount exact, the ticket's memo in its
// reference, not dated before the ticket's day) confirms it as the
// importing operator, with the row's bank reference.

// BankColumns name the columns of a bank statement, each required,
// matched to the header in any case.
type BankColumns struct {
	Amount, Reference, Date, BankRef string
}

// BankRow is one row of a bank statement, with the line it was read from.
type BankRow struct {
	Line      int
	Amount    Money
	Reference string
	Date      time.Time
	BankRef   string
	// DateText is the date as the file wrote it.
	DateText string
}

// The reasons a row of a bank statement confirms no ticket.
const (
	WhyNoTicket      = "no ticket"
	WhyBankRefUsed   = "bank ref used"
	WhyTicketPending = "ticket not pending"
)

// ParseBankStatement reads a bank statement: a header row naming the
// columns, then one row a transfer. A column the header lacks is
// INVALID_REQUEST naming it; a row that cannot be read (a bad amount or
// date, no bank reference), or more than MaxCSVRows rows, is
// INVALID_BODY naming its line; nothing is read then.
func ParseBankStatement(r io.Reader, cols BankColumns) ([]BankRow, error) {
	var out []BankRow
	err := readCSVTable(r, []csvColumn{{"amount", cols.Amount, true}, {"reference", cols.Reference, true}, {"date", cols.Date, true},
		{"bankRef", cols.BankRef, true}}, func(line int, f []string, _ []int) error {
		row := BankRow{Line: line, Reference: f[1], BankRef: f[3], DateText: f[2]}
		var err error
		if row.Amount, err = ParseMoney(f[0]); err != nil {
			return errors.New("amount: a number of USD")
		}
		if row.Date, err = bankDate(f[2]); err != nil {
			return err
		}
		if row.BankRef == "" || len([]rune(row.BankRef)) > MaxBankRef {
			return errors.New("bankRef: 1 to 200 characters")
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

// bankDate reads a statement's date: YYYY-MM-DD, or RFC 3339.
func bankDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, errors.New("date: YYYY-MM-DD or RFC 3339")
}

// memoIn finds deposit memos in a transfer's reference, any case.
var memoIn = regexp.MustCompile(`TPD-[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{6}`)

// MemosIn returns the deposit memos a transfer's reference holds, any
// case, in the order they appear.
func MemosIn(reference string) []string {
	return memoIn.FindAllString(strings.ToUpper(reference), -1)
}

// Finds tells whether a row finds the ticket d (its memo among the
// row's): its amount exactly the ticket's, its date not before the
// ticket's day (UTC).
func (r *BankRow) Finds(d *Deposit) bool {
	day := d.CreatedAt.UTC().Truncate(24 * time.Hour)
	return r.Amount == d.Amount && !r.Date.Before(day)
}

// ImportMatch is a row that confirmed its ticket: the first of two
// confirmations above the threshold, or the one that credited it.
type ImportMatch struct {
	Line      int
	DepositID string
	Status    string
}

// ImportMiss is a row that confirmed nothing, and why (WhyNoTicket,
// WhyBankRefUsed, WhyTicketPending).
type ImportMiss struct {
	Row BankRow
	Why string
}

// DepositImport is what an import of a bank statement did.
type DepositImport struct {
	Matched   []ImportMatch
	Unmatched []ImportMiss
}
