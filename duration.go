package topupd

import (
	"math"
	"time"
)

// DurationBuckets are the upper edges, ascending, of the buckets that count
// how long orders took from placed to final. Bucket i holds the durations
// above edge i-1 (any duration, for bucket 0) up to and including edge i;
// one more bucket, DurationOverflow's, holds those above the last edge. The
// stores keep their daily counts per line in these buckets (the SQL of
// their roll-up is written from this list), so the list may only ever grow
// at its end, with a migration that recounts the overflow bucket (and
// api/admin.yaml names them for the API's users).
var DurationBuckets = []time.Duration{
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour,
}

// DurationOverflow is the upper edge of the last bucket, which has none:
// a percentile that falls in it is longer than every edge of
// DurationBuckets, by an amount no roll-up knows.
const DurationOverflow = time.Duration(math.MaxInt64)

// DurationBucket returns the index of the bucket d falls in:
// len(DurationBuckets) for the overflow bucket.
func DurationBucket(d time.Duration) int {
	for i, edge := range DurationBuckets {
		if d <= edge {
			return i
		}
	}
	return len(DurationBuckets)
}

// BucketEdge returns the upper edge of bucket i: DurationOverflow for the
// overflow bucket.
func BucketEdge(i int) time.Duration {
	if i < len(DurationBuckets) {
		return DurationBuckets[i]
	}
	return DurationOverflow
}

// Percentile returns an upper bound of the percent-th percentile (1 to
// 100) of the durations counted in counts, one count per bucket index: the
// upper edge of the bucket where the cumulative count first reaches
// percent of the total (rank ⌈total × percent / 100⌉). The true percentile
// is at most that, and above the edge before it. With nothing counted it
// is 0.
func Percentile(counts []int64, percent int) time.Duration {
	var total int64
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := (total*int64(percent) + 99) / 100
	rank = min(max(rank, 1), total)
	var cum int64
	for i, n := range counts {
		if cum += n; cum >= rank {
			return BucketEdge(i)
		}
	}
	return DurationOverflow // unreachable: the counts sum to total
}

// WholeDays returns the whole UTC days that [from, to) touches, as
// [first, end): a roll-up by day reads all of each. An empty span touches
// none (first equals end).
func WholeDays(from, to time.Time) (first, end time.Time) {
	const day = 24 * time.Hour
	first, end = from.UTC().Truncate(day), to.UTC().Truncate(day)
	if end.Before(to) {
		end = end.Add(day)
	}
	if !from.Before(to) {
		end = first
	}
	return first, end
}

// DurationRow is how long the orders of one line took from placed to final
// over a period: how many reached a final state, and upper bounds of the
// median and the 95th percentile of their durations (see Percentile; a
// percentile of DurationOverflow is longer than the last bucket edge).
type DurationRow struct {
	Slug     string
	Orders   int64
	P50, P95 time.Duration
}

// NewDurationRow sums a line's bucket counts into its row.
func NewDurationRow(slug string, counts []int64) DurationRow {
	r := DurationRow{Slug: slug, P50: Percentile(counts, 50), P95: Percentile(counts, 95)}
	for _, n := range counts {
		r.Orders += n
	}
	return r
}
