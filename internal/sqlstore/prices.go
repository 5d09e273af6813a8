package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// checkTier refuses an account's tier that names no tier.
func (s *Store) checkTier(ctx context.Context, tx *sql.Tx, name string) error {
	if name == "" {
		return nil
	}
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM tiers WHERE name = $1`, name).Scan(&one)
	if isNoRows(err) {
		return topupd.Errorf(topupd.EInvalidBody, "tier %q does not exist (PUT /admin/tiers/%s first)", name, name)
	}
	return err
}

// PutTier creates or replaces a tier, its prices with it.
func (s *Store) PutTier(ctx context.Context, ch *topupd.Change, t topupd.Tier) (topupd.Tier, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Tier
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		before := map[string]any{}
		var was *topupd.Tier
		if old, err := s.tier(ctx, tx, t.Name); err == nil {
			before, was = old.LogFields(), &old
		} else if topupd.CodeOf(err) != topupd.ENotFound {
			return err
		}
		if g := topupd.CostGuardOf(ctx); g != nil {
			if err := s.checkTierCosts(ctx, tx, &t, g.AllowBelowCost); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tiers (name, markup, percent_off, round_to, updated_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (name) DO UPDATE SET markup = excluded.markup, percent_off = excluded.percent_off, round_to = excluded.round_to,
				updated_at = excluded.updated_at`,
			t.Name, percentOrNull(t.Markup), percentOrNull(t.PercentOff), int64(t.RoundTo), ms(t.UpdatedAt)); err != nil {
			return err
		}
		if err := s.tierWritten(ctx, tx, was, &t); err != nil {
			return err
		}
		// Only the prices that change are written: a change of one price
		// marks that pack alone for the tier's accounts (catalog_marks).
		old, err := queryMap[string, topupd.Money](ctx, tx, `SELECT pid, price FROM tier_prices WHERE tier = $1`, t.Name)
		if err != nil {
			return err
		}
		for pid := range old {
			if _, keep := t.Prices[pid]; keep {
				continue
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM tier_prices WHERE tier = $1 AND pid = $2`, t.Name, pid); err != nil {
				return err
			}
			if err := s.tierPriceWritten(ctx, tx, t.Name, pid); err != nil {
				return err
			}
		}
		for pid, price := range t.Prices {
			if was, ok := old[pid]; ok && was == price {
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO tier_prices (tier, pid, price) VALUES ($1, $2, $3)
				ON CONFLICT (tier, pid) DO UPDATE SET price = excluded.price`, t.Name, pid, int64(price)); err != nil {
				return err
			}
			if err := s.tierPriceWritten(ctx, tx, t.Name, pid); err != nil {
				return err
			}
		}
		if out, err = s.tier(ctx, tx, t.Name); err != nil {
			return err
		}
		noteChange(ctx, "", before, out.LogFields())
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.PutTier %s: %w", t.Name, err)
	}
	return out, nil
}

