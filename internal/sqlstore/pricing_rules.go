package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// Pricing rules and held prices (back-office.md, section 4 (c);
// migration 00043).

// ruleColumns are the columns scanRule reads.
const ruleColumns = `name, COALESCE(scope_line, ''), COALESCE(scope_pid, ''), markup, fixed, min_margin, round_to, updated_at`

func scanRule(row scanner) (topupd.PricingRule, error) {
	var r topupd.PricingRule
	var updated int64
	err := row.Scan(&r.Name, &r.Scope.Line, &r.Scope.PID, &r.Markup, &r.Fixed, &r.MinMargin, &r.RoundTo, &updated)
	r.UpdatedAt = fromMS(updated)
	return r, err
}

// rules reads every rule, by name.
func rules(ctx context.Context, q querier) ([]topupd.PricingRule, error) {
	return queryAll(ctx, q, scanRule, `SELECT `+ruleColumns+` FROM pricing_rules ORDER BY name`)
}

// PricingRules returns every rule, by name.
func (s *Store) PricingRules(ctx context.Context) ([]topupd.PricingRule, error) {
	out, err := rules(ctx, s.read)
	if err != nil {
		return nil, fmt.Errorf("store.PricingRules: %w", err)
	}
	return out, nil
}

// PutPricingRule creates or replaces a rule and prices the packs it
// governs at once (never held), holding their row locks; a hold of one of
// them is forgotten. Its scope must name a line or pack that exists
// (INVALID_BODY); a scope another rule has is CONFLICT
// (pricing_rules_scope).
func (s *Store) PutPricingRule(ctx context.Context, ch *topupd.Change, r topupd.PricingRule) (topupd.PricingRule, error) {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := ruleScopeExists(ctx, tx, r.Scope); err != nil {
			return err
		}
		before := map[string]any{}
		if old, err := scanRule(tx.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM pricing_rules WHERE name = $1`, r.Name)); err == nil {
			before = ruleFields(&old)
		} else if !isNoRows(err) {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO pricing_rules (name, scope_line, scope_pid, markup, fixed, min_margin, round_to, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (name) DO UPDATE SET scope_line = excluded.scope_line,
			scope_pid = excluded.scope_pid, markup = excluded.markup, fixed = excluded.fixed, min_margin = excluded.min_margin,
			round_to = excluded.round_to, updated_at = excluded.updated_at`,
			r.Name, nullString(r.Scope.Line), nullString(r.Scope.PID), int64(r.Markup), int64(r.Fixed), int64(r.MinMargin), int64(r.RoundTo),
			ms(r.UpdatedAt))
		if err != nil {
			if s.d.IsUniqueViolation(err) {
				return topupd.Errorf(topupd.EConflict, "another rule has this scope")
			}
			return err
		}
		repriced, err := s.priceByRules(ctx, tx, r.Name)
		if err != nil {
			return err
		}
		after := ruleFields(&r)
		after["repriced"] = repriced
		noteChange(ctx, "", before, after)
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("store.PutPricingRule %s: %w", r.Name, err)
	}
	return r, nil
}

// ruleFields are what the action log shows of a rule.
func ruleFields(r *topupd.PricingRule) map[string]any {
	return map[string]any{"scope": r.Scope, "markupPercent": r.Markup, "fixedUsd": r.Fixed, "minMarginUsd": r.MinMargin, "roundToUsd": r.RoundTo}
}

// ruleScopeExists refuses a scope that names a line or pack that does not
// exist.
func ruleScopeExists(ctx context.Context, tx *sql.Tx, scope topupd.RuleScope) error {
	var one int
	var err error
	switch {
	case scope.Line != "":
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM lines WHERE slug = $1`, scope.Line).Scan(&one)
	case scope.PID != "":
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM packs WHERE pid = $1`, scope.PID).Scan(&one)
	default:
		return nil
	}
	if isNoRows(err) {
		return topupd.Errorf(topupd.EInvalidBody, "scope: no such %s", map[bool]string{true: "line", false: "pack"}[scope.Line != ""])
	}
	return err
}

