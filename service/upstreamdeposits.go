package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// UpstreamDepositsCursor is the kind of the cursors of an upstream's
// deposits (ListCursor).
const UpstreamDepositsCursor = "u"

// AddUpstreamDeposit records money we sent a supplier, sent at at (nil:
// now): once per upstream and reference, a repeat answering the first
// deposit with repeated set and recording nothing. NOT_FOUND for an
// unknown upstream.
func (s *Service) AddUpstreamDeposit(ctx context.Context, a Actor, upstream string, amount topupd.Money, reference string, at *time.Time) (topupd.UpstreamDeposit, bool, error) {
	if err := Allowed(a, OpAddUpstreamDeposit); err != nil {
		return topupd.UpstreamDeposit{}, false, err
	}
	now := s.d.Now().UTC().Truncate(time.Millisecond)
	d := topupd.UpstreamDeposit{ID: topupd.NewID("upd_"), Upstream: upstream, Amount: amount, Reference: reference, At: now,
		CreatedAt: now, Operator: a.Operator}
	if at != nil {
		d.At = at.UTC().Truncate(time.Millisecond)
	}
	if err := d.Validate(); err != nil {
		return d, false, err
	}
	return s.d.Store.AddUpstreamDeposit(ctx, update(a, OpAddUpstreamDeposit, upstream), d)
}

// UpstreamDeposits reads a page of an upstream's deposits, newest first:
// NOT_FOUND for an upstream that is not configured and has none.
func (s *Service) UpstreamDeposits(ctx context.Context, a Actor, q topupd.UpstreamDepositsQuery) ([]topupd.UpstreamDeposit, *topupd.ListKey, error) {
	if err := readCatalog(a); err != nil {
		return nil, nil, err
	}
	if q.Limit <= 0 || q.Limit > MaxPage {
		q.Limit = DefaultPage
	}
	want := q.Limit
	q.Limit++
	out, err := s.d.Store.UpstreamDeposits(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	if len(out) == 0 && q.Before == nil {
		if _, err := s.d.Store.Upstream(ctx, q.Upstream); err != nil {
			return nil, nil, err
		}
	}
	var next *topupd.ListKey
	if len(out) > want {
		out = out[:want]
		last := out[want-1]
		next = &topupd.ListKey{At: last.At, Seq: last.Seq}
	}
	return out, next, nil
}
