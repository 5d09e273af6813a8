package app

import (
	"context"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/notify"
)

// startNotify runs the dispatcher of the event stream with every notifier
// this node has: the order metrics, and the bot's notices when there is a
// bot. Each notifier's events are told by one node of the deployment at a
// time (see notify).
func (a *App) startNotify(cfg Config, now func() time.Time) {
	notifiers := []topupd.Notifier{a.Metrics.Orders()}
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
