package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// ms stores a time as Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS reads Unix milliseconds as a UTC time.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// nullMS reads a nullable time column.
func nullMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMS(v.Int64)
}

// msOrNull stores a zero time as NULL.
func msOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ms(t)
}

// boolInt stores a bool as 0 or 1.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// jsonText stores a value as JSON text.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain slices of strings and structs are stored
	}
	return string(b)
}

// isNoRows reports a query that found nothing.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}
