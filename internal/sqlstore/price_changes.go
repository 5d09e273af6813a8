package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// Scheduled prices (back-office.md, section 4 (e); migration 00044). Every
// write of a change takes its pack's row lock first, as a pack's own write
// does, so the writes of one pack's price and changes take turns; the
// order path and the catalog never wait for them: they read the pack's
// latest change and resolve its list price at their own time
// (topupd.ListPriceAt).

// priceChangeColumns are the columns scanPriceChange reads.
const priceChangeColumns = `seq, id, pid, price, effective_at, state, created_at, operator, old_price, applied_at`

func scanPriceChange(row scanner) (topupd.PriceChange, error) {
	var c topupd.PriceChange
	var effective, created int64
	var old, applied sql.NullInt64
	err := row.Scan(&c.Seq, &c.ID, &c.PID, &c.Price, &effective, &c.State, &created, &c.Operator, &old, &applied)
	c.EffectiveAt, c.CreatedAt, c.OldPrice = fromMS(effective), fromMS(created), nullMoney(old)
	if applied.Valid {
		t := fromMS(applied.Int64)
		c.AppliedAt = &t
	}
	return c, err
}

// lockPack reads a pack, holding its row lock; ENotFound when there is none.
func (s *Store) lockPack(ctx context.Context, tx *sql.Tx, pid string) (topupd.Pack, error) {
	p, err := scanPack(tx.QueryRowContext(ctx, `SELECT `+packColumns+` FROM packs WHERE pid = $1`+s.d.LockRow, pid))
	if isNoRows(err) {
		return p, topupd.Errorf(topupd.ENotFound, "pack %s", pid)
	}
	return p, err
}

// latestPriceChange reads a pack's latest change, scheduled or applied
// (nil for none), and the pack's price as stored, in one statement: the
// order path's, resolved at each order's time. Read together, the two are
// of one moment: a change written into its pack between two statements
// could otherwise be read applied beside the price it replaced.
func latestPriceChange(ctx context.Context, q querier, pid string) (*topupd.PriceChange, topupd.Money, error) {
	var stored topupd.Money
	c, err := scanPriceChange(withFirst(q.QueryRowContext(ctx, `SELECT (SELECT price FROM packs WHERE pid = $1), `+priceChangeColumns+`
		FROM price_changes WHERE pid = $1 ORDER BY effective_at DESC, seq DESC LIMIT 1`, pid), &stored))
	if isNoRows(err) {
		return nil, 0, nil
	}
	return &c, stored, err
}

// withFirst is row, whose first column goes to first and the rest to what
// its Scan is given.
func withFirst(row scanner, first any) scanner {
	return scanFunc(func(dest ...any) error { return row.Scan(append([]any{first}, dest...)...) })
}

// SchedulePriceChange stores c as its pack's scheduled change, holding the
// pack's lock: a change of the pack due at c.CreatedAt is written first;
// price_changes_one_scheduled holds the one scheduled change a pack.
func (s *Store) SchedulePriceChange(ctx context.Context, ch *topupd.Change, c topupd.PriceChange) (topupd.PriceChange, error) {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := s.applyDue(ctx, tx, c.PID, c.CreatedAt); err != nil {
			return err
		}
		p, err := s.lockPack(ctx, tx, c.PID)
		if err != nil {
			return err
		}
		if g := topupd.CostGuardOf(ctx); g != nil {
			if err := topupd.CheckCost(c.Price, p.HighestCost(), g.AllowBelowCost); err != nil {
				return err
			}
		}
		var other string
		err = tx.QueryRowContext(ctx, `SELECT id FROM price_changes WHERE pid = $1 AND state = 'scheduled'`, c.PID).Scan(&other)
		if err == nil {
			return topupd.Errorf(topupd.EConflict, "pack %s has a change scheduled already (%s): delete it first", c.PID, other)
		} else if !isNoRows(err) {
			return err
		}
		c.State, c.OldPrice, c.AppliedAt = topupd.PriceChangeScheduled, nil, nil
		if err := tx.QueryRowContext(ctx, `INSERT INTO price_changes (id, pid, price, effective_at, state, created_at, operator)
			VALUES ($1, $2, $3, $4, 'scheduled', $5, $6) RETURNING seq`, c.ID, c.PID, int64(c.Price), ms(c.EffectiveAt), ms(c.CreatedAt),
			c.Operator).Scan(&c.Seq); err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{}, c.LogFields())
		return s.priceChangeTold(ctx, tx, &p, c.Price)
	})
	if err != nil {
		return c, fmt.Errorf("store.SchedulePriceChange %s: %w", c.PID, err)
	}
	return c, nil
}

