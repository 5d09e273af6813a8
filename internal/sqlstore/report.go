package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// dayMS is one UTC day in milliseconds: an order's roll-up day is its
// created_at divided by it.
const dayMS = 86_400_000

// salesDelta is what one event adds to an order's row of sales_daily.
type salesDelta struct {
	orders, completed, cancelled, processing            int64
	charged, revenue, refunds, cost, revenueWithoutCost topupd.Money
}

// completedDelta counts a completed order's revenue and, as its cost is
// known or not, its cost or its revenue without cost.
func completedDelta(d salesDelta, o *topupd.Order) salesDelta {
	d.completed, d.revenue = 1, o.Amount
	if o.Cost != nil {
		d.cost = *o.Cost
	} else {
		d.revenueWithoutCost = o.Amount
	}
	return d
}

// costFixedDelta moves a completed order from its cost as it was (nil:
// none known) to a cost a reconciliation's fix recorded.
func costFixedDelta(o *topupd.Order, cost topupd.Money) salesDelta {
	if o.Cost == nil {
		return salesDelta{cost: cost, revenueWithoutCost: -o.Amount}
	}
	return salesDelta{cost: cost - *o.Cost}
}

// placedDelta counts a new order: charged, and processing or (a key order)
// already completed.
func placedDelta(o *topupd.Order) salesDelta {
	d := salesDelta{orders: 1, charged: o.Amount}
	if o.Status == topupd.StatusCompleted {
		return completedDelta(d, o)
	}
	d.processing = 1
	return d
}

// settledDelta moves a processing order to its final state.
func settledDelta(o *topupd.Order) salesDelta {
	d := salesDelta{processing: -1}
	switch o.Status {
	case topupd.StatusCompleted:
		return completedDelta(d, o)
	case topupd.StatusCancelled:
		d.cancelled = 1
		if o.Refunded {
			d.refunds = o.Amount
		}
	}
	return d
}

// rollUp adds d to the order's row of sales_daily, in the transaction that
// changes the order: a new order's row is made if it is the day's first of
// its kind, a settled one's must exist. The row's key holds the account,
// so on PostgreSQL it is locked after the account row, as every writer of
// it does: placement under the account lock, settlement after its refund.
func (s *Store) rollUp(ctx context.Context, tx *sql.Tx, o *topupd.Order, d salesDelta) error {
	if o.Sandbox {
		return nil // the roll-up holds live orders alone (the schema refuses a sandbox's row)
	}
	args := []any{ms(o.CreatedAt) / dayMS, o.AccountID, o.PID, o.Slug, o.Provider, d.orders, d.completed, d.cancelled, d.processing,
		int64(d.charged), int64(d.revenue), int64(d.refunds), int64(d.cost), int64(d.revenueWithoutCost)}
	add := `orders = sales_daily.orders + $6, completed = sales_daily.completed + $7, cancelled = sales_daily.cancelled + $8,
		processing = sales_daily.processing + $9, charged = sales_daily.charged + $10, revenue = sales_daily.revenue + $11,
		refunds = sales_daily.refunds + $12, cost = sales_daily.cost + $13, revenue_without_cost = sales_daily.revenue_without_cost + $14`
	var err error
	if d.orders > 0 {
		// The row a CHECK sees first is the one to insert, so only a
		// placement, whose counts are all positive, may insert it.
		_, err = tx.ExecContext(ctx, `INSERT INTO sales_daily (day, account_id, pid, slug, provider, orders, completed, cancelled, processing,
			charged, revenue, refunds, cost, revenue_without_cost)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
			ON CONFLICT (day, account_id, pid, slug, provider) DO UPDATE SET `+add, args...)
	} else {
		var res sql.Result
		res, err = tx.ExecContext(ctx, `UPDATE sales_daily SET `+add+`
			WHERE day = $1 AND account_id = $2 AND pid = $3 AND slug = $4 AND provider = $5`, args...)
		if n, _ := rowsAffected(res, err); err == nil && n != 1 {
			err = fmt.Errorf("no roll-up row for day %d", args[0])
		}
	}
	if err != nil {
		return fmt.Errorf("sales roll-up of order %s: %w", o.ID, err)
	}
	return nil
}

// rowsAffected reads a result's count when its statement succeeded.
func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// salesKey is the column a grouping sums by, in sales_daily and in orders.
var salesKey = map[topupd.SalesGroup][2]string{
	topupd.ByDay:      {"day", "created_at / 86400000"},
	topupd.ByLine:     {"slug", "slug"},
	topupd.ByPack:     {"pid", "pid"},
	topupd.ByAccount:  {"account_id", "account_id"},
	topupd.ByProvider: {"provider", "provider"},
}

