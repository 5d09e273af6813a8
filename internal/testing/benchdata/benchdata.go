// Package benchdata writes many orders straight into a topupd database, as
// read benchmarks need them: a million orders through the API would take
// longer than the benchmark.
package benchdata

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd/internal/sqlstore"
)

// Orders is the shape of the orders Seed writes.
type Orders struct {
	// N orders, spread evenly over [From, To).
	N        int
	From, To time.Time
	// Accounts own the orders in turn, 20 orders at a time; they must exist.
	Accounts []string
}

// PID is the pack of the i-th order: one of 20 packs, of 4 lines.
func PID(i int) string { return fmt.Sprintf("pack-%02d", i%20) }

// Seed writes the orders in one transaction of db: completed, cancelled
// (half of them refunded) and processing, final within 0 to 10 minutes,
// over 20 packs of 4 lines and 3 providers; and rolls them up into
// sales_daily and durations_daily as the migrations that made them do.
// Order i is "ord_<i>" with trxid "t-<i>". No ledger entry is written.
func Seed(ctx context.Context, db *sql.DB, o Orders) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind,
		pack_name, provider, quantity, amount, status, refunded, created_at, finished_at, deadline_at, cost)
		VALUES ($1, $2, $3, $4, $4, 'f', $5, $6, 'g', 'topup', 'pack', $7, 1, $8, $9, $10, $11,
		CASE WHEN $9 = 'processing' THEN NULL ELSE $11 + $12 END, $11, CASE WHEN $9 = 'completed' THEN $13 END)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	step := o.To.Sub(o.From).Milliseconds() / int64(o.N)
	for i := range o.N {
		status, refunded := "completed", 0
		switch i % 20 {
		case 0:
			status, refunded = "cancelled", 1
		case 1:
			status = "cancelled"
		case 2:
			status = "processing"
		}
		pack := i % 20
		_, err := stmt.ExecContext(ctx, fmt.Sprintf("ord_%d", i), o.Accounts[(i/20)%len(o.Accounts)], i+1, fmt.Sprintf("t-%d", i),
			PID(i), fmt.Sprintf("line-%d", pack%4), []string{"sim", "manual", "upstream"}[pack%3],
			10_000+100*pack, status, refunded, o.From.UnixMilli()+int64(i)*step, (int64(i)*7_919)%600_000, 8_000+80*pack)
		if err != nil {
			return fmt.Errorf("order %d: %w", i, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO sales_daily (`+sqlstore.SalesDailyColumns+`) `+sqlstore.SalesDailyFromOrders); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO durations_daily (day, slug, bucket, orders) `+sqlstore.DurationsDailyFromOrders); err != nil {
		return err
	}
	return tx.Commit()
}
