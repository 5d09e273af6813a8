package storetest

import (
	"database/sql"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// BatchGuards shows, on a plain connection to a store's database, that the
// schema refuses what would undo a batch's void or falsify its counts:
// selling or un-withdrawing a withdrawn code, un-voiding a batch, adding a
// code to a voided batch or to another pack's. s is the store on db; pid
// is one of its packs that draws stock, otherPID another; processing is
// a processing order's seq, for a code to be given to.
func BatchGuards(t *testing.T, s topupd.Store, db *sql.DB, pid, otherPID string, processing int64) {
	t.Helper()
	ctx := t.Context()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	voided, err := s.AddStockBatch(ctx, nil, pid, []string{"GUARD-V1", "GUARD-V2"}, topupd.StockUpload{Note: "to void"}, now)
	if err != nil {
		t.Fatal(err)
	}
	open, err := s.AddStockBatch(ctx, nil, pid, []string{"GUARD-O1", "GUARD-O2"}, topupd.StockUpload{Cost: new(topupd.Money)}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.VoidBatch(ctx, nil, voided.BatchID, now); err != nil {
		t.Fatal(err)
	}
	var withdrawn, inStock int64
	if err := db.QueryRow(`SELECT MIN(id) FROM codes WHERE batch_id = $1`, voided.BatchID).Scan(&withdrawn); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT MIN(id) FROM codes WHERE batch_id = $1`, open.BatchID).Scan(&inStock); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO codes (pid, fingerprint, code_fp, sealed, added_at, batch_id) VALUES ($1, $2, $3, $4, 0, $5)`
	const (
		never  = "a code of a voided batch is never sold"
		once   = "withdrawn, once"
		joins  = "joins a batch of its own pack that is not voided"
		fixed  = "never changes"
		final  = "a void is final"
		frozen = "sells and adds nothing"
	)
	guards := []Guard{
		Refused("batches: selling a withdrawn code", `UPDATE codes SET order_seq = $1 WHERE id = $2`, []any{processing, withdrawn}, never),
		Refused("batches: un-withdrawing a code", `UPDATE codes SET voided_at = NULL WHERE id = $1`, []any{withdrawn}, once),
		Refused("batches: withdrawing a code of a batch not voided", `UPDATE codes SET voided_at = 1 WHERE id = $1`, []any{inStock}, once),
		Refused("batches: moving a code to another batch", `UPDATE codes SET batch_id = $1 WHERE id = $2`, []any{open.BatchID, withdrawn}, "never changes batch"),
		Refused("batches: a code into a voided batch", insert, []any{pid, []byte{1}, []byte{1}, []byte{1}, voided.BatchID}, joins),
		Refused("batches: a code into another pack's batch", insert, []any{otherPID, []byte{2}, []byte{2}, []byte{2}, open.BatchID}, joins),
		Refused("batches: un-voiding", `UPDATE stock_batches SET voided_at = NULL WHERE id = $1`, []any{voided.BatchID}, final),
		Refused("batches: a sale counted after the void", `UPDATE stock_batches SET sold = sold + 1 WHERE id = $1`, []any{voided.BatchID}, frozen),
		Refused("batches: changing a batch's cost", `UPDATE stock_batches SET cost = 1 WHERE id = $1`, []any{open.BatchID}, fixed),
		Refused("batches: deleting a batch", `DELETE FROM stock_batches WHERE id = $1`, []any{open.BatchID}, "never deleted"),
	}
	controls := []Control{
		Accepted("selling a code of a batch not voided", `UPDATE codes SET order_seq = $1 WHERE id = $2`, []any{processing, inStock}),
	}
	dump := []string{
		`SELECT id, pid, order_seq, batch_id, voided_at FROM codes ORDER BY id`,
		`SELECT id, pid, cost, added, sold, withdrawn, voided_at FROM stock_batches ORDER BY id`,
		`SELECT pid, available FROM stock_levels ORDER BY pid`,
	}
	RunGuards(t, db, dump, guards, controls)
	var sold int
	if err := db.QueryRow(`SELECT sold FROM stock_batches WHERE id = $1`, open.BatchID).Scan(&sold); err != nil || sold != 1 {
		t.Errorf("the batch's sold count after a code was given by hand: %d, %v; want 1 (kept by trigger)", sold, err)
	}
}
