package telegram

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"

	"github.com/topupd/topupd"
)

// NoticePrefix starts every message the bot sends unasked.
const NoticePrefix = "Notice: "

// watcher tells account chats about changes to their account, whoever
// made them (from the action log, which every change lands in), and
// warns chats whose balance falls below their alert. It runs on the
// poller's node only, and goes on from the newest action told of, kept in
// the database: after a takeover or a restart the changes made meanwhile
// are told too.
type watcher struct {
	b     *Bot
	last  int64 // the newest action told of
	links map[int64]linked
}

// linked is the action that linked a chat, as of a linking time.
type linked struct {
	at     time.Time
	action int64
}

// linkAction is the id of the action log entry that linked the chat (the
// newest chat.link by it), remembered while the chat's link stands.
func (w *watcher) linkAction(ctx context.Context, c topupd.Chat) int64 {
	if l, ok := w.links[c.ChatID]; ok && l.at.Equal(c.LinkedAt) {
		return l.action
	}
	acts, err := w.b.Store.Actions(ctx, topupd.ActionsQuery{Operator: topupd.ChatActor(c.ChatID), Action: "chat.link", Limit: 1})
	if err != nil || len(acts) == 0 {
		return 1<<63 - 1 // unknown: tell nothing rather than too much
	}
	w.links[c.ChatID] = linked{at: c.LinkedAt, action: acts[0].ID}
	return acts[0].ID
}

// newWatcher goes on from the newest action told of; the first watcher
// ever starts from the newest action in the log (history is not told).
func newWatcher(ctx context.Context, b *Bot) *watcher {
	w := &watcher{b: b, links: map[int64]linked{}}
	last, err := b.Store.NotifiedAction(ctx)
	if err == nil && last == 0 {
		if acts, aerr := b.Store.Actions(ctx, topupd.ActionsQuery{Limit: 1}); aerr == nil && len(acts) > 0 {
			last = acts[0].ID
			err = b.Store.SetNotifiedAction(ctx, last)
		}
	}
	if err != nil {
		b.Logger.Warn("telegram: reading the newest action told of", "err", b.scrub(err))
	}
	w.last = last
	return w
}

// maxToldPages bounds how many pages of 500 actions one round reads: a
// backlog larger than that is told from its newest part, in later rounds.
const maxToldPages = 10

