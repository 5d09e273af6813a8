package app

import (
	"context"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/metrics"
	"github.com/topupd/topupd/notify"
	"github.com/topupd/topupd/webhooks"
)

// newDeliverer builds this node's webhook deliverer.
func newDeliverer(cfg Config, store topupd.Store, guard webhooks.Guard, now func() time.Time, m *metrics.Metrics) *webhooks.Deliverer {
	owner := cfg.NodeID
	if owner == "" {
		owner = topupd.NewID("node_")
	}
	return webhooks.NewDeliverer(webhooks.Config{Store: store, Owner: owner, Guard: guard, Concurrency: cfg.WebhookConcurrency,
		Poll: cfg.WebhookPoll, Now: now, Observer: m, Logger: cfg.Logger})
}

// startWebhooks runs the webhook deliverer until Close.
func (a *App) startWebhooks() {
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Webhooks.Run(ctx); close(done) }()
	a.stopWebhooks = func() { stop(); <-done }
}

// startNotify runs the dispatcher of the event stream with every notifier
// this node has: the order metrics, and the bot's notices when there is a
// bot. Each notifier's events are told by one node of the deployment at a
// time (see notify).
func (a *App) startNotify(cfg Config, now func() time.Time) {
	notifiers := []topupd.Notifier{a.Metrics.Orders(), webhooks.NewNotifier(a.Store, now, a.Webhooks.Wake)}
	if b := a.bot.Load(); b != nil {
		notifiers = append(notifiers, b.Notices())
	}
	owner := cfg.NodeID
	if owner == "" {
		owner = topupd.NewID("node_")
	}
	a.Notify = notify.New(notify.Config{Store: a.Store, Owner: owner, Now: now, Logger: cfg.Logger, Poll: cfg.NotifyPoll}, notifiers...)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Notify.Run(ctx); close(done) }()
	a.stopNotify = func() { stop(); <-done }
}
