package postgres_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
)

// fixture is a schema with one order in every state, for tests that then
// look at the tables with plain SQL.
type fixture struct {
	url                                      string
	a, b                                     string // account ids
	completed, refunded, kept, processing, o int64  // order seqs; o is account b's processing order
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	ctx := t.Context()
	f := fixture{url: newDB(t), a: "acc_a", b: "acc_b"}
	s := openStore(t, f.url, storetest.NewVault(t))
	catalog(t, s)
	account(t, s, f.a, topupd.USD(100))
	account(t, s, f.b, topupd.USD(100))
	_, err := s.AddStock(ctx, pidKey, []string{"SECRET-KEY-0001", "SECRET-KEY-0002", "SECRET-KEY-0003"}, t0)
	must(t, err)
	placed := func(account, trxid, pid string) int64 {
		t.Helper()
		o, _, err := place(s, ctx, account, topupd.OrderRequest{PID: pid, TrxID: trxid})
		must(t, err)
		return o.Seq
	}
	f.completed = placed(f.a, "T-DONE", pidKey)
	f.refunded = placed(f.a, "T-REFUNDED", pidTopup)
	_, err = s.Settle(ctx, nil, f.refunded, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0})
	must(t, err)
	f.kept = placed(f.a, "T-KEPT", pidTopup)
	_, err = s.Settle(ctx, nil, f.kept, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Now: t0})
	must(t, err)
	f.processing = placed(f.a, "T-PROC", pidTopup)
	f.o = placed(f.b, "T-B", pidTopup)
	return f
}

// dumpQueries read every row that money, stock and orders depend on.
var dumpQueries = []string{
	`SELECT id, account_id, seq, kind, amount, balance_after, order_seq, reference, created_at FROM ledger ORDER BY id`,
	`SELECT seq, id, account_id, status, refunded, amount, quantity, finished_at, error, supplier_ref FROM orders ORDER BY seq`,
	`SELECT id, pid, encode(fingerprint, 'hex'), order_seq FROM codes ORDER BY id`,
	`SELECT pid, available FROM stock_levels ORDER BY pid`,
	`SELECT count(*) FROM settings`,
}