// SalesReport sums the whole UTC days of [from, to) from sales_daily and
// the orders of the partial days at its edges from orders, by created_at:
// a month's report reads its roll-ups and at most two days of orders.
func (s *Store) SalesReport(ctx context.Context, from, to time.Time, by topupd.SalesGroup) ([]topupd.SalesRow, error) {
	key, ok := salesKey[by]
	if !ok {
		return nil, topupd.Errorf(topupd.EInvalidRequest, "groupBy: unknown grouping %q", by)
	}
	fail := func(err error) ([]topupd.SalesRow, error) {
		return nil, fmt.Errorf("store.SalesReport: %w", err)
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	lo, hi := ms(from), ms(to)
	firstDay, endDay := (lo+dayMS-1)/dayMS, hi/dayMS // the whole days are [firstDay, endDay)
	rows := map[string]*topupd.SalesRow{}
	sum := func(query string, args ...any) error {
		return eachRow(ctx, tx, func(rs scanner) error {
			var k any
			var r topupd.SalesRow
			if err := rs.Scan(&k, &r.Orders, &r.Completed, &r.Cancelled, &r.Processing, &r.Charged, &r.Revenue, &r.Refunds, &r.Cost,
				&r.RevenueWithoutCost); err != nil {
				return err
			}
			r.Key = salesKeyText(by, k)
			if have := rows[r.Key]; have != nil {
				have.Add(r)
			} else {
				rows[r.Key] = &r
			}
			return nil
		}, query, args...)
	}
	fromOrders := func(lo, hi int64) error {
		return sum(`SELECT `+key[1]+`, COUNT(*),
			COALESCE(SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN status = 'processing' THEN 1 ELSE 0 END), 0),
			CAST(COALESCE(SUM(amount), 0) AS BIGINT),
			CAST(COALESCE(SUM(CASE WHEN status = 'completed' THEN amount ELSE 0 END), 0) AS BIGINT),
			CAST(COALESCE(SUM(CASE WHEN refunded = 1 OR EXISTS (SELECT 1 FROM reconciliation_mismatches m
				WHERE m.order_id = orders.id AND m.action = 'refund-reseller') THEN amount ELSE 0 END), 0) AS BIGINT),
			CAST(COALESCE(SUM(CASE WHEN status = 'completed' THEN cost ELSE 0 END), 0) AS BIGINT),
			CAST(COALESCE(SUM(CASE WHEN status = 'completed' AND cost IS NULL THEN amount ELSE 0 END), 0) AS BIGINT)
			FROM orders WHERE created_at >= $1 AND created_at < $2 AND sandbox = 0 GROUP BY `+key[1], lo, hi)
	}
	if firstDay >= endDay {
		err = fromOrders(lo, hi)
	} else {
		err = fromOrders(lo, firstDay*dayMS)
		if err == nil {
			err = fromOrders(endDay*dayMS, hi)
		}
		if err == nil {
			err = sum(`SELECT `+key[0]+`, CAST(SUM(orders) AS BIGINT), CAST(SUM(completed) AS BIGINT), CAST(SUM(cancelled) AS BIGINT),
				CAST(SUM(processing) AS BIGINT), CAST(SUM(charged) AS BIGINT), CAST(SUM(revenue) AS BIGINT), CAST(SUM(refunds) AS BIGINT),
				CAST(SUM(cost) AS BIGINT), CAST(SUM(revenue_without_cost) AS BIGINT)
				FROM sales_daily WHERE day >= $1 AND day < $2 GROUP BY `+key[0], firstDay, endDay)
		}
	}
	if err != nil {
		return fail(err)
	}
	out := make([]topupd.SalesRow, 0, len(rows))
	for _, r := range rows {
		if r.Orders > 0 {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b topupd.SalesRow) int { return cmp.Compare(a.Key, b.Key) })
	return out, nil
}

// salesKeyText names a report row: a day as its date, anything else as stored.
func salesKeyText(by topupd.SalesGroup, k any) string {
	switch v := k.(type) {
	case int64:
		if by == topupd.ByDay {
			return topupd.Day(fromMS(v * dayMS))
		}
		return strconv.FormatInt(v, 10)
	case []byte:
		return string(v)
	case string:
		return v
	}
	return fmt.Sprint(k)
}
