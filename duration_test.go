package topupd

import (
	"testing"
	"time"
)

// TestDurationBucketsAscend: the edges are whole milliseconds (the stores
// count in milliseconds) and strictly ascending.
func TestDurationBucketsAscend(t *testing.T) {
	for i, edge := range DurationBuckets {
		if edge%time.Millisecond != 0 || edge <= 0 {
			t.Errorf("edge %d = %v: want a positive whole number of milliseconds", i, edge)
		}
		if i > 0 && edge <= DurationBuckets[i-1] {
			t.Errorf("edge %d = %v is not above edge %d = %v", i, edge, i-1, DurationBuckets[i-1])
		}
	}
}

// TestDurationBucket: an edge belongs to the bucket it ends, the next
// millisecond to the next bucket; anything above the last edge overflows.
func TestDurationBucket(t *testing.T) {
	last := len(DurationBuckets)
	tests := []struct {
		d    time.Duration
		want int
	}{
		{-time.Hour, 0}, // clocks of two nodes apart
		{0, 0},
		{100 * time.Millisecond, 0},
		{101 * time.Millisecond, 1},
		{250 * time.Millisecond, 1},
		{time.Second, 3},
		{time.Second + time.Millisecond, 4},
		{10 * time.Minute, 11},
		{48 * time.Hour, last - 1},
		{48*time.Hour + time.Millisecond, last},
		{1000 * time.Hour, last},
	}
	for _, tc := range tests {
		if got := DurationBucket(tc.d); got != tc.want {
			t.Errorf("DurationBucket(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	for i, edge := range DurationBuckets {
		if got := BucketEdge(DurationBucket(edge)); got != edge {
			t.Errorf("the bucket of edge %d ends at %v", i, got)
		}
	}
	if BucketEdge(last) != DurationOverflow {
		t.Errorf("the overflow bucket ends at %v", BucketEdge(last))
	}
}

// TestPercentile: the upper edge of the bucket where the count reaches the
// rank, ceil(p × total).
func TestPercentile(t *testing.T) {
	n := len(DurationBuckets) + 1
	counts := func(kv ...int) []int64 {
		c := make([]int64, n)
		for i := 0; i < len(kv); i += 2 {
			c[kv[i]] = int64(kv[i+1])
		}
		return c
	}
	tests := []struct {
		name     string
		counts   []int64
		p50, p95 time.Duration
	}{
		{"nothing", counts(), 0, 0},
		{"one order", counts(3, 1), time.Second, time.Second},
		{"all in one bucket", counts(5, 40), 5 * time.Second, 5 * time.Second},
		// 100 orders: rank 50 is the last of bucket 0, rank 95 in bucket 2.
		{"spread", counts(0, 50, 1, 40, 2, 9, 10, 1), 100 * time.Millisecond, 500 * time.Millisecond},
		// 20 orders: rank 10 is the first of bucket 4; rank 19 the last of bucket 8.
		{"rank on a boundary", counts(3, 9, 4, 1, 8, 9, 9, 1), 2 * time.Second, time.Minute},
		{"overflow", counts(0, 10, n-1, 10), 100 * time.Millisecond, DurationOverflow},
		{"a short slice", []int64{1, 1}, 100 * time.Millisecond, 250 * time.Millisecond},
	}
	for _, tc := range tests {
		if got := Percentile(tc.counts, 50); got != tc.p50 {
			t.Errorf("%s: p50 = %v, want %v", tc.name, got, tc.p50)
		}
		if got := Percentile(tc.counts, 95); got != tc.p95 {
			t.Errorf("%s: p95 = %v, want %v", tc.name, got, tc.p95)
		}
	}
	row := NewDurationRow("ff", counts(0, 50, 1, 40, 2, 9, 10, 1))
	if want := (DurationRow{Slug: "ff", Orders: 100, P50: 100 * time.Millisecond, P95: 500 * time.Millisecond}); row != want {
		t.Errorf("NewDurationRow = %+v, want %+v", row, want)
	}
}

// TestWholeDays: a span is read as the whole UTC days it touches; an
// instant at midnight starts a day, an end at midnight does not touch it.
func TestWholeDays(t *testing.T) {
	d := func(day, hour int) time.Time { return time.Date(2030, 1, day, hour, 0, 0, 0, time.UTC) }
	tests := []struct{ from, to, first, end time.Time }{
		{d(2, 0), d(3, 0), d(2, 0), d(3, 0)},
		{d(2, 5), d(2, 6), d(2, 0), d(3, 0)},
		{d(2, 23), d(3, 1), d(2, 0), d(4, 0)},
		{d(2, 0), d(9, 0), d(2, 0), d(9, 0)},
		{d(2, 5), d(2, 5), d(2, 0), d(2, 0)},
		{d(3, 5), d(2, 5), d(3, 0), d(3, 0)},
		{d(2, 5).In(time.FixedZone("UTC+7", 7*3600)), d(3, 0), d(2, 0), d(3, 0)},
		{time.Date(1969, 12, 31, 5, 0, 0, 0, time.UTC), time.Date(1970, 1, 1, 1, 0, 0, 0, time.UTC),
			time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		first, end := WholeDays(tc.from, tc.to)
		if !first.Equal(tc.first) || !end.Equal(tc.end) {
			t.Errorf("WholeDays(%v, %v) = [%v, %v), want [%v, %v)", tc.from, tc.to, first, end, tc.first, tc.end)
		}
	}
}
