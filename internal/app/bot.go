package app

import (
	"context"

	"github.com/topupd/topupd/telegram"
)

// botUsername is the bot's username once it has learnt it, or "".
func (a *App) botUsername() string {
	if b := a.bot.Load(); b != nil {
		return b.Username()
	}
	return ""
}

// startBot runs the messaging app's bot when a token is set: it acts
// through the service layer, like the console, and polls only while this
// node holds the database lease.
func (a *App) startBot(cfg Config) error {
	if cfg.TelegramToken == "" {
		return nil
	}
	bot, err := telegram.New(telegram.Deps{Token: cfg.TelegramToken, APIURL: cfg.TelegramAPI, Store: a.Store, Service: a.Service,
		Holder: cfg.NodeID, Now: cfg.Now, Logger: cfg.Logger, PollTimeout: cfg.TelegramPoll, LeaseTTL: cfg.TelegramLease})
	if err != nil {
		return err
	}
	a.bot.Store(bot)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { bot.Run(ctx); close(done) }()
	a.stopBot = func() { stop(); <-done }
	return nil
}