// DeletePriceChange deletes a change still scheduled at now, holding its
// pack's lock.
func (s *Store) DeletePriceChange(ctx context.Context, ch *topupd.Change, id string, now time.Time) (topupd.PriceChange, error) {
	ctx = withChange(ctx, ch)
	var c topupd.PriceChange
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		notFound := topupd.Errorf(topupd.ENotFound, "price change %s", id)
		var pid string
		if err := tx.QueryRowContext(ctx, `SELECT pid FROM price_changes WHERE id = $1`, id).Scan(&pid); isNoRows(err) {
			return notFound
		} else if err != nil {
			return err
		}
		p, err := s.lockPack(ctx, tx, pid)
		if err != nil {
			return err
		}
		// Read again under the pack's lock: every write of the change takes it.
		if c, err = scanPriceChange(tx.QueryRowContext(ctx, `SELECT `+priceChangeColumns+` FROM price_changes WHERE id = $1`, id)); isNoRows(err) {
			return notFound
		} else if err != nil {
			return err
		}
		if c.StateAt(now) == topupd.PriceChangeApplied {
			return topupd.Errorf(topupd.EPriceChangeApplied, "the change took effect at %s", c.EffectiveAt.UTC().Format(time.RFC3339))
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM price_changes WHERE seq = $1`, c.Seq); err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{"pid": c.PID, "priceUsd": c.Price, "state": c.State}, map[string]any{"state": "deleted"})
		return s.priceChangeTold(ctx, tx, &p, c.Price)
	})
	if err != nil {
		return c, fmt.Errorf("store.DeletePriceChange %s: %w", id, err)
	}
	return c, nil
}

// PriceChanges returns the page q selects, soonest first.
func (s *Store) PriceChanges(ctx context.Context, q topupd.PriceChangesQuery) ([]topupd.PriceChange, error) {
	var c conds
	if q.PID != "" {
		c.add("pid = ?", q.PID)
	}
	switch q.State {
	case topupd.PriceChangeScheduled:
		c.add("state = 'scheduled' AND effective_at > ?", ms(q.Now))
	case topupd.PriceChangeApplied:
		c.add("(state = 'applied' OR effective_at <= ?)", ms(q.Now))
	}
	if a := q.After; a != nil {
		c.add("(effective_at > ? OR (effective_at = ? AND seq > ?))", ms(a.At), ms(a.At), a.Seq)
	}
	return readAll(ctx, s, "store.PriceChanges", scanPriceChange, `SELECT `+priceChangeColumns+` FROM price_changes `+
		c.tail("effective_at, seq", q.Limit), c.args...)
}

// LatestPriceChanges returns each pack's latest change, by PID.
func (s *Store) LatestPriceChanges(ctx context.Context) (map[string]topupd.PriceChange, error) {
	list, err := readAll(ctx, s, "store.LatestPriceChanges", scanPriceChange, `SELECT `+priceChangeColumns+` FROM price_changes c
		WHERE NOT EXISTS (SELECT 1 FROM price_changes l WHERE l.pid = c.pid
			AND (l.effective_at > c.effective_at OR (l.effective_at = c.effective_at AND l.seq > c.seq)))`)
	out := make(map[string]topupd.PriceChange, len(list))
	for _, c := range list {
		out[c.PID] = c
	}
	return out, err
}

// ScheduledPriceChanges counts the changes not yet written into their packs.
func (s *Store) ScheduledPriceChanges(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM price_changes WHERE state = 'scheduled'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store.ScheduledPriceChanges: %w", err)
	}
	return n, nil
}

// ApplyPriceChanges writes every change due at now into its pack. The
// server's own change is logged as topupd.AppliedBySystem.
func (s *Store) ApplyPriceChanges(ctx context.Context, now time.Time) (int, error) {
	var due int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM price_changes WHERE state = 'scheduled' AND effective_at <= $1
		LIMIT 1) x`, ms(now)).Scan(&due); err != nil {
		return 0, fmt.Errorf("store.ApplyPriceChanges: %w", err)
	}
	if due == 0 {
		return 0, nil // no write transaction every few seconds for nothing
	}
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		n, err = s.applyAllDue(ctx, tx, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store.ApplyPriceChanges: %w", err)
	}
	return n, nil
}

