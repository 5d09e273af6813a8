package sqlstore

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// The cost guard (back-office.md, section 4 (b)): a pack's write that
// raises its cost above a price it is sold at, a tier's write and an
// account's own price below a pack's cost are refused in the write's
// transaction, holding the packs' row locks, so that a price and a cost
// changed at once cannot pass each other's check.

// percentOrNull stores an optional percentage.
func percentOrNull(p *topupd.Percent) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

// nullPercent reads an optional percentage.
func nullPercent(n sql.NullInt64) *topupd.Percent {
	if !n.Valid {
		return nil
	}
	p := topupd.Percent(n.Int64)
	return &p
}

// guardCost checks a write of p (old as stored, nil for a new pack) that
// asks for the guard (topupd.CostGuard) without allowing prices below the
// cost: a price it sets below the pack's cost is 400 BELOW_COST; a cost
// it raises above a price the pack is sold at (its own, a tier's, an
// account's) is 409 BELOW_COST with those prices.
func (s *Store) guardCost(ctx context.Context, tx *sql.Tx, old, p *topupd.Pack) error {
	g := topupd.CostGuardOf(ctx)
	if g == nil || g.AllowBelowCost {
		return nil
	}
	if old == nil || p.Price != old.Price || g.PriceSet {
		if err := topupd.CheckCost(p.Price, p.HighestCost(), false); err != nil {
			return err
		}
	}
	if old == nil || p.HighestCost() <= old.HighestCost() {
		return nil
	}
	prices, err := s.packPrices(ctx, tx, p.PID)
	if err != nil {
		return err
	}
	if under := topupd.Undercuts(p, &prices); len(under) > 0 {
		return topupd.CostRaised(p, under)
	}
	return nil
}

// packPrices reads the prices a pack is sold at besides its own: every
// tier's, by name, and every account's own, by account.
func (s *Store) packPrices(ctx context.Context, tx *sql.Tx, pid string) (topupd.PackPrices, error) {
	var out topupd.PackPrices
	err := eachRow(ctx, tx, func(r scanner) error {
		var markup, off, listed sql.NullInt64
		t := topupd.Tier{Prices: map[string]topupd.Money{}}
		if err := r.Scan(&t.Name, &markup, &off, &t.RoundTo, &listed); err != nil {
			return err
		}
		t.Markup, t.PercentOff = nullPercent(markup), nullPercent(off)
		if listed.Valid {
			t.Prices[pid] = topupd.Money(listed.Int64)
		}
		out.Tiers = append(out.Tiers, t)
		return nil
	}, `SELECT t.name, t.markup, t.percent_off, t.round_to, tp.price FROM tiers t
		LEFT JOIN tier_prices tp ON tp.tier = t.name AND tp.pid = $1 ORDER BY t.name`, pid)
	if err != nil {
		return out, err
	}
	err = eachRow(ctx, tx, func(r scanner) error {
		var o topupd.AccountPrice
		if err := r.Scan(&o.AccountID, &o.Price); err != nil {
			return err
		}
		out.Own = append(out.Own, o)
		return nil
	}, `SELECT account_id, price FROM account_prices WHERE pid = $1 ORDER BY account_id`, pid)
	if err != nil {
		return out, err
	}
	out.Scheduled, err = scheduledPrice(ctx, tx, pid) // price_changes.go
	return out, err
}

// checkTierCosts is topupd.CheckTierCosts against the packs as they
// stand, holding their row locks.
func (s *Store) checkTierCosts(ctx context.Context, tx *sql.Tx, t *topupd.Tier, allowBelowCost bool) error {
	packs, err := queryAll(ctx, tx, scanPack, `SELECT `+packColumns+` FROM packs ORDER BY pid`+s.d.LockRow)
	if err != nil {
		return err
	}
	return topupd.CheckTierCosts(t, packs, allowBelowCost)
}

// checkOwnPrice refuses, as 400 BELOW_COST unless allowed, an account's
// own price below the pack's cost as it stands, holding the pack's row
// lock; an unknown pack is NOT_FOUND.
func (s *Store) checkOwnPrice(ctx context.Context, tx *sql.Tx, pid string, price topupd.Money) error {
	p, err := scanPack(tx.QueryRowContext(ctx, `SELECT `+packColumns+` FROM packs WHERE pid = $1`+s.d.LockRow, pid))
	if isNoRows(err) {
		return topupd.Errorf(topupd.ENotFound, "pack %s", pid)
	} else if err != nil {
		return err
	}
	g := topupd.CostGuardOf(ctx)
	if g == nil {
		return nil
	}
	return topupd.CheckCost(price, p.HighestCost(), g.AllowBelowCost)
}
