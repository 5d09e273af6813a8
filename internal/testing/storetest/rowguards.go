package storetest

import (
	"database/sql"
	"testing"
)

// RowGuards shows, on a plain connection to a store's database, that the
// schema keeps the rows that never change as they are, in every column:
// a final order (completed and kept are final orders' seqs), a code (code
// is one's id), and the one settings row and bot_state row, which are
// never deleted and whose flags are 0 or 1. processing is a processing
// order's seq, whose changes must still pass. The statements are in SQL
// that both databases read alike, so that both stores' tests run the same
// list.
func RowGuards(t *testing.T, db *sql.DB, completed, kept, processing, code int64) {
	t.Helper()
	const (
		final = "a final order cannot change"
		fixed = "a code never changes"
		gone  = "never deleted"
	)
	guards := []Guard{
		Refused("orders: rewriting a final order's error", `UPDATE orders SET error = 'y', supplier_ref = 'z' WHERE seq = $1`, []any{kept}, final),
		Refused("orders: an alert on a final order", `UPDATE orders SET alert = 'late' WHERE seq = $1`, []any{completed}, final),
		Refused("orders: a cost on a cancelled order", `UPDATE orders SET cost = 7 WHERE seq = $1`, []any{kept}, final),
		Refused("orders: leasing a final order", `UPDATE orders SET lease_owner = 'node', lease_until = 1 WHERE seq = $1`, []any{completed}, final),
		Refused("orders: another code count for a final order", `UPDATE orders SET code_count = code_count + 1 WHERE seq = $1`, []any{completed}, final),
		Refused("codes: moving a code to another pack", `UPDATE codes SET pid = 'other' WHERE id = $1`, []any{code}, fixed),
		Refused("codes: re-sealing a code", `UPDATE codes SET sealed = fingerprint WHERE id = $1`, []any{code}, fixed),
		Refused("codes: another fingerprint", `UPDATE codes SET fingerprint = sealed WHERE id = $1`, []any{code}, fixed),
		Refused("codes: backdating a code", `UPDATE codes SET added_at = added_at - 1 WHERE id = $1`, []any{code}, fixed),
		Refused("settings: deleting the row", `DELETE FROM settings`, nil, gone),
		Refused("bot_state: deleting the row", `DELETE FROM bot_state`, nil, gone),
		Refused("settings: maintenance neither on nor off", `UPDATE settings SET maintenance = 2`, nil, "maintenance"),
		Refused("settings: orders neither disabled nor enabled", `UPDATE settings SET orders_disabled = -1`, nil, "orders_disabled"),
	}
	controls := []Control{
		Accepted("an alert on a processing order", `UPDATE orders SET alert = 'late' WHERE seq = $1`, []any{processing}),
		Accepted("a code's global fingerprint written again, unchanged", `UPDATE codes SET code_fp = code_fp WHERE id = $1`, []any{code}),
		Accepted("maintenance on", `UPDATE settings SET maintenance = 1, orders_disabled = 1`, nil),
	}
	dump := []string{
		`SELECT seq, status, error, supplier_ref, alert, cost, lease_owner, lease_until, code_count FROM orders ORDER BY seq`,
		`SELECT id, pid, fingerprint, sealed, added_at, order_seq FROM codes ORDER BY id`,
		`SELECT id, maintenance, orders_disabled, eligibility_min_topup, sim_delay_ms, sim_call_ms FROM settings`,
		`SELECT id, lease_holder, lease_until, next_offset, notified_action FROM bot_state`,
	}
	RunGuards(t, db, dump, guards, controls)
}
