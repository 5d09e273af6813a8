package postgres_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/topupd/topupd/postgres"
)

// TestDialectTellsErrorsApart provokes, on a real server, the errors the
// store must tell apart: a deadlock and a serialization failure are
// transient (the transaction runs again), a unique violation is a unique
// violation, and a check violation is neither.
func TestDialectTellsErrorsApart(t *testing.T) {
	t.Parallel()
	db := rawDB(t, newSchema(t))
	ctx := t.Context()
	_, err := db.Exec(`CREATE TABLE t (id INT PRIMARY KEY, v INT CHECK (v >= 0)); INSERT INTO t VALUES (1, 0), (2, 0)`)
	must(t, err)
	begin := func(opts *sql.TxOptions) *sql.Tx {
		tx, err := db.BeginTx(ctx, opts)
		must(t, err)
		t.Cleanup(func() { tx.Rollback() })
		return tx
	}

	// A deadlock: each transaction holds one row and wants the other's.
	tx1, tx2 := begin(nil), begin(nil)
	_, err = tx1.Exec(`UPDATE t SET v = 1 WHERE id = 1`)
	must(t, err)
	_, err = tx2.Exec(`UPDATE t SET v = 1 WHERE id = 2`)
	must(t, err)
	second := make(chan error, 1)
	go func() {
		_, err := tx1.ExecContext(context.Background(), `UPDATE t SET v = 2 WHERE id = 2`)
		second <- err
	}()
	_, errA := tx2.Exec(`UPDATE t SET v = 2 WHERE id = 1`)
	if errA == nil {
		tx2.Rollback() // the server chose tx1 as the victim; let it report
	}
	errB := <-second
	deadlock := errA
	if deadlock == nil {
		deadlock = errB
	}
	if deadlock == nil || !postgres.IsTransient(deadlock) {
		t.Errorf("deadlock: %v / %v; want one transient error", errA, errB)
	}
	tx1.Rollback()
	tx2.Rollback()

	// A serialization failure: a snapshot transaction updates a row that
	// changed after its snapshot.
	tx3 := begin(&sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	var v int
	must(t, tx3.QueryRow(`SELECT v FROM t WHERE id = 1`).Scan(&v))
	_, err = db.Exec(`UPDATE t SET v = v + 1 WHERE id = 1`)
	must(t, err)
	_, err = tx3.Exec(`UPDATE t SET v = v + 1 WHERE id = 1`)
	if err == nil || !postgres.IsTransient(err) || postgres.IsUniqueViolation(err) {
		t.Errorf("serialization failure: %v; want transient", err)
	}

	_, err = db.Exec(`INSERT INTO t VALUES (1, 0)`)
	if err == nil || !postgres.IsUniqueViolation(err) || postgres.IsTransient(err) {
		t.Errorf("duplicate key: %v; want a unique violation, not transient", err)
	}
	_, err = db.Exec(`INSERT INTO t VALUES (3, -1)`)
	if err == nil || postgres.IsUniqueViolation(err) || postgres.IsTransient(err) {
		t.Errorf("check violation: %v; want neither unique nor transient", err)
	}
}
