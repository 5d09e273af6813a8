package app

import (
	"context"
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/httpapi"
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
// through the admin API in process, like the console, and polls only
// while this node holds the database lease.
func (a *App) startBot(cfg Config) error {
	if cfg.TelegramToken == "" {
		return nil
	}
	adm, err := client.NewAdmin("http://bot.invalid", "in-process", client.WithRetries(0),
		client.WithHTTPClient(&http.Client{Transport: httpapi.Transport{Admin: a.Admin}}))
	if err != nil {
		return err
	}
	bot, err := telegram.New(telegram.Deps{Token: cfg.TelegramToken, APIURL: cfg.TelegramAPI, Store: a.Store, Service: a.Service, Admin: adm,
		AsChat: httpapi.AsChat, AsOperatorChat: httpapi.AsOperatorChat, Holder: cfg.NodeID, Now: cfg.Now, Logger: cfg.Logger,
		AsSystem: func(ctx context.Context) context.Context {
			return httpapi.AsOperator(ctx, topupd.RootOperator, "127.0.0.1", "telegram-alerts", "")
		},
		PollTimeout: cfg.TelegramPoll, LeaseTTL: cfg.TelegramLease})
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
