package sqlstore

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// TestCatalogSyncPointBeforeOpenGroup: on a database whose one writer is
// the group commit (SQLite), the sync point is taken without a write
// transaction, so it must stay at or before the stamp of a change that a
// group still open made: here a group stamps a change, as a catalog
// trigger does, and stays open while the clock moves on. The sync point,
// answered without waiting for the group, is no later than the stamp; once
// the group has committed it is the clock again.
func TestCatalogSyncPointBeforeOpenGroup(t *testing.T) {
	s := openTestStore(t, `CREATE TABLE marks (changed_at INTEGER NOT NULL)`, Dialect{Name: "test", Greatest: "MAX",
		GroupCommit: true, OneWriter: true, IsUniqueViolation: func(error) bool { return false }})
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()

	stamped, release, done := make(chan int64, 1), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			var at int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO marks (changed_at)
				VALUES (CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)) RETURNING changed_at`).Scan(&at); err != nil {
				return err
			}
			stamped <- at
			<-release
			return nil
		})
	}()
	var stamp int64
	select {
	case stamp = <-stamped:
	case err := <-done:
		t.Fatalf("the writer ended before it stamped: %v", err)
	}
	time.Sleep(5 * time.Millisecond) // the clock moves past the stamp
	got := make(chan time.Time, 1)
	go func() {
		at, err := s.CatalogSyncPoint(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- at
	}()
	select {
	case at := <-got:
		if at.UnixMilli() > stamp {
			t.Errorf("sync point %v past the stamp %v of a change not yet committed", at, time.UnixMilli(stamp))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the sync point waited for the group in progress")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	at, err := s.CatalogSyncPoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if at.UnixMilli() < stamp+5 {
		t.Errorf("sync point %v once the group committed, want the clock, past the stamp %v", at, time.UnixMilli(stamp))
	}
}
