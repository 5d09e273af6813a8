package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/sqlite"
)

// openAt opens a store on path and closes it when the test ends.
func openAt(t *testing.T, path string, v *topupd.Vault) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, v)
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) topupd.Store { return freshStore(t) })
}

func TestOpenNeedsVault(t *testing.T) {
	if s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "t.db"), nil); err == nil {
		s.Close()
		t.Errorf("Open without a vault succeeded")
	}
}

// fixture is a store file with one order in every state, for tests that then
// look at the file with plain SQL.
type fixture struct {
	path                                     string
	vault                                    *topupd.Vault
	a, b                                     string // account ids
	completed, refunded, kept, processing, o int64  // order seqs; o is account b's processing order
	code                                     string // the code delivered to completed
}

const price topupd.Money = 12_500

func newFixture(t *testing.T) fixture {
	t.Helper()
	ctx := t.Context()
	f := fixture{path: filepath.Join(t.TempDir(), "t.db"), vault: storetest.NewVault(t), a: "acc_a", b: "acc_b"}
	s, err := sqlite.Open(ctx, f.path, f.vault)
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	defer s.Close()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{f.a, f.b} {
		_, err := s.CreateAccount(ctx, nil, topupd.Account{ID: id, Name: id, APIEnabled: true, CreatedAt: now})
		must(err)
		_, _, err = s.Credit(ctx, nil, id, topupd.USD(100), "initial", now)
		must(err)
	}
	must(s.PutLine(ctx, nil, topupd.Line{Slug: "ff", ProductName: "FF", GameName: "FF", Game: "ff", Kind: topupd.KindTopup, Status: topupd.StatusActive}))
	must(s.PutLine(ctx, nil, topupd.Line{Slug: "keys", ProductName: "Keys", GameName: "Keys", Game: "gamekey", Kind: topupd.KindGamekey, Status: topupd.StatusActive}))
	must(s.PutPack(ctx, nil, topupd.Pack{PID: "ff-1", Slug: "ff", Name: "FF 1", Price: price, Status: topupd.StatusActive, Provider: topupd.ProviderSim}))
	must(s.PutPack(ctx, nil, topupd.Pack{PID: "key-1", Slug: "keys", Name: "Key", Price: price, Status: topupd.StatusActive, Provider: topupd.ProviderSim}))
	_, err = s.AddStock(ctx, "key-1", []string{"SECRET-KEY-0001", "SECRET-KEY-0002", "SECRET-KEY-0003"}, now)
	must(err)
	place := func(account, trxid, pid string) topupd.Order {
		t.Helper()
		o, _, err := s.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: account, Request: topupd.OrderRequest{PID: pid, TrxID: trxid}, Now: now, Deadline: time.Hour})
		must(err)
		return o
	}
	done := place(f.a, "T-DONE", "key-1")
	f.completed, f.code = done.Seq, done.Codes[0]
	f.refunded = place(f.a, "T-REFUNDED", "ff-1").Seq
	_, err = s.Settle(ctx, nil, f.refunded, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: now})
	must(err)
	f.kept = place(f.a, "T-KEPT", "ff-1").Seq
	_, err = s.Settle(ctx, nil, f.kept, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Now: now})
	must(err)
	f.processing = place(f.a, "T-PROC", "ff-1").Seq
	f.o = place(f.b, "T-B", "ff-1").Seq
	return f
}

// rawDB opens the fixture's file with plain database/sql, as an intruder or
// a buggy tool would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// dumpQueries read every row that money, stock and orders depend on.
var dumpQueries = []string{
	`SELECT id, account_id, seq, kind, amount, balance_after, order_seq, reference, created_at FROM ledger ORDER BY id`,
	`SELECT seq, id, account_id, status, refunded, amount, quantity, finished_at, error FROM orders ORDER BY seq`,
	`SELECT id, pid, hex(fingerprint), order_seq FROM codes ORDER BY id`,
	`SELECT pid, available FROM stock_levels ORDER BY pid`,
}

