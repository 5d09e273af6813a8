package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Catalog sync reads catalog_marks, which triggers keep in the transaction
// of every change a reseller's catalog can show (migration 00024): a row
// per account ('' for all) and pack ('' for all), with the database time of
// the last change that updatedSince lists and a version counting every
// visible change.
//
// The sync point closes the gap between a change's stamp and its commit.
// On PostgreSQL each stamp takes a shared advisory lock held to the
// writer's commit, and the sync point takes it exclusively, so it waits for
// every writer that stamped before it; on SQLite, whose one writer is the
// store's group commit, it is now, or the start of the group in progress
// when that is earlier (committer.syncPoint). Either way a reader that reads after
// the sync point sees every change stamped before it, and a change it does
// not see is stamped at or after it: a client that sends the serverTime
// back as updatedSince loses nothing (it may see a change twice). This
// trusts the database's clock not to step back.

// ChangedPacks returns the packs that changed for the account at or after
// since, by PID: those marked since, and those whose scheduled price took
// effect since (by now; its writer marks it later).
func (s *Store) ChangedPacks(ctx context.Context, accountID string, since time.Time) ([]string, error) {
	out, err := queryAll(ctx, s.read, scanValue[string], `SELECT p.pid FROM packs p WHERE EXISTS (
		SELECT 1 FROM catalog_marks m WHERE m.account_id IN ('', $1) AND m.pid IN ('', p.pid) AND m.changed_at >= $2)
		OR EXISTS (SELECT 1 FROM price_changes c WHERE c.pid = p.pid AND c.effective_at >= $2 AND c.effective_at <= $3)
		ORDER BY p.pid`, accountID, ms(since), ms(s.now()))
	if err != nil {
		return nil, fmt.Errorf("store.ChangedPacks %s: %w", accountID, err)
	}
	return out, nil
}

// CatalogVersion sums the versions of the marks the account's catalog
// reads: every visible change adds at least one, and marks are never
// deleted. It counts too the price changes that have taken effect by now,
// so that a scheduled price changes it at its time, before its writer
// marks it.
func (s *Store) CatalogVersion(ctx context.Context, accountID string) (string, error) {
	var n, sum, effective int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*), CAST(COALESCE(SUM(version), 0) AS BIGINT),
		(SELECT COUNT(*) FROM price_changes WHERE effective_at <= $2)
		FROM catalog_marks WHERE account_id IN ('', $1)`, accountID, ms(s.now())).Scan(&n, &sum, &effective)
	if err != nil {
		return "", fmt.Errorf("store.CatalogVersion %s: %w", accountID, err)
	}
	return fmt.Sprintf("%d.%d.%d", n, sum, effective), nil
}

// CatalogSyncPoint reads the dialect's sync point in a write transaction;
// a store whose group commit is the database's one writer (SQLite) reads
// it from the committer instead (committer.syncPoint), without queueing
// behind the orders being written.
func (s *Store) CatalogSyncPoint(ctx context.Context) (time.Time, error) {
	if s.group != nil && s.d.OneWriter {
		return fromMS(s.group.syncPoint().UnixMilli()), nil
	}
	var at int64
	err := s.retryTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, s.d.CatalogSyncPoint).Scan(&at)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("store.CatalogSyncPoint: %w", err)
	}
	return fromMS(at), nil
}

// CatalogReaders lists the live accounts made at or before at, sandboxes
// aside, by id. An account made after a change is not told of it: it has
// yet to read the catalog it changed.
func (s *Store) CatalogReaders(ctx context.Context, at time.Time) ([]string, error) {
	out, err := queryAll(ctx, s.read, scanValue[string], `SELECT id FROM accounts WHERE sandbox_of IS NULL AND created_at <= $1 ORDER BY id`, ms(at))
	if err != nil {
		return nil, fmt.Errorf("store.CatalogReaders: %w", err)
	}
	return out, nil
}

// PIDsOnSale lists the active packs of active lines, by PID.
func (s *Store) PIDsOnSale(ctx context.Context) ([]string, error) {
	out, err := queryAll(ctx, s.read, scanValue[string], `SELECT p.pid FROM packs p JOIN lines l ON l.slug = p.slug
		WHERE p.status = 'active' AND l.status = 'active' ORDER BY p.pid`)
	if err != nil {
		return nil, fmt.Errorf("store.PIDsOnSale: %w", err)
	}
	return out, nil
}
