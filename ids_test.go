package topupd_test

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestNewOrderID: ids have the documented shape, never repeat, and sort in
// the order of the times they were made at, within one millisecond too.
func TestNewOrderID(t *testing.T) {
	shape := regexp.MustCompile(`^ord_[0-9a-v]{20}$`)
	start := time.Date(2026, 11, 21, 3, 4, 5, 0, time.UTC)
	seen := map[string]bool{}
	var ids []string
	for i := range 5000 {
		at := start.Add(time.Duration(i/10) * time.Millisecond) // ten per millisecond
		id := topupd.NewOrderID(at)
		if !shape.MatchString(id) {
			t.Fatalf("id %q does not match %s", id, shape)
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		ids = append(ids, id)
	}
	for i := 10; i < len(ids); i++ {
		if ids[i-10] >= ids[i] {
			t.Fatalf("id made at a later millisecond sorts first: %s (#%d) >= %s (#%d)", ids[i-10], i-10, ids[i], i)
		}
	}
	if !slices.IsSorted([]string{topupd.NewOrderID(start), topupd.NewOrderID(start.Add(time.Hour)), topupd.NewOrderID(start.AddDate(30, 0, 0))}) {
		t.Error("ids an hour and thirty years apart do not sort by time")
	}
}

// TestCleanText: valid UTF-8 without a NUL byte is clean; a NUL anywhere,
// a stray byte, a truncated sequence or an encoded surrogate is not.
func TestCleanText(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "ord_abc": true, "Ünïcödé ✓ 🎮": true, "tab\tand\nnewline": true,
		"\x00": false, "a\x00b": false, "end\x00": false, "\xff": false, "x\xc3\x28": false,
		"\xed\xa0\x80": false, "\xe2\x82": false,
	} {
		if got := topupd.CleanText(s); got != want {
			t.Errorf("CleanText(%q) = %v, want %v", s, got, want)
		}
	}
}
