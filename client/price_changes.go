package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The states of a scheduled price change.
const (
	PriceChangeScheduled = "scheduled"
	PriceChangeApplied   = "applied"
)

// PriceChange is a pack's list price scheduled to change at EffectiveAt.
type PriceChange struct {
	ID          string    `json:"id"`
	PID         string    `json:"pid"`
	PriceUSD    Money     `json:"priceUsd"`
	EffectiveAt time.Time `json:"effectiveAt"`
	// State is as at the answer: applied from EffectiveAt on.
	State     string    `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
	Operator  string    `json:"operator"`
	// OldPriceUSD (the list price it replaced) and AppliedAt are set once
	// the server has written the change into its pack.
	OldPriceUSD *Money     `json:"oldPriceUsd"`
	AppliedAt   *time.Time `json:"appliedAt"`
}

// NewPriceChange is a change to schedule: PriceUSD in whole cents, at
// least an hour from now.
type NewPriceChange struct {
	PID         string    `json:"pid"`
	PriceUSD    Money     `json:"priceUsd"`
	EffectiveAt time.Time `json:"effectiveAt"`
	// AllowBelowCost schedules a price below the pack's cost.
	AllowBelowCost bool `json:"allowBelowCost,omitempty"`
}

// SchedulePriceChange schedules a pack's list price to change (POST
// /admin/price-changes; owner, finance). It is sent once.
func (a *Admin) SchedulePriceChange(ctx context.Context, c NewPriceChange) (PriceChange, error) {
	var out PriceChange
	err := a.Do(ctx, http.MethodPost, "/admin/price-changes", c, &out)
	return out, err
}

// PriceChangesQuery selects a page of price changes: PID and State
// (scheduled or applied), when set, filter; Cursor is a page's NextCursor;
// Limit 0 is the server's default.
type PriceChangesQuery struct {
	PID, State, Cursor string
	Limit              int
}

// PriceChanges reads a page of price changes, soonest first (GET
// /admin/price-changes), and the cursor of the next page ("" on the last).
func (a *Admin) PriceChanges(ctx context.Context, q PriceChangesQuery) ([]PriceChange, string, error) {
	v := url.Values{}
	for k, s := range map[string]string{"pid": q.PID, "state": q.State, "cursor": q.Cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	path := "/admin/price-changes"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out struct {
		PriceChanges []PriceChange `json:"priceChanges"`
		NextCursor   *string       `json:"nextCursor"`
	}
	if err := a.Do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, "", err
	}
	next := ""
	if out.NextCursor != nil {
		next = *out.NextCursor
	}
	return out.PriceChanges, next, nil
}

// DeletePriceChange deletes a change that has not taken effect (DELETE
// /admin/price-changes/{id}; owner, finance): a *Error with code
// PRICE_CHANGE_APPLIED once it has.
func (a *Admin) DeletePriceChange(ctx context.Context, id string) error {
	return a.Do(ctx, http.MethodDelete, "/admin/price-changes/"+esc(id), nil, nil)
}
