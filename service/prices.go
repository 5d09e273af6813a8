package service

import (
	"context"

	"github.com/topupd/topupd"
)

// AccountPrices is what one account pays for every pack.
type AccountPrices struct {
	AccountID string
	// Tier is the account's tier, "" for none.
	Tier   string
	Prices []AccountPrice
}

// AccountPrice is what one account pays for one pack, and why.
type AccountPrice struct {
	PID   string
	Price topupd.Money
	// Source is where the price comes from: topupd.PriceOwn, PriceTier,
	// PriceMarkup or PricePack.
	Source string
	// PackPrice is the pack's own price.
	PackPrice topupd.Money
	// Cost is what the pack costs the business, nil when not known.
	Cost *topupd.Money
}

// AccountPrices lists what the account pays for every pack, and where
// each price comes from: its own price, its tier's, the tier's markup on
// cost, or the pack's price.
func (s *Service) AccountPrices(ctx context.Context, a Actor, accountID string) (AccountPrices, error) {
	if err := s.accountReadable(a, accountID); err != nil {
		return AccountPrices{}, err
	}
	acct, err := s.d.Store.Account(ctx, accountID)
	if err != nil {
		return AccountPrices{}, err
	}
	book, err := s.d.Store.PriceBook(ctx, acct.ID)
	if err != nil {
		return AccountPrices{}, err
	}
	packs, err := s.d.Store.Packs(ctx)
	if err != nil {
		return AccountPrices{}, err
	}
	out := AccountPrices{AccountID: acct.ID, Tier: acct.Tier, Prices: make([]AccountPrice, len(packs))}
	for i := range packs {
		p := &packs[i]
		price, source := book.Quote(p)
		out.Prices[i] = AccountPrice{PID: p.PID, Price: price, Source: source, PackPrice: p.Price}
		if p.Cost > 0 {
			out.Prices[i].Cost = &p.Cost
		}
	}
	return out, nil
}

// SetAccountPrice sets the account's own price for one pack: above 0, and
// not below the pack's highest cost unless allowBelowCost (BELOW_COST).
func (s *Service) SetAccountPrice(ctx context.Context, a Actor, accountID, pid string, price topupd.Money, allowBelowCost bool) error {
	if err := Allowed(a, OpSetAccountPrice); err != nil {
		return err
	}
	if err := a.Own(accountID); err != nil {
		return err
	}
	if price <= 0 {
		return topupd.Errorf(topupd.EInvalidBody, "priceUsd is required and must be above 0")
	}
	if err := topupd.WholeCents("priceUsd", price); err != nil {
		return err
	}
	ctx = topupd.WithCostGuard(ctx, topupd.CostGuard{AllowBelowCost: allowBelowCost}) // checked against the pack as it stands
	if err := s.d.Store.SetAccountPrice(ctx, update(a, OpSetAccountPrice, accountID), accountID, pid, price); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}

// DeleteAccountPrice removes the account's own price for one pack: its
// tier or the pack's price applies again.
func (s *Service) DeleteAccountPrice(ctx context.Context, a Actor, accountID, pid string) error {
	if err := Allowed(a, OpDeleteAccountPrice); err != nil {
		return err
	}
	if err := a.Own(accountID); err != nil {
		return err
	}
	if err := s.d.Store.DeleteAccountPrice(ctx, change(a, OpDeleteAccountPrice, accountID), accountID, pid); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}

// Tiers lists every price tier, by name.
func (s *Service) Tiers(ctx context.Context, a Actor) ([]topupd.Tier, error) {
	if err := s.accountReadable(a, ""); err != nil {
		return nil, err
	}
	return s.d.Store.Tiers(ctx)
}

// PutTier creates or replaces a tier (t.Name names it): what t leaves
// out, it clears; a RoundTo of 0 is the default, a cent. A tier that prices a pack below its cost is BELOW_COST
// unless allowBelowCost.
func (s *Service) PutTier(ctx context.Context, a Actor, t topupd.Tier, allowBelowCost bool) (topupd.Tier, error) {
	if err := Allowed(a, OpPutTier); err != nil {
		return topupd.Tier{}, err
	}
	if err := a.Own(""); err != nil {
		return topupd.Tier{}, err
	}
	t.UpdatedAt = s.d.Now()
	if t.RoundTo == 0 {
		t.RoundTo = topupd.Cent // the default: whole cents
	}
	if err := t.Validate(); err != nil {
		return topupd.Tier{}, err
	}
	ctx = topupd.WithCostGuard(ctx, topupd.CostGuard{AllowBelowCost: allowBelowCost}) // checked against the packs as they stand
	stored, err := s.d.Store.PutTier(ctx, change(a, OpPutTier, t.Name), t)
	if err != nil {
		return topupd.Tier{}, err
	}
	s.changed(ctx)
	return stored, nil
}