// TestDatabaseGuards shows that the schema itself, not the Go code, refuses
// every change that would corrupt money, stock or orders.
func TestDatabaseGuards(t *testing.T) {
	f := newFixture(t)
	db := rawDB(t, f.path)
	var lastSeq int64
	var bal topupd.Money
	if err := db.QueryRow(`SELECT seq, balance_after FROM ledger WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`, f.a).Scan(&lastSeq, &bal); err != nil {
		t.Fatal(err)
	}
	var prevBal topupd.Money
	if err := db.QueryRow(`SELECT balance_after FROM ledger WHERE account_id = $1 AND seq = $2`, f.a, lastSeq-1).Scan(&prevBal); err != nil {
		t.Fatal(err)
	}
	var delivered, available int64
	if err := db.QueryRow(`SELECT id FROM codes WHERE order_seq = $1`, f.completed).Scan(&delivered); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT id FROM codes WHERE order_seq IS NULL ORDER BY id LIMIT 1`).Scan(&available); err != nil {
		t.Fatal(err)
	}
	next := lastSeq + 1
	entry := `INSERT INTO ledger (account_id, seq, kind, amount, balance_after, order_seq, reference, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)`
	chain := "does not continue the account chain"
	final := "a final order cannot change"
	guards := []storetest.Guard{
		storetest.Refused("ledger: a gap in the chain", entry, []any{f.a, next + 1, "credit", 1, bal + 1, nil, "gap"}, chain),
		storetest.Refused("ledger: a wrong running balance", entry, []any{f.a, next, "credit", 1, bal + 2, nil, "wrong"}, chain),
		storetest.Refused("ledger: a first entry that is not the sum", entry, []any{"acc_c_nobody", 1, "credit", 5, 6, nil, "first"}, chain),
		storetest.Refused("ledger: a fork of the chain", entry, []any{f.a, lastSeq, "credit", 1, prevBal + 1, nil, "fork"}, "UNIQUE"),
		storetest.Refused("ledger: below zero", entry, []any{f.a, next, "credit", -bal - 1, -1, nil, "overdraw"}, "CHECK"),
		storetest.Refused("ledger: a second refund", entry, []any{f.a, next, "refund", price, bal + price, f.refunded, nil}, "UNIQUE"),
		storetest.Refused("ledger: a refund of a cancellation kept charged", entry, []any{f.a, next, "refund", price, bal + price, f.kept, nil}, "a refund must return the charge"),
		storetest.Refused("ledger: a refund of a cancellation kept charged, for more", entry, []any{f.a, next, "refund", price + 1, bal + price + 1, f.kept, nil}, "a refund must return the charge"),
		storetest.Refused("ledger: a refund of a completed order", entry, []any{f.a, next, "refund", price, bal + price, f.completed, nil}, "a refund must return the charge"),
		storetest.Refused("ledger: a refund of a processing order", entry, []any{f.a, next, "refund", price, bal + price, f.processing, nil}, "a refund must return the charge"),
		storetest.Refused("ledger: a second charge", entry, []any{f.a, next, "charge", -price, bal - price, f.processing, nil}, "UNIQUE"),
		storetest.Refused("ledger: a charge of another amount", entry, []any{f.a, next, "charge", -price + 1, bal - price + 1, f.processing, nil}, "a charge must be the order's amount"),
		storetest.Refused("ledger: a refund onto another account", entry, []any{f.a, next, "refund", price, bal + price, f.o, nil}, "must belong to the order's account"),
		storetest.Refused("ledger: a credit without reference", entry, []any{f.a, next, "credit", 1, bal + 1, nil, nil}, "CHECK"),
		storetest.Refused("ledger: a repeated credit reference", entry, []any{f.a, next, "credit", 1, bal + 1, nil, "initial"}, "UNIQUE"),
		storetest.Refused("ledger: a positive charge", entry, []any{f.a, next, "charge", price, bal + price, f.processing, nil}, "a charge must be the order's amount"),
		storetest.Refused("ledger: changing an entry", `UPDATE ledger SET amount = amount + 1, balance_after = balance_after + 1 WHERE account_id = $1`, []any{f.a}, "never changed"),
		storetest.Refused("ledger: deleting an entry", `DELETE FROM ledger WHERE account_id = $1 AND seq = $2`, []any{f.a, lastSeq}, "never deleted"),
		storetest.Refused("codes: re-delivering a delivered code", `UPDATE codes SET order_seq = $1 WHERE id = $2`, []any{f.processing, delivered}, "delivered to one order, ever"),
		storetest.Refused("codes: returning a delivered code to stock", `UPDATE codes SET order_seq = NULL WHERE id = $1`, []any{delivered}, "delivered to one order, ever"),
		storetest.Refused("codes: deleting a code", `DELETE FROM codes WHERE id = $1`, []any{available}, "never deleted"),
		storetest.Refused("codes: the same code twice in a pack", `INSERT INTO codes (pid, fingerprint, code_fp, sealed, added_at) SELECT pid, fingerprint, code_fp, sealed, 0 FROM codes WHERE id = $1`, []any{delivered}, "UNIQUE"),
		storetest.Refused("codes: the same code in another pack", `INSERT INTO codes (pid, fingerprint, code_fp, sealed, added_at) SELECT 'other', x'00', code_fp, sealed, 0 FROM codes WHERE id = $1`, []any{delivered}, "UNIQUE"),
		storetest.Refused("codes: a code without its global fingerprint", `INSERT INTO codes (pid, fingerprint, sealed, added_at) VALUES ('other', x'00', x'00', 0)`, nil, "global fingerprint"),
		storetest.Refused("codes: changing a code's global fingerprint", `UPDATE codes SET code_fp = x'00' WHERE id = $1`, []any{available}, "never changes"),
		storetest.Refused("stock: below zero", `UPDATE stock_levels SET available = -1`, nil, "CHECK"),
		storetest.Refused("orders: reopening a completed order", `UPDATE orders SET status = 'processing', finished_at = NULL WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: cancelling a completed order", `UPDATE orders SET status = 'cancelled' WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: completing a cancelled order", `UPDATE orders SET status = 'completed' WHERE seq = $1`, []any{f.refunded}, final),
		storetest.Refused("orders: flagging a kept cancellation refunded", `UPDATE orders SET refunded = 1 WHERE seq = $1`, []any{f.kept}, final),
		storetest.Refused("orders: un-refunding", `UPDATE orders SET refunded = 0 WHERE seq = $1`, []any{f.refunded}, final),
		storetest.Refused("orders: changing a final order's amount", `UPDATE orders SET amount = 1 WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: moving a final order to another account", `UPDATE orders SET account_id = $1 WHERE seq = $2`, []any{f.b, f.completed}, final),
		storetest.Refused("orders: deleting an order", `DELETE FROM orders WHERE seq = $1`, []any{f.processing}, "never deleted"),
		storetest.Refused("orders: refunded while processing", `UPDATE orders SET refunded = 1 WHERE seq = $1`, []any{f.processing}, "CHECK"),
		storetest.Refused("orders: final without finish time", `UPDATE orders SET status = 'completed', cost = 5 WHERE seq = $1`, []any{f.processing}, "CHECK"),
		storetest.Refused("orders: repricing a processing order", `UPDATE orders SET amount = amount + 1 WHERE seq = $1`, []any{f.processing}, "never changes"),
		storetest.Refused("orders: another quantity for a processing order", `UPDATE orders SET quantity = quantity + 1 WHERE seq = $1`, []any{f.processing}, "never changes"),
		storetest.Refused("orders: a cost on a cancelled order", `UPDATE orders SET status = 'cancelled', error = 'x', finished_at = 1, cost = 5 WHERE seq = $1`, []any{f.processing}, "has a cost"),
		storetest.Refused("orders: a cost on a processing order", `UPDATE orders SET cost = 5 WHERE seq = $1`, []any{f.processing}, "has a cost"),
		storetest.Refused("orders: changing a completed order's cost", `UPDATE orders SET cost = COALESCE(cost, 0) + 1 WHERE seq = $1`, []any{f.completed}, final),
		storetest.Refused("orders: a reused trxid", `UPDATE orders SET trxid = 'T-DONE' WHERE seq = $1`, []any{f.processing}, "UNIQUE"),
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
	if err := db.QueryRow(`SELECT available FROM stock_levels WHERE pid = 'key-1'`).Scan(&left); err != nil || left != 1 {
		t.Errorf("stock after delivering by hand: %d, %v; want 1 (kept by trigger)", left, err)
	}
}

// TestCodesSealedAtRest shows that codes are not readable from the file, and
// that a store opened with another key cannot read them.
func TestCodesSealedAtRest(t *testing.T) {
	f := newFixture(t)
	db := rawDB(t, f.path)
	rows, err := db.Query(`SELECT sealed, fingerprint FROM codes`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var sealed, fp []byte
		if err := rows.Scan(&sealed, &fp); err != nil {
			t.Fatal(err)
		}
		n++
		if bytes.Contains(sealed, []byte("SECRET-KEY")) || bytes.Contains(fp, []byte("SECRET-KEY")) {
			t.Errorf("a code is stored in plain text")
		}
	}
	rows.Close()
	if n != 3 {
		t.Fatalf("%d codes in the file, want 3", n)
	}

	same := openAt(t, f.path, f.vault)
	o, err := same.Order(t.Context(), "", fmt.Sprint(f.completed))
	if err != nil || len(o.Codes) != 1 || o.Codes[0] != f.code {
		t.Fatalf("reopened with the same key: codes %q, %v; want [%s]", o.Codes, err, f.code)
	}
	other := openAt(t, f.path, storetest.NewVault(t))
	if _, err := other.Order(t.Context(), "", fmt.Sprint(f.completed)); !errors.Is(err, topupd.ErrSealBroken) {
		t.Errorf("reading codes under another key: %v, want ErrSealBroken", err)
	}
	// Under another key the fingerprints differ too, so it cannot even tell duplicates.
	r, err := other.AddStock(t.Context(), "key-1", []string{f.code}, time.Now())
	if err != nil || r.Added != 1 {
		t.Errorf("AddStock under another key: %+v, %v", r, err)
	}
}

// TestReopenKeepsData shows that migrations run once and the data survives.
func TestReopenKeepsData(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s := openAt(t, f.path, f.vault)
	bal, err := s.Balance(ctx, f.a)
	if err != nil {
		t.Fatal(err)
	}
	want := topupd.USD(100) - 3*price // the refunded order gave its charge back
	if bal != want {
		t.Errorf("balance after reopening = %v, want %v", bal, want)
	}
	if _, total, err := s.History(ctx, f.a, topupd.HistoryQuery{Limit: 10}); err != nil || total != 4 {
		t.Errorf("History total after reopening = %d, %v; want 4", total, err)
	}
}

// TestRowGuards shows that a final order, a code and the settings and bot
// state rows never change but as the rules allow (see storetest.RowGuards).
func TestRowGuards(t *testing.T) {
	f := newFixture(t)
	db := rawDB(t, f.path)
	var code int64
	if err := db.QueryRow(`SELECT id FROM codes WHERE order_seq = $1`, f.completed).Scan(&code); err != nil {
		t.Fatal(err)
	}
	storetest.RowGuards(t, db, f.completed, f.kept, f.processing, code)
}
