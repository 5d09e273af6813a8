package topupd

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"time"
)

// MaxReconDays is the longest reconciliation period, in days.
const MaxReconDays = 31

// MaxCSVRows is the most rows a supplier's file may have.
const MaxCSVRows = 100_000

// ReconPeriod is a reconciliation's period: both days included, UTC.
type ReconPeriod struct {
	// From and To are the first and the last day.
	From, To time.Time
}

// Start and End are the period's edges: from 00:00 UTC on From to 00:00
// UTC the day after To.
func (p ReconPeriod) Start() time.Time { return p.From }

// End is 00:00 UTC the day after the period's last day.
func (p ReconPeriod) End() time.Time { return p.To.AddDate(0, 0, 1) }

// Holds reports whether t falls in the period.
func (p ReconPeriod) Holds(t time.Time) bool { return !t.Before(p.Start()) && t.Before(p.End()) }

// ParseReconPeriod reads a period from two dates (YYYY-MM-DD): from not
// after to, at most MaxReconDays days, to not after today (UTC). A bad
// one is code (INVALID_BODY in a body, INVALID_REQUEST in a query).
func ParseReconPeriod(from, to string, now time.Time, code ErrorCode) (ReconPeriod, error) {
	f, err1 := time.Parse(time.DateOnly, from)
	t, err2 := time.Parse(time.DateOnly, to)
	today := now.UTC().Truncate(24 * time.Hour)
	switch {
	case err1 != nil || err2 != nil:
		return ReconPeriod{}, Errorf(code, "from and to: dates, YYYY-MM-DD")
	case t.Before(f):
		return ReconPeriod{}, Errorf(code, "from must not be after to")
	case t.Sub(f) >= MaxReconDays*24*time.Hour:
		return ReconPeriod{}, Errorf(code, "a period of at most %d days", MaxReconDays)
	case t.After(today):
		return ReconPeriod{}, Errorf(code, "to must not be after today (UTC)")
	}
	return ReconPeriod{From: f, To: t}, nil
}

// CSVColumns name the columns of a supplier's file: Reference and Amount
// required, Status and Time optional (""), matched to the header in any
// case.
type CSVColumns struct {
	Reference, Amount, Status, Time string
}

// csvStatuses are the statuses a supplier's file may say, any case.
var csvStatuses = map[string]OrderStatus{
	"completed": StatusCompleted, "success": StatusCompleted, "succeeded": StatusCompleted,
	"cancelled": StatusCancelled, "canceled": StatusCancelled, "failed": StatusCancelled, "refunded": StatusCancelled,
	"processing": StatusProcessing, "pending": StatusProcessing,
}

// csvTimeLayouts are the times a supplier's file may give, UTC unless said.
var csvTimeLayouts = []string{time.RFC3339Nano, time.DateTime}

// ParseSupplierCSV reads a supplier's file: a header row naming the
// columns, then one row a line of their books. Rows whose time falls
// outside the period are left out. A column the header lacks is
// INVALID_REQUEST naming it; a row that cannot be read (a bad amount,
// status or time, a missing reference), or more than MaxCSVRows rows, is
// INVALID_BODY naming its line; nothing is read then.
func ParseSupplierCSV(r io.Reader, cols CSVColumns, p ReconPeriod) ([]TheirRow, error) {
	var out []TheirRow
	err := readCSVTable(r, []csvColumn{{"reference", cols.Reference, true}, {"amount", cols.Amount, true}, {"status", cols.Status, false},
		{"time", cols.Time, false}}, func(line int, f []string, ix []int) error {
		row, keep, err := csvRow(f, ix, p)
		if err == nil && keep {
			out = append(out, row)
		}
		return err
	})
	return out, err
}

// csvColumn is one column a file's query names: the query parameter,
// the header's name for it, and whether it is required.
type csvColumn struct {
	param, name string
	required    bool
}

// readCSVTable reads a file whose header row names its columns (cols,
// matched in any case): row is called with each row's line, its fields
// for the columns (trimmed; "" for an optional column not named) and
// the columns' indexes (-1 for one not named). A column the header lacks
// is INVALID_REQUEST naming it; an unreadable row (row's error, a short
// row, a broken quote) or more than MaxCSVRows rows INVALID_BODY naming
// its line.
func readCSVTable(r io.Reader, cols []csvColumn, row func(line int, f []string, ix []int) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return Errorf(EInvalidBody, "the file is empty: a header row is required")
	} else if err != nil {
		return Errorf(EInvalidBody, "line 1: %v", csvErr(err))
	}
	at := map[string]int{}
	for i, h := range header {
		at[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	ix := make([]int, len(cols))
	for k, c := range cols {
		ix[k] = -1
		if c.name == "" {
			if c.required {
				return Errorf(EInvalidRequest, "%s: name the column of the file that holds it", c.param)
			}
			continue
		}
		i, ok := at[strings.ToLower(strings.TrimSpace(c.name))]
		if !ok {
			return Errorf(EInvalidRequest, "%s: the file's header has no column %q", c.param, c.name)
		}
		ix[k] = i
	}
	f := make([]string, len(cols))
	for n := 0; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			line := n + 2
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			return Errorf(EInvalidBody, "line %d: %v", line, csvErr(err))
		}
		line, _ := cr.FieldPos(0)
		if n == MaxCSVRows {
			return Errorf(EInvalidBody, "line %d: at most %d rows", line, MaxCSVRows)
		}
		for k, i := range ix {
			switch {
			case i < 0:
				f[k] = ""
			case i >= len(rec):
				return Errorf(EInvalidBody, "line %d: too few fields", line)
			default:
				f[k] = strings.TrimSpace(rec[i])
			}
		}
		if err := row(line, f, ix); err != nil {
			return Errorf(EInvalidBody, "line %d: %v", line, err)
		}
	}
}

// csvRow reads one row of a supplier's file (fields reference, amount,
// status, time); keep is false for a row outside the period.
func csvRow(f []string, ix []int, p ReconPeriod) (row TheirRow, keep bool, err error) {
	if f[0] == "" {
		return row, false, errors.New("reference: empty")
	}
	row.Reference = f[0]
	if row.Amount, err = ParseMoney(f[1]); err != nil {
		return row, false, errors.New("amount: a number of USD with up to 4 decimals, a refund negative")
	}
	row.Status = StatusCompleted
	if ix[2] >= 0 && f[2] != "" {
		st, ok := csvStatuses[strings.ToLower(f[2])]
		if !ok {
			return row, false, errors.New("status: completed, cancelled or processing (or success, failed, refunded, pending)")
		}
		row.Status = st
	}
	if ix[3] >= 0 {
		if row.At, err = csvTime(f[3]); err != nil {
			return row, false, err
		}
		return row, p.Holds(row.At), nil
	}
	return row, true, nil
}

// csvTime reads a row's time: RFC 3339, or YYYY-MM-DD HH:MM:SS in UTC.
func csvTime(s string) (time.Time, error) {
	for _, layout := range csvTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errors.New("time: RFC 3339, or YYYY-MM-DD HH:MM:SS in UTC")
}

// csvErr is a CSV reader's error without its own line prefix.
func csvErr(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
