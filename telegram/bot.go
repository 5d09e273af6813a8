// Package telegram is the messaging app: a Telegram bot that topupd runs
// itself (see the messaging-app spec). Resellers link a chat to their
// account and manage its keys, API access and allow-list from it;
// operators link their own chat. The bot acts only through the service
// layer, as the chat (a reseller's chat is held to its account), so every
// change goes through the same operations and role checks as the admin
// API's and lands in the action log; each update is acted on at most once, its update_id
// stored in the transaction of the change it makes. One node polls at a
// time, holding a lease in the database.
package telegram

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Store is what the bot needs of the database: chats and their links,
// the updates acted on, the poller's lease and offset, and what the
// notices read. Every change a command asks for goes through
// Deps.Service.
type Store interface {
	// Chats and their links.
	Chat(ctx context.Context, chatID int64) (topupd.Chat, error)
	Chats(ctx context.Context, accountID, operator string) ([]topupd.Chat, error)
	OperatorChats(ctx context.Context) ([]topupd.Chat, error)
	Operator(ctx context.Context, name string) (topupd.Operator, error)
	// Updates acted on at most once.
	UpdateSeen(ctx context.Context, updateID int64) (bool, error)
	RecordUpdate(ctx context.Context, u topupd.BotUpdate) error
	// The poller's lease and offset.
	TakeBotLease(ctx context.Context, holder string, now, until time.Time) (bool, error)
	ReleaseBotLease(ctx context.Context, holder string) error
	BotOffset(ctx context.Context) (int64, error)
	SetBotOffset(ctx context.Context, offset int64) error
	// Balance alerts and operators' alerts.
	Balance(ctx context.Context, accountID string) (topupd.Money, error)
	BalanceAlertChats(ctx context.Context) ([]topupd.Chat, error)
	SetBalanceLow(ctx context.Context, chatID int64, low bool) (changed bool, err error)
	BotAlerts(ctx context.Context) (map[string]string, error)
	SetBotAlert(ctx context.Context, key, message string, on bool, at time.Time) (changed bool, err error)
	LowStock(ctx context.Context) (map[string]bool, error)
	WaitingFunds(ctx context.Context) (int, error)
}

// Deps are what the bot needs.
type Deps struct {
	// Token is the bot's token from BotFather.
	Token string
	// APIURL is the Bot API's base URL (Telegram's when empty).
	APIURL string
	// Store keeps chats, link codes, the lease and the updates acted on.
	Store Store
	// Service runs the operations the bot's commands ask for, as the
	// chat's actor.
	Service *service.Service
	// Holder names this node for the poller's lease.
	Holder string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Logger gets what goes wrong; never a key or a code.
	Logger *slog.Logger
	// PollTimeout is the long poll's length plus a second (25 s when
	// zero; above 1 s, or the library polls in a tight loop).
	PollTimeout time.Duration
	// LeaseTTL is how long the poller's lease lasts unrenewed (30 s when
	// zero): another node takes over within it when the holder dies.
	LeaseTTL time.Duration
	// PerMinute limits the commands of one chat (20 when zero).
	PerMinute int
	// NotifyEvery is how often the poller checks balance alerts and
	// operators' alerts (2 s when zero); changes to an account are told
	// from the event stream (Notices).
	NotifyEvery time.Duration
}

// Bot is the running bot.
type Bot struct {
	Deps
	confirms *confirms
	limits   *chatLimits
	username atomic.Value // string, from getMe
}

// Username is the bot's username as the Bot API gave it, or "" before it
// has answered.
func (b *Bot) Username() string {
	s, _ := b.username.Load().(string)
	return s
}

// learnName asks the Bot API for the bot's username until it answers,
// with backoff: chat link URLs name it.
func (b *Bot) learnName(ctx context.Context) {
	opts := []tgbot.Option{tgbot.WithSkipGetMe(), tgbot.WithHTTPClient(10*time.Second, &http.Client{Timeout: 10 * time.Second})}
	if b.APIURL != "" {
		opts = append(opts, tgbot.WithServerURL(b.APIURL))
	}
	api, err := tgbot.New(b.Token, opts...)
	if err != nil {
		return
	}
	for wait := time.Second; ctx.Err() == nil; wait = min(2*wait, time.Minute) {
		me, err := api.GetMe(ctx)
		if err == nil && me.Username != "" {
			b.username.Store(me.Username)
			return
		}
		sleep(ctx, wait)
	}
}