// Tiers returns every tier by name, with its prices and how many accounts
// sit on it.
func (s *Store) Tiers(ctx context.Context) ([]topupd.Tier, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store.Tiers: %w", err)
	}
	defer tx.Rollback()
	names, err := queryAll(ctx, tx, scanValue[string], `SELECT name FROM tiers ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store.Tiers: %w", err)
	}
	out := make([]topupd.Tier, 0, len(names))
	for _, n := range names {
		t, err := s.tier(ctx, tx, n)
		if err != nil {
			return nil, fmt.Errorf("store.Tiers: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// tier reads one tier and its prices, or ENotFound.
func (s *Store) tier(ctx context.Context, q querier, name string) (topupd.Tier, error) {
	t := topupd.Tier{Name: name, Prices: map[string]topupd.Money{}}
	var markup, off sql.NullInt64
	var updated int64
	err := q.QueryRowContext(ctx, `SELECT markup, percent_off, round_to, updated_at, (SELECT COUNT(*) FROM accounts WHERE tier = $1)
		FROM tiers WHERE name = $1`, name).Scan(&markup, &off, &t.RoundTo, &updated, &t.Accounts)
	if isNoRows(err) {
		return t, topupd.Errorf(topupd.ENotFound, "tier %s", name)
	} else if err != nil {
		return t, err
	}
	t.Markup, t.PercentOff = nullPercent(markup), nullPercent(off)
	t.UpdatedAt = fromMS(updated)
	t.Prices, err = queryMap[string, topupd.Money](ctx, q, `SELECT pid, price FROM tier_prices WHERE tier = $1`, name)
	return t, err
}

// SetAccountPrice sets one account's own price for one pack; an unknown
// account or pack is ENotFound.
func (s *Store) SetAccountPrice(ctx context.Context, ch *topupd.Change, accountID, pid string, price topupd.Money) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := exists(ctx, tx, `SELECT 1 FROM accounts WHERE id = $1`, accountID, "account"); err != nil {
			return err
		}
		if err := s.checkOwnPrice(ctx, tx, pid, price); err != nil {
			return err
		}
		before := map[string]any{}
		var old topupd.Money
		changed := true
		if err := tx.QueryRowContext(ctx, `SELECT price FROM account_prices WHERE account_id = $1 AND pid = $2`, accountID, pid).Scan(&old); err == nil {
			before["priceUsd"], changed = old, old != price
		} else if !isNoRows(err) {
			return err
		}
		noteChange(ctx, accountID, before, map[string]any{"pid": pid, "priceUsd": price})
		if _, err := tx.ExecContext(ctx, `INSERT INTO account_prices (account_id, pid, price) VALUES ($1, $2, $3)
			ON CONFLICT (account_id, pid) DO UPDATE SET price = excluded.price`, accountID, pid, int64(price)); err != nil {
			return err
		}
		return s.accountPriceWritten(ctx, tx, accountID, pid, changed)
	})
	if err != nil {
		return fmt.Errorf("store.SetAccountPrice %s %s: %w", accountID, pid, err)
	}
	return nil
}

// DeleteAccountPrice removes one account's own price for one pack; none
// there is ENotFound.
func (s *Store) DeleteAccountPrice(ctx context.Context, ch *topupd.Change, accountID, pid string) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var old topupd.Money
		err := tx.QueryRowContext(ctx, `DELETE FROM account_prices WHERE account_id = $1 AND pid = $2 RETURNING price`, accountID, pid).Scan(&old)
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "account %s has no own price for %s", accountID, pid)
		} else if err != nil {
			return err
		}
		noteChange(ctx, accountID, map[string]any{"pid": pid, "priceUsd": old}, map[string]any{"pid": pid})
		return s.accountPriceWritten(ctx, tx, accountID, pid, true)
	})
	if err != nil {
		return fmt.Errorf("store.DeleteAccountPrice %s %s: %w", accountID, pid, err)
	}
	return nil
}

// exists is ENotFound naming what when query finds no row for id.
func exists(ctx context.Context, tx *sql.Tx, query, id, what string) error {
	var one int
	err := tx.QueryRowContext(ctx, query, id).Scan(&one)
	if isNoRows(err) {
		return topupd.Errorf(topupd.ENotFound, "%s %s", what, id)
	}
	return err
}

// PriceBook reads what decides an account's prices: its own prices and its
// tier (none for an unknown account).
func (s *Store) PriceBook(ctx context.Context, accountID string) (topupd.PriceBook, error) {
	book, _, err := s.terms(ctx, s.read, accountID)
	if err != nil {
		return book, fmt.Errorf("store.PriceBook %s: %w", accountID, err)
	}
	return book, nil
}

// terms reads an account's price book and spending limits, every pack's
// prices (the catalog's read).
func (s *Store) terms(ctx context.Context, q querier, accountID string) (book topupd.PriceBook, limits topupd.Limits, err error) {
	var h termsHead
	err = q.QueryRowContext(ctx, `SELECT a.tier, t.markup, t.percent_off, t.round_to, `+limitColumns("a.")+`
		FROM accounts a LEFT JOIN tiers t ON t.name = a.tier WHERE a.id = $1`, accountID).Scan(h.dest()...)
	if isNoRows(err) {
		return book, limits, nil
	} else if err != nil {
		return book, limits, err
	}
	book, limits = h.terms()
	err = eachRow(ctx, q, func(r scanner) error {
		var which int
		var p string
		var price topupd.Money
		if err := r.Scan(&which, &p, &price); err != nil {
			return err
		}
		setPrice(&book, which == 0, p, price)
		return nil
	}, `SELECT 0, pid, price FROM account_prices WHERE account_id = $1
		UNION ALL SELECT 1, pid, price FROM tier_prices WHERE tier = $2`, accountID, h.tier.String)
	return book, limits, err
}

// orderTerms is terms for one pack, in one statement: what an order reads
// in its transaction.
func (s *Store) orderTerms(ctx context.Context, tx *sql.Tx, accountID, pid string) (book topupd.PriceBook, limits topupd.Limits, err error) {
	var h termsHead
	var own, listed sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT a.tier, t.markup, t.percent_off, t.round_to, `+limitColumns("a.")+`,
		(SELECT price FROM account_prices WHERE account_id = a.id AND pid = $2),
		(SELECT price FROM tier_prices WHERE tier = a.tier AND pid = $2)
		FROM accounts a LEFT JOIN tiers t ON t.name = a.tier WHERE a.id = $1`, accountID, pid).Scan(append(h.dest(), &own, &listed)...)
	if isNoRows(err) {
		return book, limits, nil
	} else if err != nil {
		return book, limits, err
	}
	book, limits = h.terms()
	if own.Valid {
		setPrice(&book, true, pid, topupd.Money(own.Int64))
	}
	if listed.Valid {
		setPrice(&book, false, pid, topupd.Money(listed.Int64))
	}
	return book, limits, nil
}

