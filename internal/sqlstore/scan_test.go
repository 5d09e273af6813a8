package sqlstore

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestJSONColumn: a JSON text column reads into its destination whether
// the driver hands over a string or bytes; NULL and empty text leave the
// destination as it was; bad JSON and a non-text value are errors, and
// withExtra reads the columns after the ones a scan function names.
func TestJSONColumn(t *testing.T) {
	for _, src := range []any{`["a","b"]`, []byte(`["a","b"]`)} {
		var got []string
		if err := jsonColumn(&got).Scan(src); err != nil || !cmp.Equal(got, []string{"a", "b"}) {
			t.Errorf("Scan(%#v) = %q, %v", src, got, err)
		}
	}
	for _, src := range []any{nil, "", []byte{}} {
		got := []string{"kept"}
		if err := jsonColumn(&got).Scan(src); err != nil || !cmp.Equal(got, []string{"kept"}) {
			t.Errorf("Scan(%#v) = %q, %v; want the destination kept", src, got, err)
		}
	}
	for _, src := range []any{`["a"`, int64(7)} {
		var got []string
		if err := jsonColumn(&got).Scan(src); err == nil {
			t.Errorf("Scan(%#v) = %q, nil; want an error", src, got)
		}
	}
}

// fakeRow is a row of fixed values.
type fakeRow []any

// Scan copies the row's strings into dest, which must be *string.
func (r fakeRow) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return errColumns
	}
	for i, d := range dest {
		*d.(*string) = r[i].(string)
	}
	return nil
}

// errColumns is fakeRow's answer to a Scan with the wrong number of destinations.
var errColumns = errors.New("wrong number of columns")

// TestWithExtra: withExtra passes the scan function's destinations first,
// then the extra ones.
func TestWithExtra(t *testing.T) {
	var a, b, c string
	if err := withExtra(fakeRow{"1", "2", "3"}, &c).Scan(&a, &b); err != nil || a+b+c != "123" {
		t.Errorf("Scan = %q %q %q, %v", a, b, c, err)
	}
}

// TestMsUp: a time is kept to the millisecond rounded up, never before
// itself; a whole millisecond stays as it is.
func TestMsUp(t *testing.T) {
	base := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		t    time.Time
		want int64
	}{
		{base, base.UnixMilli()},
		{base.Add(time.Microsecond), base.UnixMilli() + 1},
		{base.Add(999 * time.Microsecond), base.UnixMilli() + 1},
		{base.Add(time.Millisecond), base.UnixMilli() + 1},
	} {
		if got := msUp(c.t); got != c.want || fromMS(got).Before(c.t) {
			t.Errorf("msUp(%v) = %d, want %d", c.t, got, c.want)
		}
	}
}
