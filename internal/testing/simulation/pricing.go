package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// simTier is the one price tier the operator keeps and moves accounts onto
// and off: its own prices only (the simulated packs have no cost, so a
// markup would price nothing).
const simTier = "gold"

// priceFor is what the model expects account to pay for one unit of pid:
// its own price, else its tier's, else the pack's, each as last set.
func (m *model) priceFor(account, pid string) topupd.Money {
	account, _ = topupd.LiveID(account) // a sandbox pays its account's prices
	if p, ok := m.own[account][pid]; ok {
		return p
	}
	if m.onTier[account] {
		if p, ok := m.tier[pid]; ok {
			return p
		}
	}
	return m.prices[pid]
}

// repriceStep has the operator change one of the prices that override a
// pack's: the tier's prices, an account's tier, or an account's own price.
func (w *World) repriceStep(ctx context.Context) {
	acct := w.rng.IntN(len(w.model.accounts))
	id := w.model.accounts[acct]
	p := packs[w.rng.IntN(len(packs))]
	price := topupd.Money(100 + w.rng.IntN(500))
	switch w.rng.IntN(4) {
	case 0: // the tier's prices, for a random half of the packs
		t := topupd.Tier{Name: simTier, Prices: map[string]topupd.Money{}}
		for _, q := range packs {
			if w.rng.IntN(2) == 0 {
				t.Prices[q.PID] = topupd.Money(100 + w.rng.IntN(500))
			}
		}
		_, _, err := untilAnswered(func() (topupd.Tier, error) { return w.svc.PutTier(ctx, w.root, t, false) })
		if err == nil {
			w.model.tier = t.Prices
		}
		w.logf("operator sets tier %s to %d prices: %v", simTier, len(t.Prices), errText(err))
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
		_, _, err := untilAnswered(func() (struct{}, error) {
			return struct{}{}, w.svc.SetAccountPrice(ctx, w.root, id, p.PID, price, false)
		})
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
	return "the pack's price"
}
