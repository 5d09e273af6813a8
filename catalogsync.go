package topupd

import (
	"context"
	"time"
)

// CatalogSyncStore answers what a reseller's catalog sync asks: which packs
// changed for an account since a time, a version of what the account sees,
// and the time to sync from next. The store records every change in the
// change's own transaction; nothing here is a guess kept in memory.
type CatalogSyncStore interface {
	// ChangedPacks returns, by PID, the packs that changed for the account at
	// or after since: its price for the account (own price, tier price,
	// tier, markup, base price), its status or its line's, whether it is in
	// stock, or what its row shows (name, category, line names). Packs taken
	// off sale are included.
	ChangedPacks(ctx context.Context, accountID string, since time.Time) ([]string, error)
	// CatalogVersion is a token that changes whenever anything the
	// account's catalog shows changes, stock levels included; it is read in
	// one small query, without building the catalog.
	CatalogVersion(ctx context.Context, accountID string) (string, error)
	// CatalogSyncPoint is the database's time once every change stamped
	// before it has committed: a read begun after it sees them all, and any
	// change it misses is stamped at or after it. It is the serverTime a
	// sync answers, to be sent back as the next updatedSince.
	CatalogSyncPoint(ctx context.Context) (time.Time, error)
	// CatalogReaders lists the live accounts (sandboxes aside) made at or
	// before at, by id: who a catalog change made at at that names no
	// accounts concerns.
	CatalogReaders(ctx context.Context, at time.Time) ([]string, error)
	// PIDsOnSale lists the active packs of active lines, by PID.
	PIDsOnSale(ctx context.Context) ([]string, error)
}
