package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tgbot "github.com/go-telegram/bot"

	"github.com/topupd/topupd"
)

// NoticePrefix starts every message the bot sends unasked.
const NoticePrefix = "Notice: "

// watcher runs the poller's rounds: balance alerts and operators' alerts
// (alerts.go), on the poller's node only.
type watcher struct {
	b *Bot
}

// Notices is the notifier that tells account chats of changes to their
// account, whoever made them, from the event stream (topupd.Notifier):
// keys made, rotated and revoked, credits, and the account's API access
// and allow-list. A chat hears of changes from its linking on. It sends
// through a Bot API client of its own, on whichever node holds its
// cursor; while the Bot API is away the cursor stays, and the changes are
// told once it is back (some chats may then hear of one twice: never
// lost).
func (b *Bot) Notices() topupd.Notifier { return &notices{b: b} }

// notices is the notifier Notices returns.
type notices struct {
	b   *Bot
	api *tgbot.Bot // made at the first send
}

// Name names the notifier's cursor.
func (*notices) Name() string { return "telegram-notices" }

// Notify tells each event's account chats what the event says, oldest first.
func (n *notices) Notify(ctx context.Context, events []topupd.Event) error {
	credits := depositCredits(events)
	for _, e := range events {
		text := describe(e)
		switch d := e.Data.(type) {
		case *topupd.BalanceCreditedData:
			if _, ok := credits[d.Reference]; ok {
				continue // told with its deposit
			}
		case *topupd.DepositData:
			text = describeDeposit(d, credits[d.DepositID])
		}
		if text == "" || e.AccountID == "" {
			continue
		}
		chats, err := n.b.Store.Chats(ctx, e.AccountID, "")
		if err != nil {
			return err
		}
		for _, c := range chats {
			if !e.Pos.After(c.LinkedPos) {
				continue // a chat hears of changes from its linking on
			}
			api, err := n.client()
			if err != nil {
				return err
			}
			if by := madeBy(e.Data); by != "" {
				text += " (by " + who(by) + ")"
			}
			if err := n.b.notify(ctx, api, c.ChatID, NoticePrefix+text); err != nil {
				return err
			}
		}
	}
	return nil
}

// depositCredits are the balances after the credits of the deposits
// confirmed among events, by deposit id: each deposit's notice tells its
// credit, so that the chat hears of it once. A credit whose deposit came
// in an earlier batch is told on its own.
func depositCredits(events []topupd.Event) map[string]*topupd.Money {
	confirmed := map[string]bool{}
	out := map[string]*topupd.Money{}
	for _, e := range events {
		switch d := e.Data.(type) {
		case *topupd.DepositData:
			confirmed[d.DepositID] = d.Type == topupd.EventDepositConfirmed
		case *topupd.BalanceCreditedData:
			if confirmed[d.Reference] {
				out[d.Reference] = &d.Balance
			}
		}
	}
	return out
}

// client is the Bot API client notices send with.
func (n *notices) client() (*tgbot.Bot, error) {
	if n.api != nil {
		return n.api, nil
	}
	opts := []tgbot.Option{tgbot.WithSkipGetMe(),
		tgbot.WithErrorsHandler(func(err error) { n.b.Logger.Warn("telegram: the Bot API", "err", n.b.scrub(err)) })}
	if n.b.APIURL != "" {
		opts = append(opts, tgbot.WithServerURL(n.b.APIURL))
	}
	api, err := tgbot.New(n.b.Token, opts...)
	if err != nil {
		return nil, errors.New(n.b.scrub(err))
	}
	n.api = api
	return api, nil
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

// describe says what an event did to an account, in a chat's words, or
// "" for what chats are not told.
func describe(e topupd.Event) string {
	switch d := e.Data.(type) {
	case *topupd.BalanceCreditedData:
		return "A credit of " + d.Amount.String() + " USD arrived; the balance is " + d.Balance.String() + " USD."
	case *topupd.WebhookDisabledData:
		why := "it answered 410 Gone"
		if d.Reason == topupd.WebhookFailing {
			why = "its deliveries have failed for 5 days"
		}
		return "Webhook endpoint " + d.EndpointID + " (" + d.URL + ") was disabled: " + why +
			". Nothing is sent to it until it is enabled again."
	case *topupd.AccountChangedData:
		return describeChange(&d.ChangeFacts)
	}
	return ""
}

// madeBy is who made the change an event tells of, when it says ("" when
// it does not: the server's own changes).
func madeBy(d topupd.EventData) string {
	switch d := d.(type) {
	case *topupd.BalanceCreditedData:
		return d.By
	case *topupd.AccountChangedData:
		return d.By
	}
	return ""
}

// describeChange says what an account's change did, in a chat's words, or
// "" for what chats are not told.
func describeChange(c *topupd.ChangeFacts) string {
	after, target := c.After, c.Target
	switch c.Action {
	case "key.create":
		return "A new API key was made: " + str(after["keyId"]) + labelOf(after["label"]) + "."
	case "key.rotate":
		return "API key " + target + " was rotated: the new key is " + str(after["keyId"]) + "; " + target +
			" stops working at " + str(after["oldKeyRevokedAt"]) + "."
	case "key.revoke":
		return "API key " + target + " was revoked."
	case "account.update":
		var parts []string
		if v, ok := after["apiEnabled"]; ok {
			parts = append(parts, "API access is now "+onOff(v))
		}
		if v, ok := after["ipAllowlist"]; ok {
			parts = append(parts, "the allow-list is now "+listText(v))
		}
		if v, ok := after["ipAllowlistRequired"]; ok {
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
