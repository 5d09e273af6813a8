package service

import (
	"context"

	"github.com/topupd/topupd"
)

// Pricing rules and held prices (back-office.md, section 4 (c)): the
// owner's and finance's; every operator role reads them.

// The pricing operations.
const (
	// OpPutPricingRule creates or replaces a rule, pricing its packs.
	OpPutPricingRule Op = "pricing-rule.put"
	// OpDeletePricingRule removes a rule.
	OpDeletePricingRule Op = "pricing-rule.delete"
	// OpPreviewPricing previews what rules would price.
	OpPreviewPricing Op = "pricing.preview"
	// OpApplyHeldPrice sets a pack at its held price.
	OpApplyHeldPrice Op = "pricing.held-apply"
	// OpDiscardHeldPrice forgets a held price.
	OpDiscardHeldPrice Op = "pricing.held-discard"
)

// pricingOps are the pricing operations' permissions.
var pricingOps = map[Op]rule{
	OpPutPricingRule:    {perm: topupd.PermPrices},
	OpDeletePricingRule: {perm: topupd.PermPrices},
	OpPreviewPricing:    {perm: topupd.PermPrices},
	OpApplyHeldPrice:    {perm: topupd.PermPrices},
	OpDiscardHeldPrice:  {perm: topupd.PermPrices},
}

// PutPricingRule creates or replaces a rule (r.Name names it; a RoundTo
// of 0 is the default, a cent) and prices the packs it governs at once:
// INVALID_BODY, CONFLICT for a scope another rule has.
func (s *Service) PutPricingRule(ctx context.Context, a Actor, r topupd.PricingRule) (topupd.PricingRule, error) {
	if err := Allowed(a, OpPutPricingRule); err != nil {
		return r, err
	}
	if r.RoundTo == 0 {
		r.RoundTo = topupd.Cent
	}
	if err := r.Validate(); err != nil {
		return r, err
	}
	r.UpdatedAt = s.d.Now()
	out, err := s.d.Store.PutPricingRule(ctx, change(a, OpPutPricingRule, r.Name), r)
	if err == nil {
		s.changed(ctx)
	}
	return out, err
}

// DeletePricingRule removes a rule (NOT_FOUND); prices stay.
func (s *Service) DeletePricingRule(ctx context.Context, a Actor, name string) error {
	if err := Allowed(a, OpDeletePricingRule); err != nil {
		return err
	}
	return s.d.Store.DeletePricingRule(ctx, change(a, OpDeletePricingRule, name), name)
}

// PricingRules reads every rule, by name.
func (s *Service) PricingRules(ctx context.Context, a Actor) ([]topupd.PricingRule, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.d.Store.PricingRules(ctx)
}

// PreviewPricing lists the packs whose price the rules would change: the
// current rules, or these as if saved (each checked as PutPricingRule
// checks it); nothing changes.
func (s *Service) PreviewPricing(ctx context.Context, a Actor, changes []topupd.PricingRule) ([]topupd.RulePreview, error) {
	if err := Allowed(a, OpPreviewPricing); err != nil {
		return nil, err
	}
	for i := range changes {
		if changes[i].RoundTo == 0 {
			changes[i].RoundTo = topupd.Cent
		}
		if err := changes[i].Validate(); err != nil {
			return nil, err
		}
	}
	current, err := s.d.Store.PricingRules(ctx)
	if err != nil {
		return nil, err
	}
	packs, err := s.d.Store.Packs(ctx)
	if err != nil {
		return nil, err
	}
	settings, err := s.d.Store.Settings(ctx)
	if err != nil {
		return nil, err
	}
	return topupd.PreviewRules(packs, topupd.WithRules(current, changes), settings.HoldAbove), nil
}

// HeldPrices reads every held price, by pid.
func (s *Service) HeldPrices(ctx context.Context, a Actor) ([]topupd.HeldPrice, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.d.Store.HeldPrices(ctx)
}

// ApplyHeldPrice sets a pack at its held price (NOT_FOUND without one).
func (s *Service) ApplyHeldPrice(ctx context.Context, a Actor, pid string) (PackView, error) {
	if err := Allowed(a, OpApplyHeldPrice); err != nil {
		return PackView{}, err
	}
	p, err := s.d.Store.ApplyHeldPrice(ctx, change(a, OpApplyHeldPrice, pid), pid)
	if err != nil {
		return PackView{}, err
	}
	s.changed(ctx)
	return s.withStock(ctx, p)
}

// DiscardHeldPrice forgets a pack's held price (NOT_FOUND without one).
func (s *Service) DiscardHeldPrice(ctx context.Context, a Actor, pid string) error {
	if err := Allowed(a, OpDiscardHeldPrice); err != nil {
		return err
	}
	return s.d.Store.DiscardHeldPrice(ctx, change(a, OpDiscardHeldPrice, pid), pid)
}
