package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// OperatorEventsKept is how long the operator events are answered.
const OperatorEventsKept = 30 * 24 * time.Hour

// OperatorEvents reads up to limit operator events (back-office.md
// "Operator events") after the one with id after ("" from the oldest of
// the last 30 days), oldest first, and whether more follow. Every role
// reads them; an unknown after is INVALID_REQUEST.
func (s *Service) OperatorEvents(ctx context.Context, a Actor, after string, limit int) ([]topupd.Event, bool, error) {
	if err := readCatalog(a); err != nil {
		return nil, false, err
	}
	if limit < 1 || limit > 100 {
		return nil, false, topupd.Errorf(topupd.EInvalidRequest, "limit: a whole number from 1 to 100")
	}
	return s.d.Store.OperatorEvents(ctx, after, limit, s.d.Now().Add(-OperatorEventsKept))
}
