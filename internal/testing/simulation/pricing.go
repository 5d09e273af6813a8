package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// simTier is the one price tier the operator keeps and moves accounts onto
// and off: its own prices, and now and then a markup on the packs' costs.
const simTier = "gold"

// priceFor is what the model expects account to pay for one unit of pid:
// its own price, else its tier's, else its tier's markup on the pack's
// cost, else the pack's price, each as last set.
func (m *model) priceFor(account, pid string) topupd.Money {
	account, _ = topupd.LiveID(account) // a sandbox pays its account's prices
	if p, ok := m.own[account][pid]; ok {
		return p
	}
	if m.onTier[account] {
		if p, ok := m.tier[pid]; ok {
			return p
		}
		if p, ok := m.markedUp(packNamed(pid).Cost); ok {
			return p
		}
	}
	return m.prices[pid]
}

// markups are the tier's markups the operator picks from, in
// topupd.Percent's units: a discount under cost, none, and two above that
// leave a fraction of a unit on every cost (rounded up, to the unit or the
// tier's step).
var markups = []topupd.Percent{-200_000, 0, 125_000, 333_333}

// repriceStep has the operator change one of the prices that override a
// pack's: the tier's prices, an account's tier, or an account's own price.
func (w *World) repriceStep(ctx context.Context) {
	acct := w.rng.IntN(len(w.model.accounts))
	id := w.model.accounts[acct]
	p := packs[w.rng.IntN(len(packs))]
	price := topupd.Money(100 * (1 + w.rng.IntN(5))) // whole cents
	switch w.rng.IntN(4) {
	case 0: // the tier's prices, for a random half of the packs, and a markup or none
		t := topupd.Tier{Name: simTier, Prices: map[string]topupd.Money{}}
		for _, q := range packs {
			if w.rng.IntN(2) == 0 {
				t.Prices[q.PID] = topupd.Money(100 * (1 + w.rng.IntN(5)))
			}
		}
		if w.rng.IntN(2) == 0 {
			m := markups[w.rng.IntN(len(markups))]
			t.Markup, t.RoundTo = &m, topupd.Money([]int{0, 0, 100, 500}[w.rng.IntN(4)]) // 0: the default, a cent
		}
		allow := w.rng.IntN(4) == 0
		below := tierBelowCost(t.Prices, t.Markup, t.RoundTo)
		_, _, err := untilAnswered(func() (topupd.Tier, error) { return w.svc.PutTier(ctx, w.root, t, allow) })
		if err == nil {
			w.model.tier, w.model.tierMarkup, w.model.tierRound = t.Prices, t.Markup, t.RoundTo
		}
		w.judgeBelowCost("tier "+simTier, below, allow, err)
		w.logf("operator sets tier %s to %d prices, markup %s round %v (allowing below cost: %v): %v",
			simTier, len(t.Prices), showPercent(t.Markup), t.RoundTo, allow, errText(err))
	case 1: // an account onto the tier, or off it
		on := !w.model.onTier[id]
		var tier *string
		if on {
			name := simTier
			tier = &name
		}
		_, _, err := untilAnswered(func() (service.Account, error) {
			return w.svc.UpdateAccount(ctx, w.root, id, topupd.AccountPatch{Tier: &tier})
		})
		if err == nil {
			w.model.onTier[id] = on
		}
		w.logf("operator puts shop%d on tier %v: %v", acct+1, on, errText(err))
	case 2: // an account's own price
		allow := w.rng.IntN(4) == 0
		_, _, err := untilAnswered(func() (struct{}, error) {
			return struct{}{}, w.svc.SetAccountPrice(ctx, w.root, id, p.PID, price, allow)
		})
		w.judgeBelowCost("shop's own price of "+p.PID, price < highestCost(p.PID), allow, err)
		if err == nil {
			if w.model.own[id] == nil {
				w.model.own[id] = map[string]topupd.Money{}
			}
			w.model.own[id][p.PID] = price
		}
		w.logf("operator prices %s at %v for shop%d: %v", p.PID, price, acct+1, errText(err))
	default: // an account's own price removed
		_, _, err := untilAnswered(func() (struct{}, error) {
			return struct{}{}, w.svc.DeleteAccountPrice(ctx, w.root, id, p.PID)
		})
		if err == nil || topupd.CodeOf(err) == topupd.ENotFound {
			delete(w.model.own[id], p.PID)
		}
		w.logf("operator removes shop%d's own price of %s: %v", acct+1, p.PID, errText(err))
	}
}

// PutTier is the store's, at a point the admin node may crash.
func (s opStore) PutTier(ctx context.Context, ch *topupd.Change, t topupd.Tier) (topupd.Tier, error) {
	return opCall(s, "PutTier", func() (topupd.Tier, error) { return s.Store.PutTier(ctx, ch, t) })
}

// SetAccountPrice is the store's, at a point the admin node may crash.
func (s opStore) SetAccountPrice(ctx context.Context, ch *topupd.Change, accountID, pid string, price topupd.Money) error {
	_, err := opCall(s, "SetAccountPrice", func() (struct{}, error) {
		return struct{}{}, s.Store.SetAccountPrice(ctx, ch, accountID, pid, price)
	})
	return err
}

// DeleteAccountPrice is the store's, at a point the admin node may crash.
func (s opStore) DeleteAccountPrice(ctx context.Context, ch *topupd.Change, accountID, pid string) error {
	_, err := opCall(s, "DeleteAccountPrice", func() (struct{}, error) {
		return struct{}{}, s.Store.DeleteAccountPrice(ctx, ch, accountID, pid)
	})
	return err
}

// describe prints where the model's price for one order comes from.
func (m *model) describe(account, pid string) string {
	account, _ = topupd.LiveID(account)
	switch _, own := m.own[account][pid]; {
	case own:
		return "the account's own price"
	case m.onTier[account] && m.tier[pid] != 0:
		return fmt.Sprintf("tier %s's price", simTier)
	}
	if _, ok := m.markedUp(packNamed(pid).Cost); ok && m.onTier[account] {
		return fmt.Sprintf("tier %s's markup of %s on the cost %v", simTier, showPercent(m.tierMarkup), packNamed(pid).Cost.Dollars())
	}
	return "the pack's price"
}

// showPercent prints a markup, or none.
func showPercent(p *topupd.Percent) string {
	if p == nil {
		return "none"
	}
	return topupd.Money(*p).String() + "%"
}