// New returns the bot; Run starts it.
func New(d Deps) (*Bot, error) {
	if d.Token == "" || d.Store == nil || d.Service == nil || d.Holder == "" {
		return nil, errors.New("telegram.New: a token, a store, a service and a holder are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if d.PollTimeout <= time.Second {
		d.PollTimeout = 25 * time.Second
	}
	if d.LeaseTTL <= 0 {
		d.LeaseTTL = 30 * time.Second
	}
	if d.PerMinute <= 0 {
		d.PerMinute = 20
	}
	if d.NotifyEvery <= 0 {
		d.NotifyEvery = 2 * time.Second
	}
	return &Bot{Deps: d, confirms: newConfirms(d.Now), limits: newChatLimits(d.PerMinute, d.Now)}, nil
}

// Run takes the poller's lease whenever it is free and polls while it
// holds it, until ctx ends; then it lets the lease go.
func (b *Bot) Run(ctx context.Context) {
	named := make(chan struct{})
	go func() { b.learnName(ctx); close(named) }()
	defer func() {
		<-named
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := b.Store.ReleaseBotLease(rctx, b.Holder); err != nil {
			b.Logger.Warn("telegram: releasing the poller's lease", "err", err)
		}
	}()
	for ctx.Err() == nil {
		if b.takeLease(ctx) {
			b.poll(ctx)
			continue
		}
		sleep(ctx, b.LeaseTTL/3)
	}
}

// takeLease takes or renews the lease; a database error counts as not.
func (b *Bot) takeLease(ctx context.Context) bool {
	now := b.Now()
	ok, err := b.Store.TakeBotLease(ctx, b.Holder, now, now.Add(b.LeaseTTL))
	if err != nil && ctx.Err() == nil {
		b.Logger.Warn("telegram: taking the poller's lease", "err", err)
	}
	return ok && err == nil
}

// poll reads updates while this node holds the lease: the library polls
// from the stored offset and hands each update to handle, one at a time;
// the lease is renewed a third of its life apart, and polling stops the
// moment a renewal fails.
func (b *Bot) poll(ctx context.Context) {
	offset, err := b.Store.BotOffset(ctx)
	if err != nil {
		b.Logger.Warn("telegram: reading the offset", "err", err)
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := []tgbot.Option{
		// No buffer of updates: the library confirms an update to Telegram
		// when it asks for the next ones, so a buffer would confirm updates
		// not handled yet, lost on a stop or a takeover.
		tgbot.WithUpdatesChannelCap(0),
		tgbot.WithSkipGetMe(), tgbot.WithNotAsyncHandlers(), tgbot.WithInitialOffset(offset),
		tgbot.WithDefaultHandler(b.handle),
		tgbot.WithAllowedUpdates(tgbot.AllowedUpdates{"message", "callback_query"}),
		tgbot.WithHTTPClient(b.PollTimeout, &http.Client{Timeout: b.PollTimeout + 10*time.Second}),
		tgbot.WithErrorsHandler(func(err error) { b.Logger.Warn("telegram: the Bot API", "err", b.scrub(err)) }),
	}
	if b.APIURL != "" {
		opts = append(opts, tgbot.WithServerURL(b.APIURL))
	}
	api, err := tgbot.New(b.Token, opts...)
	if err != nil {
		b.Logger.Error("telegram: starting the client", "err", b.scrub(err))
		return
	}
	done := make(chan struct{})
	go func() { api.Start(pctx); close(done) }()
	b.Logger.Info("telegram: polling", "holder", b.Holder, "offset", offset)
	tick := time.NewTicker(b.LeaseTTL / 3)
	defer tick.Stop()
	w := &watcher{b: b}
	notify := time.NewTicker(b.NotifyEvery)
	defer notify.Stop()
	for {
		select {
		case <-notify.C:
			w.balances(pctx, api)
			w.operatorAlerts(pctx, api)
		case <-ctx.Done():
			cancel()
			<-done
			return
		case <-tick.C:
			if !b.takeLease(ctx) {
				b.Logger.Info("telegram: lost the poller's lease", "holder", b.Holder)
				cancel()
				<-done
				return
			}
		}
	}
}

// scrub is an error's text without the bot's token, which the Bot API's
// URLs carry: the log never holds it.
func (b *Bot) scrub(err error) string {
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), b.Token, "<token>")
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// send posts a message to a chat, with buttons when given; it logs a
// failure (the Bot API being away does not stop the bot).
func (b *Bot) send(ctx context.Context, api *tgbot.Bot, chatID int64, text string, buttons ...[]models.InlineKeyboardButton) *models.Message {
	m, _ := b.sendOrErr(ctx, api, chatID, text, buttons...)
	return m
}

// notify sends a message the bot sends unasked (a notice, an alert). Its
// error is one worth sending again for (the Bot API away, busy or
// failing): a chat that blocked the bot or is gone is not, nor a send cut
// short by the bot stopping.
func (b *Bot) notify(ctx context.Context, api *tgbot.Bot, chatID int64, text string) error {
	_, err := b.sendOrErr(ctx, api, chatID, text)
	switch {
	case errors.Is(err, tgbot.ErrorForbidden) || errors.Is(err, tgbot.ErrorBadRequest) || errors.Is(err, tgbot.ErrorNotFound):
		return nil
	case err != nil && ctx.Err() != nil:
		return nil // stopping: the message may have gone; never told twice
	}
	return err
}

// sendOrErr is send, answering the error too (logged either way).
func (b *Bot) sendOrErr(ctx context.Context, api *tgbot.Bot, chatID int64, text string, buttons ...[]models.InlineKeyboardButton) (*models.Message, error) {
	p := &tgbot.SendMessageParams{ChatID: chatID, Text: text}
	if len(buttons) > 0 {
		p.ReplyMarkup = models.InlineKeyboardMarkup{InlineKeyboard: buttons}
	}
	m, err := api.SendMessage(ctx, p)
	if err != nil {
		b.Logger.Warn("telegram: sending a message", "chat", chatID, "err", b.scrub(err))
	}
	return m, err
}
