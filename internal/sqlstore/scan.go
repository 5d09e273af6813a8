package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ms stores a time as Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// msUp is t in Unix milliseconds, rounded up: a time an order must not
// fall due before (a supplier's "ask again at"), kept to the millisecond.
func msUp(t time.Time) int64 {
	v := t.UnixMilli()
	if time.UnixMilli(v).Before(t) {
		v++
	}
	return v
}

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

// jsonColumn is a scan destination that reads a column of JSON text (as
// jsonText stores it) into v; NULL or empty text leaves v as it is.
func jsonColumn(v any) sql.Scanner { return jsonDest{v} }

// jsonDest is the sql.Scanner of jsonColumn.
type jsonDest struct{ v any }

// Scan decodes src, the column's text, into the destination.
func (d jsonDest) Scan(src any) error {
	switch s := src.(type) {
	case nil:
		return nil
	case string:
		return d.Scan([]byte(s))
	case []byte:
		if len(s) == 0 {
			return nil
		}
		return json.Unmarshal(s, d.v)
	}
	return fmt.Errorf("a JSON column holds %T, not text", src)
}

// isNoRows reports a query that found nothing.
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// withExtra is row read by a scan function that also reads the columns
// after the ones it knows into extra: a query that selects, say, an
// order's columns and its lease owner scans with scanOrder(withExtra(row,
// &owner)).
func withExtra(row scanner, extra ...any) scanner { return extraScanner{row, extra} }

// extraScanner is a row whose Scan reads extra after the destinations asked for.
type extraScanner struct {
	row   scanner
	extra []any
}

// Scan reads the row into dest, then into the extra destinations.
func (e extraScanner) Scan(dest ...any) error { return e.row.Scan(append(dest, e.extra...)...) }

// scanFunc is a scanner made of a function.
type scanFunc func(dest ...any) error

// Scan calls f.
func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// eachRow runs a query through q and hands each row it returns to f,
// stopping at f's first error.
func eachRow(ctx context.Context, q querier, f func(scanner) error, query string, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// queryAll runs a query through q and returns its rows, each read by scan:
// an empty slice, not nil, when it finds none.
func queryAll[T any](ctx context.Context, q querier, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	out := []T{}
	err := eachRow(ctx, q, func(r scanner) error {
		v, err := scan(r)
		if err == nil {
			out = append(out, v)
		}
		return err
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readAll is a store method's whole read: queryAll on the read pool, its
// error wrapped with the method's name (op).
func readAll[T any](ctx context.Context, s *Store, op string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	out, err := queryAll(ctx, s.read, scan, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// queryMap runs a query through q whose rows are each a key and its value,
// and returns them as a map.
func queryMap[K comparable, V any](ctx context.Context, q querier, query string, args ...any) (map[K]V, error) {
	out := map[K]V{}
	err := eachRow(ctx, q, func(r scanner) error {
		var k K
		var v V
		err := r.Scan(&k, &v)
		out[k] = v
		return err
	}, query, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanValue reads a row of one column.
func scanValue[T any](row scanner) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}
