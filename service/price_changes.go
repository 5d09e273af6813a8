package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// The operations on scheduled prices (back-office.md, section 4 (e)): the
// owner's and finance's; every role reads them. The server writes a change
// that took effect into its pack by itself (the watch, through the store's
// ApplyPriceChanges), as operator system (topupd.AppliedBySystem).
const (
	// OpSchedulePriceChange schedules a pack's list price to change.
	OpSchedulePriceChange Op = "price-change.create"
	// OpDeletePriceChange deletes a change that has not taken effect.
	OpDeletePriceChange Op = "price-change.delete"
)

// priceChangeOps are the permissions of the operations on scheduled
// prices: each change shows in the catalog (its next price), so it is told
// as a catalog change.
var priceChangeOps = map[Op]rule{
	OpSchedulePriceChange: {topupd.PermPrices, topupd.CatalogChanged},
	OpDeletePriceChange:   {topupd.PermPrices, topupd.CatalogChanged},
}

// SchedulePriceChange schedules a pack's list price to become price at
// effectiveAt (kept to the millisecond), at least an hour from now:
// INVALID_BODY, NOT_FOUND for an unknown pack, CONFLICT while the pack has
// a change scheduled, BELOW_COST for a price below the pack's cost unless
// allowBelowCost.
func (s *Service) SchedulePriceChange(ctx context.Context, a Actor, pid string, price topupd.Money, effectiveAt time.Time,
	allowBelowCost bool) (topupd.PriceChange, error) {
	if err := Allowed(a, OpSchedulePriceChange); err != nil {
		return topupd.PriceChange{}, err
	}
	now := time.UnixMilli(s.d.Now().UnixMilli()).UTC()
	c := topupd.PriceChange{ID: topupd.NewID("pch_"), PID: pid, Price: price, State: topupd.PriceChangeScheduled, CreatedAt: now,
		Operator: a.Operator}
	if !effectiveAt.IsZero() {
		c.EffectiveAt = time.UnixMilli(effectiveAt.UnixMilli()).UTC()
	}
	if err := topupd.CheckPriceChange(&c, now); err != nil {
		return c, err
	}
	ctx = topupd.WithCostGuard(ctx, topupd.CostGuard{AllowBelowCost: allowBelowCost}) // checked against the pack's cost as it stands
	return s.d.Store.SchedulePriceChange(ctx, change(a, OpSchedulePriceChange, c.ID), c)
}

// DeletePriceChange deletes a change that has not taken effect: NOT_FOUND,
// or PRICE_CHANGE_APPLIED from its effectiveAt on, written into its pack
// or not.
func (s *Service) DeletePriceChange(ctx context.Context, a Actor, id string) (topupd.PriceChange, error) {
	if err := Allowed(a, OpDeletePriceChange); err != nil {
		return topupd.PriceChange{}, err
	}
	return s.d.Store.DeletePriceChange(ctx, change(a, OpDeletePriceChange, id), id, s.d.Now())
}

// PriceChangePage is one page of price changes, soonest first, and the
// time their states are read at (topupd.PriceChange.StateAt).
type PriceChangePage struct {
	Changes []topupd.PriceChange
	Now     time.Time
	// Next is where the next page starts (its query's After); nil on the
	// last page.
	Next *topupd.ListKey
}

// PriceChanges reads the page of price changes q selects, by effectiveAt:
// q.Limit is 1 to MaxPage (DefaultPage when 0); q.State, when set, is
// scheduled or applied (INVALID_REQUEST otherwise), as at now.
func (s *Service) PriceChanges(ctx context.Context, a Actor, q topupd.PriceChangesQuery) (PriceChangePage, error) {
	if err := readCatalog(a); err != nil {
		return PriceChangePage{}, err
	}
	switch q.State {
	case "", topupd.PriceChangeScheduled, topupd.PriceChangeApplied:
	default:
		return PriceChangePage{}, topupd.Errorf(topupd.EInvalidRequest, "state: scheduled or applied")
	}
	limit, err := pageLength(q.Limit)
	if err != nil {
		return PriceChangePage{}, err
	}
	q.Now, q.Limit = s.d.Now(), limit+1 // one more than asked tells whether a next page exists
	list, err := s.d.Store.PriceChanges(ctx, q)
	if err != nil {
		return PriceChangePage{}, err
	}
	page := PriceChangePage{Now: q.Now}
	if len(list) > limit {
		list = list[:limit]
		last := list[len(list)-1]
		page.Next = &topupd.ListKey{At: last.EffectiveAt, Seq: last.Seq}
	}
	page.Changes = list
	return page, nil
}
