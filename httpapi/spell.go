package httpapi

import "time"

// The answers spell times as RFC 3339 with nanoseconds, in UTC (rfc3339).
// Where an answer is, or holds, one of the Go client's types (so that the
// client reads the very type the server writes), its times are time.Time,
// which encodes the same way once in UTC: utcPtr and utcOrNil give them so.

// rfc3339 spells a time as the API does.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// utcPtr is a time that may be absent (nil: null) in UTC.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// utcOrNil is a time in UTC, or nil (null) for the zero time.
func utcOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return utcPtr(&t)
}

// nullable is s, or nil (null) when it is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// viewEach shows every element of a list with view.
func viewEach[T, V any](list []T, view func(*T) V) []V {
	out := make([]V, len(list))
	for i := range list {
		out[i] = view(&list[i])
	}
	return out
}
