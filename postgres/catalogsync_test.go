package postgres_test

import (
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
)

// TestCatalogSyncPointWaitsForWriters: a change is stamped when it is
// written but commits later, and a reader must not answer a serverTime
// past the stamp of a change it cannot see yet, or the next sync (from
// that serverTime) would miss it. Here the store changes a pack's price
// and, once it has stamped the change, waits on a row lock that another
// transaction holds (terms_version, which the change raises after its
// stamp): the reader's sync point waits (on the advisory lock the stamp
// took) until the change commits, and once it has, the change is
// visible, stamped before the sync point.
func TestCatalogSyncPointWaitsForWriters(t *testing.T) {
	t.Parallel()
	dbURL := newDB(t)
	s := openStore(t, dbURL, storetest.NewVault(t))
	ctx := t.Context()
	catalog(t, s)
	acct := account(t, s, "acc_sync", 0)
	before, err := s.CatalogSyncPoint(ctx)
	must(t, err)
	version, err := s.CatalogVersion(ctx, acct)
	must(t, err)

	raw := rawDB(t, dbURL)
	holder, err := raw.BeginTx(ctx, nil)
	must(t, err)
	defer holder.Rollback()
	if _, err := holder.ExecContext(ctx, `UPDATE terms_version SET version = version`); err != nil {
		t.Fatal(err)
	}
	changedPrice := make(chan error, 1)
	go func() {
		_, err := s.UpdatePack(ctx, nil, pidTopup, func(p *topupd.Pack) error { p.Price++; return nil })
		changedPrice <- err
	}()
	waitFor(t, raw, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext(current_schema())::oid
		AND classid = 73024 AND granted AND mode = 'ShareLock'`, "the change never stamped")
	type point struct {
		at  time.Time
		err error
	}
	done := make(chan point, 1)
	go func() {
		at, err := s.CatalogSyncPoint(ctx)
		done <- point{at, err}
	}()
	// Wait until the sync point is queued on the lock, not by the clock.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var waiting int
		must(t, raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext(current_schema())::oid
			AND classid = 73024 AND NOT granted`).Scan(&waiting))
		if waiting > 0 {
			break
		}
		select {
		case p := <-done:
			t.Fatalf("the sync point (%v, %v) did not wait for a transaction that stamped a change and is still open", p.at, p.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the sync point never queued on the lock")
		}
	}
	must(t, holder.Rollback())
	must(t, <-changedPrice)
	p := <-done
	must(t, p.err)
	var stamp int64
	must(t, raw.QueryRowContext(ctx, `SELECT changed_at FROM catalog_marks WHERE account_id = '' AND pid = $1`, pidTopup).Scan(&stamp))
	if p.at.UnixMilli() < stamp {
		t.Errorf("sync point %v before the stamp %v of a change committed before it", p.at, time.UnixMilli(stamp))
	}
	changed, err := s.ChangedPacks(ctx, acct, before)
	must(t, err)
	if !slices.Contains(changed, pidTopup) {
		t.Errorf("ChangedPacks since %v = %v, want %s", before, changed, pidTopup)
	}
	after, err := s.CatalogVersion(ctx, acct)
	must(t, err)
	if after == version {
		t.Errorf("CatalogVersion stayed %s across a price change", version)
	}
	changed, err = s.ChangedPacks(ctx, acct, p.at.Add(time.Millisecond))
	must(t, err)
	if len(changed) != 0 {
		t.Errorf("ChangedPacks after the sync point = %v, want none", changed)
	}
}

// waitFor polls query, a count, until it is above 0, or fails with why
// after 30 s.
func waitFor(t *testing.T, db *sql.DB, query, why string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int
		must(t, db.QueryRowContext(t.Context(), query).Scan(&n))
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
	}
}