// applyAllDue is applyDue for every pack with a change due at now, in pid
// order (the order the packs' row locks are taken in): a write of many
// packs' prices (a pricing rule's) runs it before it reads them.
func (s *Store) applyAllDue(ctx context.Context, tx *sql.Tx, now time.Time) (int, error) {
	pids, err := queryAll(ctx, tx, scanValue[string], `SELECT pid FROM price_changes WHERE state = 'scheduled' AND effective_at <= $1
		ORDER BY pid`, ms(now))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pid := range pids {
		applied, err := s.applyDue(ctx, tx, pid, now)
		if err != nil {
			return 0, err
		}
		if applied {
			n++
		}
	}
	return n, nil
}

// applyDue writes the pack's change due at now, if any, into the pack,
// holding the pack's lock, and reports whether it did: the pack's price
// becomes the change's, the change applied (with the price it replaced),
// told to the accounts whose catalog row it changes and logged as the
// server's own change. A write of the pack's price runs it first, so that
// a due change never overwrites a price set after it took effect.
func (s *Store) applyDue(ctx context.Context, tx *sql.Tx, pid string, now time.Time) (bool, error) {
	p, err := s.lockPack(ctx, tx, pid)
	if topupd.CodeOf(err) == topupd.ENotFound {
		return false, nil
	} else if err != nil {
		return false, err
	}
	c, err := scanPriceChange(tx.QueryRowContext(ctx, `SELECT `+priceChangeColumns+` FROM price_changes
		WHERE pid = $1 AND state = 'scheduled' AND effective_at <= $2`, pid, ms(now)))
	if isNoRows(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE price_changes SET state = 'applied', old_price = $2, applied_at = $3 WHERE seq = $1`,
		c.Seq, int64(p.Price), ms(now)); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE packs SET price = $2 WHERE pid = $1`, pid, int64(c.Price)); err != nil {
		return false, err
	}
	if err := s.priceChangeTold(ctx, tx, &p, c.Price); err != nil {
		return false, err
	}
	return true, s.recordChange(ctx, tx, topupd.AppliedBySystem(&c, p.Price))
}

// priceChangeTold writes what scheduling, deleting or applying a change of
// p's list price (as it stands) to price tells: the order path's cached
// terms are stale, every catalog shows the pack changed (its next price,
// or its price), and while the pack is on sale the live accounts whose
// row changes are told (packs.changed, their catalog.changed).
func (s *Store) priceChangeTold(ctx context.Context, tx *sql.Tx, p *topupd.Pack, price topupd.Money) error {
	if err := bumpTerms(ctx, tx); err != nil {
		return err
	}
	if err := s.mark(ctx, tx, "", p.PID, true); err != nil {
		return err
	}
	if ok, err := onSale(ctx, tx, p.PID); err != nil || !ok {
		return err
	}
	prices, err := s.packPrices(ctx, tx, p.PID)
	if err != nil {
		return err
	}
	accounts, err := queryAll(ctx, tx, func(r scanner) (topupd.AccountTier, error) {
		var a topupd.AccountTier
		err := r.Scan(&a.ID, &a.Tier)
		return a, err
	}, `SELECT id, COALESCE(tier, '') FROM accounts WHERE sandbox_of IS NULL ORDER BY id`)
	if err != nil {
		return err
	}
	told := topupd.Repriced(p, price, &prices, accounts)
	if len(told) == 0 {
		return nil
	}
	return s.tellPacks(ctx, tx, &topupd.PacksChangedData{PIDs: []string{p.PID}, Accounts: told})
}

// scheduledPrice reads the price of the pack's change still to be written
// (nil for none): the cost guard's scheduled price (packPrices). A pack's
// write has written a change that took effect first (applyDue).
func scheduledPrice(ctx context.Context, tx *sql.Tx, pid string) (*topupd.Money, error) {
	var price topupd.Money
	err := tx.QueryRowContext(ctx, `SELECT price FROM price_changes WHERE pid = $1 AND state = 'scheduled'`, pid).Scan(&price)
	if isNoRows(err) {
		return nil, nil
	}
	return &price, err
}
