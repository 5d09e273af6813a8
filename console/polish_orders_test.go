package console_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// polishOrders: stock packs and their orders say stock, counts are in
// words, and a finished order shows its finish and no deadline.
func polishOrders(t *testing.T, b *tab, a topupdtest.Account) {
	t.Run("stock packs", func(t *testing.T) {
		b.t = t
		b.open("/console/catalog/packs/" + topupdtest.PIDKey)
		if got := b.text("#pack-provider"); got != "stock" {
			t.Errorf("a key pack is fulfilled by %q", got)
		}
		id := b.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": b.h.Trx()}).Str("orderId")
		b.h.WaitOrder(a, id)
		b.open("/console/orders/" + id)
		if got := b.text("#order-supplier"); got != "stock" {
			t.Errorf("a stock order's supplier: %q", got)
		}
		if b.has("#order-deadline") {
			t.Errorf("a completed order shows a deadline: %s", b.text("#order-deadline"))
		}
		if got := b.text("#order-finished"); got == "" {
			t.Errorf("a completed order shows no finish time")
		}
		// An order of a key pack stored before the stock provider, whose
		// provider was the sim default, was filled from stock too.
		db, err := sql.Open("sqlite", "file:"+b.h.DB+"?_pragma=busy_timeout(30000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		legacySim(t, db, id)
		b.open("/console/orders/" + id)
		if got := b.text("#order-supplier"); got != "stock" {
			t.Errorf("a key order stored with the sim provider: %q", got)
		}
	})

	t.Run("order counts", func(t *testing.T) {
		b.t = t
		id := b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123456789", "trxid": b.h.Trx()}).Str("orderId")
		b.open("/console/orders/" + id)
		if got := b.text("#order-supplier"); got != "manual, 1 attempt" {
			t.Errorf("a manual order's supplier: %q", got)
		}
		if b.text("#order-deadline") == "" {
			t.Errorf("a processing order shows no deadline")
		}
		if b.has("#order-finished") {
			t.Errorf("a processing order shows a finish time")
		}
		b.open("/console/")
		if got := b.text("#alerts + small"); strings.Contains(got, " 1 suppliers") {
			t.Errorf("the dashboard's alerts: %q", got)
		}
	})
}

// legacySim stores order id with the sim provider, as orders of key packs
// were before the stock provider: past the trigger that keeps a final
// order as it is, which it drops and puts back in one transaction.
func legacySim(t *testing.T, db *sql.DB, id string) {
	t.Helper()
	var trigger string
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'orders_final_is_final'`).Scan(&trigger); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DROP TRIGGER orders_final_is_final`, `UPDATE orders SET provider = 'sim' WHERE id = ?`, trigger} {
		args := []any{}
		if strings.Contains(q, "?") && !strings.Contains(q, "TRIGGER") {
			args = append(args, id)
		}
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