// since returns the actions newer than the last told of, oldest first.
func (w *watcher) since(ctx context.Context) ([]topupd.Action, error) {
	var out []topupd.Action
	q := topupd.ActionsQuery{Limit: 500}
	for range maxToldPages {
		acts, err := w.b.Store.Actions(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, a := range acts {
			if a.ID > w.last {
				out = append(out, a)
			}
		}
		if len(acts) < q.Limit || acts[len(acts)-1].ID <= w.last {
			break
		}
		oldest := acts[len(acts)-1]
		q.Before = &topupd.ListKey{At: oldest.At, Seq: oldest.ID}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// tell sends each account chat the changes made to its account since the
// last told of, oldest first, and moves the mark on. A change that
// changed nothing (a credit's reference used again) is not told. While
// the Bot API is away the mark stays at the last change told, so the
// rest is told once it is back (a change some chats already heard of may
// then be told to them again: never lost).
func (w *watcher) tell(ctx context.Context, api *tgbot.Bot) {
	acts, err := w.since(ctx)
	if err != nil {
		w.b.Logger.Warn("telegram: reading the action log", "err", w.b.scrub(err))
		return
	}
	from := w.last
	for _, a := range acts {
		if err := w.tellOne(ctx, api, a); err != nil {
			break
		}
		w.last = a.ID
	}
	if w.last != from {
		// Recorded even when the bot is stopping: what was sent was told.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := w.b.Store.SetNotifiedAction(sctx, w.last); err != nil {
			w.b.Logger.Warn("telegram: storing the newest action told of", "err", w.b.scrub(err))
		}
	}
}

// tellOne tells one change to its account's chats; its error is a send to
// try again.
func (w *watcher) tellOne(ctx context.Context, api *tgbot.Bot, a topupd.Action) error {
	text := describe(a)
	if text == "" || a.AccountID == "" || len(a.After) == 0 {
		return nil
	}
	chats, err := w.b.Store.Chats(ctx, a.AccountID, "")
	if err != nil {
		w.b.Logger.Warn("telegram: reading an account's chats", "account", a.AccountID, "err", w.b.scrub(err))
		return nil
	}
	for _, c := range chats {
		if a.ID <= w.linkAction(ctx, c) {
			continue // a chat hears of changes from its linking on
		}
		if err := w.b.notify(ctx, api, c.ChatID, NoticePrefix+text+" (by "+who(a.Actor.Operator)+")"); err != nil {
			return err
		}
	}
	return nil
}

// balances warns each chat with a balance alert when its account's
// balance falls below the amount: once a crossing (the store keeps
// whether it was below when last looked at, so a takeover does not warn
// again).
func (w *watcher) balances(ctx context.Context, api *tgbot.Bot) {
	chats, err := w.b.Store.BalanceAlertChats(ctx)
	if err != nil {
		w.b.Logger.Warn("telegram: reading balance alerts", "err", w.b.scrub(err))
		return
	}
	for _, c := range chats {
		if c.AccountID == "" || c.BalanceAlert == nil {
			continue
		}
		bal, err := w.b.Store.Balance(ctx, c.AccountID)
		if err != nil {
			w.b.Logger.Warn("telegram: reading a balance", "account", c.AccountID, "err", w.b.scrub(err))
			continue
		}
		low := bal < *c.BalanceAlert
		if low == c.BalanceLow {
			continue // nothing crossed
		}
		changed, err := w.b.Store.SetBalanceLow(ctx, c.ChatID, low)
		if err != nil {
			w.b.Logger.Warn("telegram: recording a balance alert", "chat", c.ChatID, "err", w.b.scrub(err))
			continue
		}
		if changed && low {
			text := NoticePrefix + "The balance is " + bal.Dollars() + " USD, below your alert of " + c.BalanceAlert.Dollars() + " USD."
			if err := w.b.notify(ctx, api, c.ChatID, text); err != nil {
				// Not told: the next round sees the crossing again.
				if _, err := w.b.Store.SetBalanceLow(ctx, c.ChatID, false); err != nil {
					w.b.Logger.Warn("telegram: recording a balance alert", "chat", c.ChatID, "err", w.b.scrub(err))
				}
			}
		}
	}
}

// describe says what an action did to an account, in a chat's words, or
// "" for what chats are not told.
func describe(a topupd.Action) string {
	switch a.Action {
	case "key.create":
		return "A new API key was made: " + str(a.After["keyId"]) + labelOf(a.After["label"]) + "."
	case "key.rotate":
		return "API key " + a.Target + " was rotated: the new key is " + str(a.After["keyId"]) + "; " + a.Target +
			" stops working at " + str(a.After["oldKeyRevokedAt"]) + "."
	case "key.revoke":
		return "API key " + a.Target + " was revoked."
	case "account.credit":
		return "A credit of " + str(a.After["amountUsd"]) + " USD arrived; the balance is " + str(a.After["balanceUsd"]) + " USD."
	case "account.update":
		var parts []string
		if v, ok := a.After["apiEnabled"]; ok {
			parts = append(parts, "API access is now "+onOff(v))
		}
		if v, ok := a.After["ipAllowlist"]; ok {
			parts = append(parts, "the allow-list is now "+listText(v))
		}
		if v, ok := a.After["ipAllowlistRequired"]; ok {
			parts = append(parts, "an allow-list is now "+map[bool]string{true: "required", false: "not required"}[v == true])
		}
		if len(parts) == 0 {
			return ""
		}
		s := strings.Join(parts, "; ")
		return strings.ToUpper(s[:1]) + s[1:] + "."
	}
	return ""
}

func str(v any) string {
	if v == nil {
		return "?"
	}
	return fmt.Sprint(v)
}

func labelOf(v any) string {
	if s, _ := v.(string); s != "" {
		return " (" + s + ")"
	}
	return ""
}

func onOff(v any) string {
	if v == true {
		return "on"
	}
	return "off"
}

func listText(v any) string {
	items, _ := v.([]any)
	if len(items) == 0 {
		return "empty (any address)"
	}
	var s []string
	for _, x := range items {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

// who names the maker of a change for a chat: this or another chat, or
// the operator.
func who(operator string) string {
	if strings.HasPrefix(operator, "chat:") {
		return "a linked chat"
	}
	return "the operator (" + operator + ")"
}