// priceByRules sets every pack the named rule governs at that rule's
// price, holding the packs' row locks, and forgets their holds; it
// returns the pids repriced.
func (s *Store) priceByRules(ctx context.Context, tx *sql.Tx, name string) ([]string, error) {
	// A scheduled change whose time has passed is written first, so that
	// it never overwrites the rule's price later.
	if _, err := s.applyAllDue(ctx, tx, s.now()); err != nil {
		return nil, err
	}
	all, err := rules(ctx, tx)
	if err != nil {
		return nil, err
	}
	packs, err := queryAll(ctx, tx, scanPack, `SELECT `+packColumns+` FROM packs ORDER BY pid`+s.d.LockRow)
	if err != nil {
		return nil, err
	}
	repriced := []string{}
	for i := range packs {
		p := packs[i]
		r := topupd.RuleFor(&p, all)
		if r == nil || r.Name != name {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM price_holds WHERE pid = $1`, p.PID); err != nil {
			return nil, err
		}
		price, ok := r.PriceFor(p.HighestCost())
		if !ok || price == p.Price {
			continue
		}
		p.Price = price
		if _, err := s.putPack(ctx, tx, &p); err != nil {
			return nil, err
		}
		repriced = append(repriced, p.PID)
	}
	return repriced, nil
}

// priceByRule sets p's price (old as stored) by its pricing rule when
// its cost changed, or when the write asks to reprice (topupd.CostGuard):
// at once when lower, or higher by at most holdAbovePercent of the old
// price, or asked to; otherwise the rise is held (price.held) and the
// price stays. A price the write sets by hand wins; a pinned pack, or one
// without a cost or a rule, keeps its price.
func (s *Store) priceByRule(ctx context.Context, tx *sql.Tx, old, p *topupd.Pack) error {
	g := topupd.CostGuardOf(ctx)
	reprice, byHand := g != nil && g.Reprice, g != nil && g.PriceSet
	if old == nil || (!reprice && (p.HighestCost() == old.HighestCost() || p.Price != old.Price || byHand)) {
		return nil
	}
	all, err := rules(ctx, tx)
	if err != nil || len(all) == 0 {
		return err
	}
	r := topupd.RuleFor(p, all)
	if r == nil {
		return nil
	}
	price, ok := r.PriceFor(p.HighestCost())
	if !ok {
		return nil
	}
	var hold topupd.Percent
	if err := tx.QueryRowContext(ctx, `SELECT hold_above_percent FROM settings WHERE id = 1`).Scan(&hold); err != nil {
		return err
	}
	if reprice || !topupd.Holds(old.Price, price, hold) {
		p.Price = price
		_, err := tx.ExecContext(ctx, `DELETE FROM price_holds WHERE pid = $1`, p.PID)
		return err
	}
	now := s.now()
	_, err = tx.ExecContext(ctx, `INSERT INTO price_holds (pid, rule, cost, old_price, new_price, held_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (pid) DO UPDATE SET rule = excluded.rule, cost = excluded.cost, old_price = excluded.old_price,
		new_price = excluded.new_price, held_at = excluded.held_at`, p.PID, r.Name, int64(p.HighestCost()), int64(old.Price), int64(price), ms(now))
	if err != nil {
		return err
	}
	return emit(ctx, tx, event(&topupd.PriceHeldData{PID: p.PID, Rule: r.Name, Cost: p.HighestCost(), OldPrice: old.Price, NewPrice: price}, "", now))
}

// DeletePricingRule removes a rule; prices stay as they are.
func (s *Store) DeletePricingRule(ctx context.Context, ch *topupd.Change, name string) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		old, err := scanRule(tx.QueryRowContext(ctx, `DELETE FROM pricing_rules WHERE name = $1 RETURNING `+ruleColumns, name))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "pricing rule %s", name)
		} else if err != nil {
			return err
		}
		noteChange(ctx, "", ruleFields(&old), map[string]any{})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.DeletePricingRule %s: %w", name, err)
	}
	return nil
}

// holdColumns are the columns scanHold reads.
const holdColumns = `pid, rule, cost, old_price, new_price, held_at`

func scanHold(row scanner) (topupd.HeldPrice, error) {
	var h topupd.HeldPrice
	var at int64
	err := row.Scan(&h.PID, &h.Rule, &h.Cost, &h.OldPrice, &h.NewPrice, &at)
	h.HeldAt = fromMS(at)
	return h, err
}

// HeldPrices returns every held price, by pid.
func (s *Store) HeldPrices(ctx context.Context) ([]topupd.HeldPrice, error) {
	out, err := queryAll(ctx, s.read, scanHold, `SELECT `+holdColumns+` FROM price_holds ORDER BY pid`)
	if err != nil {
		return nil, fmt.Errorf("store.HeldPrices: %w", err)
	}
	return out, nil
}

// ApplyHeldPrice sets a pack at its held price, holding the pack's row
// lock, and forgets the hold.
func (s *Store) ApplyHeldPrice(ctx context.Context, ch *topupd.Change, pid string) (topupd.Pack, error) {
	ctx = withChange(ctx, ch)
	var p topupd.Pack
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := s.applyDue(ctx, tx, pid, s.now()); err != nil { // never overwritten by an older schedule
			return err
		}
		h, err := s.takeHold(ctx, tx, pid)
		if err != nil {
			return err
		}
		if p, err = scanPack(tx.QueryRowContext(ctx, `SELECT `+packColumns+` FROM packs WHERE pid = $1`+s.d.LockRow, pid)); err != nil {
			return err
		}
		before := map[string]any{"priceUsd": p.Price}
		p.Price = h.NewPrice
		if _, err := s.putPack(ctx, tx, &p); err != nil {
			return err
		}
		noteChange(ctx, "", before, map[string]any{"priceUsd": p.Price, "rule": h.Rule})
		return nil
	})
	if err != nil {
		return p, fmt.Errorf("store.ApplyHeldPrice %s: %w", pid, err)
	}
	return p, nil
}

// DiscardHeldPrice forgets a pack's held price; its price stays.
func (s *Store) DiscardHeldPrice(ctx context.Context, ch *topupd.Change, pid string) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		h, err := s.takeHold(ctx, tx, pid)
		if err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{"heldPriceUsd": h.NewPrice, "rule": h.Rule}, map[string]any{})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.DiscardHeldPrice %s: %w", pid, err)
	}
	return nil
}

// takeHold deletes a pack's hold and returns it: NOT_FOUND without one.
func (s *Store) takeHold(ctx context.Context, tx *sql.Tx, pid string) (topupd.HeldPrice, error) {
	h, err := scanHold(tx.QueryRowContext(ctx, `DELETE FROM price_holds WHERE pid = $1 RETURNING `+holdColumns, pid))
	if isNoRows(err) {
		return h, topupd.Errorf(topupd.ENotFound, "no held price for %s", pid)
	}
	return h, err
}
