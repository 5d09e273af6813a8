package sqlstore

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// What a change of the catalog, the prices or the stock tells the rest of
// the store, written by the change's own code in its own transaction
// (migration 00031 took the triggers that wrote it away):
//   - terms_version rises with every write to packs, lines, tiers,
//     tier_prices and account_prices (bumpTerms): the order path's cache
//     of them (termscache.go) keys on it;
//   - catalog_marks (catalogsync.go) records, per caller and pack, the
//     change a reseller's catalog can show (mark, markTier, markLine);
//   - the stream's packs.changed tells the webhooks which resellers' packs
//     changed price, status or whether they are in stock (tellPacks);
//   - stock_alerts holds each pack's low-stock alert (stockMoved, putPack).
//
// Each rule is the one the triggers had; the decisions about what changed
// are plain Go (packTold, lineTold), the writes one statement each.

// bumpTerms raises the terms version: the order path's cached terms of
// every pack and account are stale from this transaction's commit on.
func bumpTerms(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE terms_version SET version = version + 1`)
	return err
}

// markUpsert ends a mark's INSERT: a row there counts one more change, and
// takes the new stamp when the change is one updatedSince lists.
func markUpsert(listed bool) string {
	changedAt := "catalog_marks.changed_at"
	if listed {
		changedAt = "excluded.changed_at"
	}
	return ` ON CONFLICT (account_id, pid) DO UPDATE SET version = catalog_marks.version + 1, changed_at = ` + changedAt
}

// mark marks pid ("" for every pack) for account ("" for every account);
// listed says updatedSince lists the change (a stock level's step that
// neither empties nor refills the stock counts for the ETag alone).
func (s *Store) mark(ctx context.Context, tx *sql.Tx, account, pid string, listed bool) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO catalog_marks (account_id, pid, changed_at) VALUES ($1, $2, `+s.d.CatalogStamp+`)`+markUpsert(listed),
		account, pid)
	return err
}

// markTier marks pid ("" for every pack) for every account on tier,
// sandboxes included.
func (s *Store) markTier(ctx context.Context, tx *sql.Tx, tier, pid string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO catalog_marks (account_id, pid, changed_at)
		SELECT id, $2, `+s.d.CatalogStamp+` FROM accounts WHERE tier = $1`+markUpsert(true), tier, pid)
	return err
}

// markLine marks every pack of a line for every account.
func (s *Store) markLine(ctx context.Context, tx *sql.Tx, slug string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO catalog_marks (account_id, pid, changed_at)
		SELECT '', pid, `+s.d.CatalogStamp+` FROM packs WHERE slug = $1`+markUpsert(true), slug)
	return err
}

// tellPacks writes a packs.changed event.
func (s *Store) tellPacks(ctx context.Context, tx *sql.Tx, d *topupd.PacksChangedData) error {
	return emit(ctx, tx, event(d, "", s.now()))
}

// onSale reports whether a pack is on sale: it and its line are active.
func onSale(ctx context.Context, tx *sql.Tx, pid string) (bool, error) {
	var ok bool
	err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug
		WHERE p.pid = $1 AND p.status = 'active' AND l.status = 'active')`, pid).Scan(&ok)
	return ok, err
}

// lineActive reports whether a line is active.
func lineActive(ctx context.Context, tx *sql.Tx, slug string) (bool, error) {
	var ok bool
	err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM lines WHERE slug = $1 AND status = 'active')`, slug).Scan(&ok)
	return ok, err
}

// tierReaders are the live accounts on tier that read its price of pid:
// those without an own price for it, by id.
func tierReaders(ctx context.Context, tx *sql.Tx, tier, pid string) ([]string, error) {
	return queryAll(ctx, tx, scanValue[string], `SELECT a.id FROM accounts a WHERE a.tier = $1 AND a.sandbox_of IS NULL
		AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = $2) ORDER BY a.id`, tier, pid)
}

// packTold says what a pack's write from old (nil: a new pack) to p tells:
// marked, a change the catalog shows; priced, one of its price, cost,
// line, status or stock basis, which packs.changed tells of while the pack
// is (or was) on sale.
func packTold(old *topupd.Pack, p *topupd.Pack) (marked, priced bool) {
	if old == nil {
		return true, true
	}
	priced = old.Slug != p.Slug || old.Price != p.Price || old.Cost != p.Cost || old.Status != p.Status || old.StockBased != p.StockBased
	marked = priced || old.Name != p.Name || old.Category != p.Category || old.Provider != p.Provider
	return marked, priced
}

