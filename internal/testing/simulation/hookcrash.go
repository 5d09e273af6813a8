package simulation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/notify"
	"github.com/topupd/topupd/webhooks"
)

// hookStore is the store as the webhook node's notifier and deliverer
// reach it: while faults are on, the node may stop at a write that moves
// the webhooks on (adding events, moving the cursor, claiming deliveries,
// recording an attempt), before it reaches the database or after it
// committed, and the write may meet a fault at the SQL driver
// (dbfaults.go); a stopped node's calls reach nothing until it starts
// again.
type hookStore struct {
	topupd.Store
	w    *World
	dead bool
}

// errHookNodeDown is every call of a stopped webhook node.
var errHookNodeDown = errors.New("the webhook node stopped")

// hookCall runs a write of the webhook node, maybe stopping the node
// before or after it.
func hookCall[T any](s *hookStore, name string, f func() (T, error)) (T, error) {
	var zero T
	if s.dead {
		return zero, errHookNodeDown
	}
	h := s.w.hooks
	if s.w.faults && h.rng.IntN(100) < s.w.mix.hookCrash {
		s.dead = true
		s.w.logf("  CRASH %s before %s", h.owner, name)
		return zero, errHookNodeDown
	}
	disarm := s.w.armDBFrom(h.rng, name)
	v, err := f()
	disarm()
	if s.w.faults && h.rng.IntN(100) < s.w.mix.hookCrash {
		s.dead = true
		s.w.logf("  CRASH %s after %s", h.owner, name)
		return zero, errHookNodeDown
	}
	return v, err
}

// AddWebhookEvents may stop the node around the notifier's write.
func (s *hookStore) AddWebhookEvents(ctx context.Context, events []topupd.WebhookEvent, now time.Time) error {
	_, err := hookCall(s, "AddWebhookEvents", func() (struct{}, error) { return struct{}{}, s.Store.AddWebhookEvents(ctx, events, now) })
	return err
}

// AdvanceConsumer may stop the node around moving the notifier's cursor.
func (s *hookStore) AdvanceConsumer(ctx context.Context, name, owner string, pos topupd.StreamPos) error {
	_, err := hookCall(s, "AdvanceConsumer", func() (struct{}, error) { return struct{}{}, s.Store.AdvanceConsumer(ctx, name, owner, pos) })
	return err
}

// ClaimWebhookDeliveries may stop the node around a claim.
func (s *hookStore) ClaimWebhookDeliveries(ctx context.Context, owner string, now, until time.Time, limit int) ([]topupd.WebhookJob, error) {
	return hookCall(s, "ClaimWebhookDeliveries", func() ([]topupd.WebhookJob, error) {
		return s.Store.ClaimWebhookDeliveries(ctx, owner, now, until, limit)
	})
}

// RecordWebhookAttempt may stop the node around recording an attempt.
func (s *hookStore) RecordWebhookAttempt(ctx context.Context, a topupd.WebhookAttempt) (string, error) {
	return hookCall(s, "RecordWebhookAttempt", func() (string, error) { return s.Store.RecordWebhookAttempt(ctx, a) })
}

// startHooks (re)starts the webhook node: a new owner name, whose
// predecessor's leases (the notifier's cursor, the deliveries it had
// claimed) must run out.
func (w *World) startHooks() {
	h := w.hooks
	h.gen++
	h.owner = fmt.Sprintf("hooks.%d", h.gen)
	st := &hookStore{Store: w.store, w: w}
	h.st = st
	h.disp = notify.New(notify.Config{Store: st, Owner: h.owner, Now: w.clk.Now, Logger: quiet},
		webhooks.NewNotifier(st, w.clk.Now, nil))
	h.del = webhooks.NewDeliverer(webhooks.Config{Store: st, Owner: h.owner, Now: w.clk.Now, Jitter: h.rng.Float64,
		Transport: h.transport(w), Logger: quiet})
	w.logf("start %s", h.owner)
}
