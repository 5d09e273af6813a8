package service

import (
	"context"

	"github.com/topupd/topupd"
)

// ActionPage is one page of the action log, newest first.
type ActionPage struct {
	Actions []topupd.Action
	// Next is where the next page starts (its query's Before); nil on the
	// last page.
	Next *topupd.ListKey
}

// Actions reads the page of the action log q selects: q.Limit is 1 to
// MaxPage (DefaultPage when 0).
func (s *Service) Actions(ctx context.Context, a Actor, q topupd.ActionsQuery) (ActionPage, error) {
	if err := Allowed(a, OpRead); err != nil {
		return ActionPage{}, err
	}
	limit, err := pageLength(q.Limit)
	if err != nil {
		return ActionPage{}, err
	}
	q.Limit = limit + 1 // one more than asked tells whether a next page exists
	acts, err := s.d.Store.Actions(ctx, q)
	if err != nil {
		return ActionPage{}, err
	}
	var page ActionPage
	if len(acts) > limit {
		acts = acts[:limit]
		last := acts[len(acts)-1]
		page.Next = &topupd.ListKey{At: last.At, Seq: last.ID}
	}
	page.Actions = acts
	return page, nil
}