// setPrice records in a book an own price (own) or its tier's listed
// price of a pack; a listed price without a tier is dropped.
func setPrice(b *topupd.PriceBook, own bool, pid string, price topupd.Money) {
	switch {
	case own:
		if b.Own == nil {
			b.Own = map[string]topupd.Money{}
		}
		b.Own[pid] = price
	case b.Tier != nil:
		b.Tier.Prices[pid] = price
	}
}

// termsHead is an account's row of terms: its tier and limits.
type termsHead struct {
	tier                        sql.NullString
	markup, percentOff, roundTo sql.NullInt64
	limits                      limitsRow
}

func (h *termsHead) dest() []any {
	return append([]any{&h.tier, &h.markup, &h.percentOff, &h.roundTo}, h.limits.dest()...)
}

// terms is the price book (without prices yet) and limits of the row.
func (h *termsHead) terms() (topupd.PriceBook, topupd.Limits) {
	var book topupd.PriceBook
	if h.tier.Valid {
		book.Tier = &topupd.Tier{Name: h.tier.String, RoundTo: topupd.Money(h.roundTo.Int64), Prices: map[string]topupd.Money{},
			Markup: nullPercent(h.markup), PercentOff: nullPercent(h.percentOff)}
	}
	return book, h.limits.limits()
}

// spentToday is what the account's orders of now's UTC day have charged,
// net of refunds, from the day's sales roll-ups.
func (s *Store) spentToday(ctx context.Context, tx *sql.Tx, accountID string, now time.Time) (topupd.Money, error) {
	var spent topupd.Money
	err := tx.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(charged - refunds), 0) AS BIGINT) FROM sales_daily WHERE account_id = $1 AND day = $2`,
		accountID, ms(now)/dayMS).Scan(&spent)
	return spent, err
}
