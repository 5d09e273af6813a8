// Package sim is topupd's built-in stand-in supplier, for demos and tests. It
// behaves as the operator contract documents, the way payment processors
// document their test card numbers:
//
//   - a top-up whose userId starts with 9999 fails with INVALID PLAYER;
//   - any other top-up completes simDelayMs after placement;
//   - every call takes simCallMs, as a slow supplier's would;
//   - a player check finds a userId starting with 9999 not valid, and any
//     other valid, named Player followed by its last 4 characters.
//
// It keeps no state of its own: an order's outcome follows from the order and
// the settings, so it survives restarts like the orders do.
package sim

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// InvalidPlayerPrefix starts the user ids that sim refuses.
const InvalidPlayerPrefix = topupd.SimInvalidPlayerPrefix

// InvalidPlayer is the error of an order sim refuses.
const InvalidPlayer = topupd.InvalidPlayer

// Settings gives the current simDelayMs and simCallMs.
type Settings interface {
	Settings(ctx context.Context) (topupd.Settings, error)
}

// Provider is the sim supplier.
type Provider struct {
	settings Settings
	now      func() time.Time
}

// New returns a sim provider reading its delays from settings.
func New(settings Settings, now func() time.Time) *Provider {
	if now == nil {
		now = time.Now
	}
	return &Provider{settings: settings, now: now}
}

// Submit hands the order to sim; sim answers as Status would.
func (p *Provider) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	return p.Status(ctx, o)
}

// Status says how the order stands: pending until simDelayMs after placement,
// then failed for a 9999 player and completed for anyone else.
func (p *Provider) Status(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	st, err := p.call(ctx)
	if err != nil {
		return topupd.Outcome{}, err
	}
	due := o.CreatedAt.Add(topupd.SimDelay(st))
	if p.now().Before(due) {
		return topupd.Outcome{State: topupd.OutcomePending, RetryAt: due}, nil
	}
	if topupd.SimRefuses(o.Fields) {
		return topupd.Outcome{State: topupd.OutcomeFailed, Message: InvalidPlayer}, nil
	}
	return topupd.Outcome{State: topupd.OutcomeCompleted}, nil
}

// CheckPlayer checks a player by sim's rules (Check), after simCallMs.
func (p *Provider) CheckPlayer(ctx context.Context, _ topupd.Supplier, f topupd.AccountFields) (topupd.PlayerCheck, error) {
	if _, err := p.call(ctx); err != nil {
		return topupd.PlayerCheck{}, err
	}
	return Check(f), nil
}

// Check is sim's player check, which every sandbox check follows too: a
// userId starting with 9999 is not valid; any other is valid, with the
// nickname Player followed by its last 4 characters.
func Check(f topupd.AccountFields) topupd.PlayerCheck {
	if topupd.SimRefuses(f) {
		return topupd.PlayerCheck{Supported: true}
	}
	r := []rune(f.UserID)
	return topupd.PlayerCheck{Supported: true, Valid: true, Nickname: "Player" + string(r[max(len(r)-4, 0):])}
}

// call reads the settings and takes simCallMs, as every call of sim does.
func (p *Provider) call(ctx context.Context) (topupd.Settings, error) {
	st, err := p.settings.Settings(ctx)
	if err != nil {
		return st, err
	}
	if st.SimCallMs > 0 {
		t := time.NewTimer(time.Duration(st.SimCallMs) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return st, ctx.Err()
		}
	}
	return st, nil
}
