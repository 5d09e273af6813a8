package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// bucketCase is the SQL expression of the bucket of topupd.DurationBuckets
// that a duration in milliseconds, expr, falls in. The migration that made
// durations_daily filled it with this expression (a test holds the
// migrations to it) and the audit recounts with it; placements and
// settlements put their orders in topupd.DurationBucket, the same bucket.
func bucketCase(expr string) string {
	var b strings.Builder
	b.WriteString("CASE")
	for i, edge := range topupd.DurationBuckets {
		fmt.Fprintf(&b, "\n\tWHEN %s <= %d THEN %d", expr, edge.Milliseconds(), i)
	}
	fmt.Fprintf(&b, "\n\tELSE %d END", len(topupd.DurationBuckets))
	return b.String()
}

// durationsDailyFrom computes rows of durations_daily from the final
// orders that also meet and (an SQL condition on orders, or ""): per UTC
// day of creation, line and bucket of their time to final.
func durationsDailyFrom(and string) string {
	return `SELECT day, slug, bucket, COUNT(*) AS orders FROM (
	SELECT created_at / 86400000 AS day, slug, ` + bucketCase("finished_at - created_at") + ` AS bucket
	FROM orders WHERE status IN ('completed', 'cancelled')` + and + `) f
GROUP BY day, slug, bucket`
}

// DurationsDailyFromOrders computes the rows of durations_daily from the
// orders, as the migration that created the table (00009) filled it,
// before the sandbox existed: the final orders per UTC day of creation,
// line and bucket of their time to final.
var DurationsDailyFromOrders = durationsDailyFrom("")

// DurationsDailyFromLiveOrders is DurationsDailyFromOrders over live
// orders alone: sandbox orders are never in reports (integration.md,
// "Sandbox"). Migration 00026 refilled durations_daily with it, and the
// audit recounts with it.
var DurationsDailyFromLiveOrders = durationsDailyFrom(" AND sandbox = 0")

// rollUpDuration counts a final order in its line's bucket of
// durations_daily, in the transaction that makes it final; a sandbox
// order is not counted. It is the last row that transaction locks (on
// PostgreSQL, after the account, stock and sales rows), so that it is held
// the least time and always taken last.
func (s *Store) rollUpDuration(ctx context.Context, tx *sql.Tx, o *topupd.Order) error {
	if o.Sandbox {
		return nil // sandbox orders are never in reports
	}
	took := time.Duration(ms(o.FinishedAt)-ms(o.CreatedAt)) * time.Millisecond
	_, err := tx.ExecContext(ctx, `INSERT INTO durations_daily (day, slug, bucket, orders) VALUES ($1, $2, $3, 1)
		ON CONFLICT (day, slug, bucket) DO UPDATE SET orders = durations_daily.orders + 1`,
		ms(o.CreatedAt)/dayMS, o.Slug, topupd.DurationBucket(took))
	if err != nil {
		return fmt.Errorf("duration roll-up of order %s: %w", o.ID, err)
	}
	return nil
}

// Durations sums the roll-ups of the whole UTC days that [from, to)
// touches, per line and bucket, into each line's percentiles.
func (s *Store) Durations(ctx context.Context, from, to time.Time) ([]topupd.DurationRow, error) {
	first, end := topupd.WholeDays(from, to)
	firstDay, endDay := ms(first)/dayMS, ms(end)/dayMS // the days are [firstDay, endDay)
	counts := map[string][]int64{}
	err := eachRow(ctx, s.read, func(r scanner) error {
		var slug string
		var bucket int
		var n int64
		if err := r.Scan(&slug, &bucket, &n); err != nil {
			return err
		}
		c := counts[slug]
		if c == nil {
			c = make([]int64, len(topupd.DurationBuckets)+1)
			counts[slug] = c
		}
		c[min(max(bucket, 0), len(c)-1)] += n
		return nil
	}, `SELECT slug, bucket, CAST(SUM(orders) AS BIGINT) FROM durations_daily
		WHERE day >= $1 AND day < $2 GROUP BY slug, bucket`, firstDay, endDay)
	if err != nil {
		return nil, fmt.Errorf("store.Durations: %w", err)
	}
	out := make([]topupd.DurationRow, 0, len(counts))
	for slug, c := range counts {
		out = append(out, topupd.NewDurationRow(slug, c))
	}
	slices.SortFunc(out, func(a, b topupd.DurationRow) int { return cmp.Compare(a.Slug, b.Slug) })
	return out, nil
}
