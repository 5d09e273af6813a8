package benchdata

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// UpstreamOrders is the shape of the orders SeedUpstream writes.
type UpstreamOrders struct {
	// N orders at Upstream, spread evenly over [From, To).
	N        int
	From, To time.Time
	Upstream string
	// Account owns them all; it must exist.
	Account string
	// Cost is a completed order's cost.
	Cost int64
}

// UpstreamStatus is the status of the i-th order SeedUpstream writes:
// every 25th cancelled (refunded), every 100th (offset by 1) processing,
// the rest completed.
func UpstreamStatus(i int) string {
	switch {
	case i%25 == 0:
		return "cancelled"
	case i%100 == 1:
		return "processing"
	}
	return "completed"
}

// UpstreamOrderID is the id of the i-th order SeedUpstream writes, and
// UpstreamRef the upstream's own id of it.
func UpstreamOrderID(i int) string { return fmt.Sprintf("ord_%07d", i) }

// UpstreamRef is the upstream's own id of the i-th order.
func UpstreamRef(i int) string { return fmt.Sprintf("u-%07d", i) }

// seedBatch is how many orders one INSERT of SeedUpstream writes.
const seedBatch = 500

// SeedUpstream writes orders sent to one upstream straight into the
// orders table, in one transaction, 500 a statement (it writes no ledger
// entry and no roll-up: for reading them back, as a reconciliation does).
func SeedUpstream(ctx context.Context, db *sql.DB, o UpstreamOrders) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	step := o.To.Sub(o.From).Milliseconds() / int64(o.N)
	for start := 0; start < o.N; start += seedBatch {
		var sb strings.Builder
		sb.WriteString(`INSERT INTO orders (id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name,
			provider, quantity, amount, status, refunded, created_at, finished_at, deadline_at, cost, upstream, upstream_pid, supplier_ref, supplier) VALUES `)
		var args []any
		for i := start; i < min(start+seedBatch, o.N); i++ {
			if i > start {
				sb.WriteString(", ")
			}
			status, refunded := UpstreamStatus(i), 0
			created := o.From.UnixMilli() + int64(i)*step
			var finished, cost any
			switch status {
			case "cancelled":
				refunded, finished = 1, created+60_000
			case "completed":
				finished, cost = created+60_000, o.Cost
			}
			n := len(args)
			fmt.Fprintf(&sb, "($%d, $%d, $%d, $%d, $%d, 'f', 'b-pack', 'pubg', 'pubg', 'topup', 'pack', 'upstream', 1, 15000, $%d, $%d, $%d, $%d, $%d, $%d, $%d, 'uc60', $%d, 'accepted')",
				n+1, n+2, n+3, n+4, n+4, n+5, n+6, n+7, n+8, n+9, n+10, n+11, n+12)
			args = append(args, UpstreamOrderID(i), o.Account, i+1, fmt.Sprintf("t-%d", i), status, refunded, created, finished,
				created+3_600_000, cost, o.Upstream, UpstreamRef(i))
		}
		if _, err := tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return fmt.Errorf("orders from %d: %w", start, err)
		}
	}
	return tx.Commit()
}