// TestDatabaseGuards shows that the schema itself, not the Go code, refuses
// every change that would corrupt money, stock or orders, whoever sends it.
func TestDatabaseGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := rawDB(t, f.url)
	var lastSeq int64
	var bal, prevBal topupd.Money
	must(t, db.QueryRow(`SELECT seq, balance_after FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`, f.a).Scan(&lastSeq, &bal))
	must(t, db.QueryRow(`SELECT balance_after FROM ledger WHERE account_id = $1 AND seq = $2`, f.a, lastSeq-1).Scan(&prevBal))
	var delivered, available int64
	must(t, db.QueryRow(`SELECT id FROM codes WHERE order_seq = $1`, f.completed).Scan(&delivered))
	must(t, db.QueryRow(`SELECT id FROM codes WHERE order_seq IS NULL ORDER BY id LIMIT 1`).Scan(&available))
	next := lastSeq + 1
	entry := `INSERT INTO ledger (account_id, seq, kind, amount, balance_after, order_seq, reference, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)`
	const (
		chain  = "does not continue the account chain"
		final  = "a final order cannot change"
		check  = "violates check constraint"
		gone   = "never deleted"
		refund = "a refund must return the charge"
	)
	guards := []storetest.Guard{
		storetest.Refused("ledger: a gap in the chain", entry, []any{f.a, next + 1, "credit", 1, bal + 1, nil, "gap"}, chain),
		storetest.Refused("ledger: a wrong running balance", entry, []any{f.a, next, "credit", 1, bal + 2, nil, "wrong"}, chain),
		storetest.Refused("ledger: a first entry that is not the sum", entry, []any{"acc_c_nobody", 1, "credit", 5, 6, nil, "first"}, chain),
		storetest.Refused("ledger: a fork of the chain", entry, []any{f.a, lastSeq, "credit", 1, prevBal + 1, nil, "fork"}, `"ledger_account_id_seq_key"`),
		storetest.Refused("ledger: below zero", entry, []any{f.a, next, "credit", -bal - 1, -1, nil, "overdraw"}, `"ledger_balance_after_check"`),
		storetest.Refused("ledger: a second refund", entry, []any{f.a, next, "refund", price, bal + price, f.refunded, nil}, `"ledger_one_refund"`),
		storetest.Refused("ledger: a refund of a cancellation kept charged", entry, []any{f.a, next, "refund", price, bal + price, f.kept, nil}, refund),
		storetest.Refused("ledger: a refund of a cancellation kept charged, for more", entry, []any{f.a, next, "refund", price + 1, bal + price + 1, f.kept, nil}, refund),
		storetest.Refused("ledger: a refund of a completed order", entry, []any{f.a, next, "refund", price, bal + price, f.completed, nil}, refund),
		storetest.Refused("ledger: a refund of a processing order", entry, []any{f.a, next, "refund", price, bal + price, f.processing, nil}, refund),
		storetest.Refused("ledger: a second charge", entry, []any{f.a, next, "charge", -price, bal - price, f.processing, nil}, `"ledger_one_charge"`),
		storetest.Refused("ledger: a charge of another amount", entry, []any{f.a, next, "charge", -price + 1, bal - price + 1, f.processing, nil}, "a charge must be the order's amount"),
		storetest.Refused("ledger: a refund onto another account", entry, []any{f.a, next, "refund", price, bal + price, f.o, nil}, "must belong to the order's account"),
		storetest.Refused("ledger: a credit without reference", entry, []any{f.a, next, "credit", 1, bal + 1, nil, nil}, check),
		storetest.Refused("ledger: a repeated credit reference", entry, []any{f.a, next, "credit", 1, bal + 1, nil, "opening"}, `"ledger_credit_reference"`),
		storetest.Refused("ledger: a positive charge", entry, []any{f.a, next, "charge", price, bal + price, f.processing, nil}, "a charge must be the order's amount"),
		storetest.Refused("ledger: changing an entry", `UPDATE ledger SET amount = amount + 1, balance_after = balance_after + 1 WHERE account_id = $1`, []any{f.a}, "never changed"),
		storetest.Refused("ledger: deleting an entry", `DELETE FROM ledger WHERE account_id = $1 AND seq = $2`, []any{f.a, lastSeq}, gone),
		storetest.Refused("ledger: truncating", `TRUNCATE ledger`, nil, gone),
		storetest.Refused("codes: re-delivering a delivered code", `UPDATE codes SET order_seq = $1 WHERE id = $2`, []any{f.processing, delivered}, "delivered to one order, ever"),
		storetest.Refused("codes: returning a delivered code to stock", `UPDATE codes SET order_seq = NULL WHERE id = $1`, []any{delivered}, "delivered to one order, ever"),
		storetest.Refused("codes: moving a code to another pack", `UPDATE codes SET pid = $1 WHERE id = $2`, []any{pidTopup, available}, "a code never changes"),
		storetest.Refused("codes: deleting a code", `DELETE FROM codes WHERE id = $1`, []any{available}, gone),
		storetest.Refused("codes: truncating", `TRUNCATE codes`, nil, gone),
		storetest.Refused("codes: the same code twice in a pack", `INSERT INTO codes (pid, fingerprint, code_fp, sealed, added_at) SELECT pid, fingerprint, code_fp, sealed, 0 FROM codes WHERE id = $1`, []any{delivered}, `"codes_pid_fingerprint_key"`),
		storetest.Refused("codes: the same code in another pack", `INSERT INTO codes (pid, fingerprint, code_fp, sealed, added_at) SELECT 'other', '\x00'::bytea, code_fp, sealed, 0 FROM codes WHERE id = $1`, []any{delivered}, `"codes_code_fp"`),
		storetest.Refused("codes: a code without its global fingerprint", `INSERT INTO codes (pid, fingerprint, sealed, added_at) VALUES ('other', '\x00'::bytea, '\x00'::bytea, 0)`, nil, "global fingerprint"),
		storetest.Refused("codes: changing a code's global fingerprint", `UPDATE codes SET code_fp = '\x00'::bytea WHERE id = $1`, []any{available}, "never changes"),
		storetest.Refused("stock: below zero", `UPDATE stock_levels SET available = -1`, nil, `"stock_levels_available_check"`),
		storetest.Refused("orders: reopening a completed order", `UPDATE orders SET status = 'processing', finished_at = NULL WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: cancelling a completed order", `UPDATE orders SET status = 'cancelled' WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: completing a cancelled order", `UPDATE orders SET status = 'completed' WHERE seq = $1`, []any{f.refunded}, final),
		storetest.Refused("orders: flagging a kept cancellation refunded", `UPDATE orders SET refunded = 1 WHERE seq = $1`, []any{f.kept}, final),
		storetest.Refused("orders: un-refunding", `UPDATE orders SET refunded = 0 WHERE seq = $1`, []any{f.refunded}, final),
		storetest.Refused("orders: changing a final order's amount", `UPDATE orders SET amount = 1 WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: moving a final order to another account", `UPDATE orders SET account_id = $1 WHERE seq = $2`, []any{f.b, f.completed}, final),
		storetest.Refused("orders: rewriting a final order's error", `UPDATE orders SET error = 'y', supplier_ref = 'z' WHERE seq = $1`, []any{f.kept}, final),
		storetest.Refused("orders: deleting an order", `DELETE FROM orders WHERE seq = $1`, []any{f.processing}, gone),
		storetest.Refused("orders: truncating", `TRUNCATE orders CASCADE`, nil, gone),
		storetest.Refused("orders: refunded while processing", `UPDATE orders SET refunded = 1 WHERE seq = $1`, []any{f.processing}, check),
		storetest.Refused("orders: final without finish time", `UPDATE orders SET status = 'completed', cost = 5 WHERE seq = $1`, []any{f.processing}, check),
		storetest.Refused("orders: repricing a processing order", `UPDATE orders SET amount = amount + 1 WHERE seq = $1`, []any{f.processing}, "never changes"),
		storetest.Refused("orders: another quantity for a processing order", `UPDATE orders SET quantity = quantity + 1 WHERE seq = $1`, []any{f.processing}, "never changes"),
		storetest.Refused("orders: a cost on a cancelled order", `UPDATE orders SET status = 'cancelled', error = 'x', finished_at = 1, cost = 5 WHERE seq = $1`, []any{f.processing}, "orders_cost_when_completed"),
		storetest.Refused("orders: a cost on a processing order", `UPDATE orders SET cost = 5 WHERE seq = $1`, []any{f.processing}, "orders_cost_when_completed"),
		storetest.Refused("orders: changing a completed order's cost", `UPDATE orders SET cost = COALESCE(cost, 0) + 1 WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: a reused trxid", `UPDATE orders SET trxid = 'T-DONE' WHERE seq = $1`, []any{f.processing}, `"orders_trxid"`),
		storetest.Refused("orders: a reused idempotency key", `UPDATE orders SET idem_key = 'T-DONE' WHERE seq = $1`, []any{f.processing}, `"orders_idem_key"`),
		storetest.Refused("settings: deleting the row", `DELETE FROM settings`, nil, "never deleted"),
	}
	// The guards refuse only what is wrong: the same statements done right pass.
	controls := []storetest.Control{
		storetest.Accepted("a credit continuing the chain", entry, []any{f.a, next, "credit", 1, bal + 1, nil, "ok"}),
		storetest.Accepted("delivering an available code", `UPDATE codes SET order_seq = $1 WHERE id = $2`, []any{f.processing, available}),
		storetest.Accepted("completing a processing order", `UPDATE orders SET status = 'completed', finished_at = 1, cost = 5 WHERE seq = $1`, []any{f.processing}),
		storetest.Accepted("completing a processing order without a known cost", `UPDATE orders SET status = 'completed', finished_at = 1 WHERE seq = $1`, []any{f.o}),
	}
	storetest.RunGuards(t, db, dumpQueries, guards, controls)
	var left int
	if err := db.QueryRow(`SELECT available FROM stock_levels WHERE pid = $1`, pidKey).Scan(&left); err != nil || left != 1 {
		t.Errorf("stock after delivering by hand: %d, %v; want 1 (kept by trigger)", left, err)
	}
}

// TestRowGuards shows that a final order, a code and the settings and bot
// state rows never change but as the rules allow (see storetest.RowGuards),
// and that TRUNCATE, which skips row triggers, deletes neither row.
func TestRowGuards(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := rawDB(t, f.url)
	var code int64
	must(t, db.QueryRow(`SELECT id FROM codes WHERE order_seq = $1`, f.completed).Scan(&code))
	storetest.RowGuards(t, db, f.completed, f.kept, f.processing, code)
	storetest.RunGuards(t, db, dumpQueries, []storetest.Guard{
		storetest.Refused("settings: truncating", `TRUNCATE settings`, nil, "never deleted"),
		storetest.Refused("bot_state: truncating", `TRUNCATE bot_state`, nil, "never deleted"),
	}, nil)
}

// TestLedgerChainCannotFork has two sessions append the same next entry at
// once, as two nodes without the account lock would: one commits, the other
// is refused by the unique index, and the chain stays whole.
func TestLedgerChainCannotFork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	db := rawDB(t, f.url)
	var lastSeq int64
	var bal topupd.Money
	must(t, db.QueryRow(`SELECT seq, balance_after FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`, f.a).Scan(&lastSeq, &bal))
	entry := fmt.Sprintf(`INSERT INTO ledger (account_id, seq, kind, amount, balance_after, reference, created_at)
		VALUES ('%s', %d, 'credit', 1, %d, '%%s', 0)`, f.a, lastSeq+1, bal+1)
	h := hold(t, db, fmt.Sprintf(entry, "first"))
	second := make(chan error, 1)
	go func() {
		_, err := db.Exec(fmt.Sprintf(entry, "second"))
		second <- err
	}()
	h.waitBlocking()
	must(t, h.tx.Commit())
	select {
	case err := <-second:
		if err == nil || !strings.Contains(err.Error(), `"ledger_account_id_seq_key"`) {
			t.Errorf("the second append of seq %d: %v; want it refused by ledger_account_id_seq_key", lastSeq+1, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second append never finished")
	}
	var n int
	var sum, last topupd.Money
	must(t, db.QueryRow(`SELECT count(*), SUM(amount)::BIGINT, MAX(balance_after) FILTER (WHERE seq = $2) FROM ledger WHERE account_id = $1`, f.a, lastSeq+1).Scan(&n, &sum, &last))
	if int64(n) != lastSeq+1 || sum != last || last != bal+1 {
		t.Errorf("after the race: %d entries, sum %v, balance %v; want %d entries and %v", n, sum, last, lastSeq+1, bal+1)
	}
}