// packWritten writes what a pack's write from old (nil: new) to p tells.
func (s *Store) packWritten(ctx context.Context, tx *sql.Tx, old, p *topupd.Pack) error {
	marked, priced := packTold(old, p)
	if marked {
		if err := s.mark(ctx, tx, "", p.PID, true); err != nil {
			return err
		}
	}
	if err := bumpTerms(ctx, tx); err != nil {
		return err
	}
	if !priced {
		return nil
	}
	// Told while the pack was on sale before the write or is after it.
	tell, err := onSaleAs(ctx, tx, old)
	if err == nil && !tell {
		tell, err = onSaleAs(ctx, tx, p)
	}
	if err != nil || !tell {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{PIDs: []string{p.PID}})
}

// onSaleAs reports whether p (nil: none) is on sale as written: active,
// on an active line.
func onSaleAs(ctx context.Context, tx *sql.Tx, p *topupd.Pack) (bool, error) {
	if p == nil || p.Status != topupd.StatusActive {
		return false, nil
	}
	return lineActive(ctx, tx, p.Slug)
}

// lineTold says what a line's write from old (nil: a new line) to l tells:
// marked, a change its packs show; listed, a change of whether it is
// active, which packs.changed tells of.
func lineTold(old *topupd.Line, l *topupd.Line) (marked, listed bool) {
	if old == nil {
		return true, false
	}
	listed = old.Status != l.Status && (old.Status == topupd.StatusActive || l.Status == topupd.StatusActive)
	marked = old.Status != l.Status || old.GameName != l.GameName || old.Game != l.Game || old.Kind != l.Kind
	return marked, listed
}

// lineWritten writes what a line's write from old (nil: new) to l tells.
func (s *Store) lineWritten(ctx context.Context, tx *sql.Tx, old, l *topupd.Line) error {
	if err := bumpTerms(ctx, tx); err != nil {
		return err
	}
	marked, listed := lineTold(old, l)
	if marked {
		if err := s.markLine(ctx, tx, l.Slug); err != nil {
			return err
		}
	}
	if !listed {
		return nil
	}
	pids, err := queryAll(ctx, tx, scanValue[string], `SELECT pid FROM packs WHERE slug = $1 AND status = 'active' ORDER BY pid`, l.Slug)
	if err != nil || len(pids) == 0 {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{PIDs: pids})
}

// accountPriceWritten writes what a change of an account's own price of
// pid tells (changed: it was set, changed or removed, not written again
// as it was).
func (s *Store) accountPriceWritten(ctx context.Context, tx *sql.Tx, accountID, pid string, changed bool) error {
	if err := bumpTerms(ctx, tx); err != nil || !changed {
		return err
	}
	if err := s.mark(ctx, tx, accountID, pid, true); err != nil {
		return err
	}
	if ok, err := onSale(ctx, tx, pid); err != nil || !ok {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{PIDs: []string{pid}, Accounts: []string{accountID}})
}

// tierPriceWritten writes what a change of a tier's price of pid tells:
// to the tier's accounts that read it.
func (s *Store) tierPriceWritten(ctx context.Context, tx *sql.Tx, tier, pid string) error {
	if err := bumpTerms(ctx, tx); err != nil {
		return err
	}
	if err := s.markTier(ctx, tx, tier, pid); err != nil {
		return err
	}
	if ok, err := onSale(ctx, tx, pid); err != nil || !ok {
		return err
	}
	readers, err := tierReaders(ctx, tx, tier, pid)
	if err != nil || len(readers) == 0 {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{PIDs: []string{pid}, Accounts: readers})
}

// tierWritten writes what a tier's write tells: a new markup, percentage
// off the list price or rounding reprices every pack for the tier's
// accounts.
func (s *Store) tierWritten(ctx context.Context, tx *sql.Tx, old *topupd.Tier, t *topupd.Tier) error {
	if err := bumpTerms(ctx, tx); err != nil {
		return err
	}
	if old == nil || (optionalEqual(old.Markup, t.Markup) && optionalEqual(old.PercentOff, t.PercentOff) && old.RoundTo == t.RoundTo) {
		return nil
	}
	if err := s.markTier(ctx, tx, t.Name, ""); err != nil {
		return err
	}
	live, err := queryAll(ctx, tx, scanValue[string], `SELECT id FROM accounts WHERE tier = $1 AND sandbox_of IS NULL ORDER BY id`, t.Name)
	if err != nil || len(live) == 0 {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{AllPacks: true, Accounts: live})
}

// tierMoved writes what moving a live account from one tier to another
// tells: every pack may have a new price for it.
func (s *Store) tierMoved(ctx context.Context, tx *sql.Tx, accountID string) error {
	if err := s.mark(ctx, tx, accountID, "", true); err != nil {
		return err
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{AllPacks: true, Accounts: []string{accountID}})
}

// optionalEqual reports whether two optional values are both absent or
// equal.
func optionalEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
