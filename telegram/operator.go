package telegram

import (
	"context"
	"fmt"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// stuck lists the stuck orders and the suppliers alerting.
func (b *Bot) stuck(ctx context.Context, r *request, _ topupd.Chat) {
	if r.actorErr != nil {
		b.fail(ctx, r, r.actorErr)
		return
	}
	page, err := b.Service.StuckOrders(ctx, r.actor, 0, nil)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	if r.actorErr != nil {
		b.fail(ctx, r, r.actorErr)
		return
	}
	health, err := b.Service.Providers(ctx, r.actor)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	var lines []string
	listed := map[string]bool{}
	for _, h := range health {
		if h.Alert {
			lines = append(lines, fmt.Sprintf("Supplier %s%s: alert, %d stuck orders, last error %s", h.Provider, upstreamOf(h.Upstream), h.StuckOrders, h.LastErrorMessage))
			if h.Provider == topupd.ProviderUpstream {
				listed[h.Upstream] = true
			}
		}
	}
	more, err := b.alertingUpstreams(ctx, r.actor, listed)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	lines = append(lines, more...)
	for _, o := range page.Orders {
		lines = append(lines, fmt.Sprintf("%s %s %s: %s since %s%s", o.ID, o.AccountID, o.PackName, o.Status,
			o.CreatedAt.UTC().Format("2006-01-02 15:04"), alertOf(o.Alert)))
	}
	if len(lines) == 0 {
		b.reply(ctx, r, "Nothing is stuck, and no supplier is alerting.")
		return
	}
	b.reply(ctx, r, strings.Join(lines, "\n"))
}

func upstreamOf(u string) string {
	if u == "" {
		return ""
	}
	return " (" + u + ")"
}

func alertOf(a string) string {
	if a == "" {
		return ""
	}
	return ", " + a
}

// askCredit asks, with buttons, before crediting an account; a role that
// may not credit is told so at once.
func (b *Bot) askCredit(ctx context.Context, r *request, c topupd.Chat) {
	if len(r.args) < 3 {
		b.reply(ctx, r, "Send /credit <accountId> <usd> <reference>.")
		return
	}
	op, err := b.Store.Operator(ctx, c.Operator)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	if !op.Role.May(topupd.PermCredit) {
		b.reply(ctx, r, "Your role ("+string(op.Role)+") may not credit accounts.")
		return
	}
	amount, err := topupd.ParseMoney(r.args[1])
	if err != nil || amount == 0 {
		b.reply(ctx, r, "The amount must be a number of USD such as 25.50 (negative to correct).")
		return
	}
	if r.actorErr != nil {
		b.fail(ctx, r, r.actorErr)
		return
	}
	a, err := b.Service.Account(ctx, r.actor, r.args[0])
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	ref := strings.Join(r.args[2:], " ")
	token := b.confirms.add(pending{chatID: r.chatID, kind: "credit", args: []string{a.ID, amount.String(), ref}})
	b.reply(ctx, r, fmt.Sprintf("Credit %s USD to %s (%s), reference %q? The balance is %s USD.", amount.Dollars(), a.ID, a.Name, ref, a.Balance.Dollars()),
		confirmButtons("Credit it", token))
}

// pressed acts on a confirmation button: the pending command bound to
// the chat, once, as the update of the press.
func (b *Bot) pressed(ctx context.Context, api *tgbot.Bot, u *models.Update) {
	q := u.CallbackQuery
	msg := q.Message.Message
	if msg == nil {
		return
	}
	r := &request{api: api, updateID: u.ID, chatID: msg.Chat.ID, private: msg.Chat.Type == models.ChatTypePrivate}
	answer := func(text string) {
		if _, err := api.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: q.ID, Text: text}); err != nil {
			b.Logger.Warn("telegram: answering a button", "err", b.scrub(err))
		}
	}
	edit := func(text string) {
		if _, err := api.EditMessageText(ctx, &tgbot.EditMessageTextParams{ChatID: msg.Chat.ID, MessageID: msg.ID, Text: text}); err != nil {
			b.Logger.Warn("telegram: editing a message", "err", b.scrub(err))
		}
	}
	verb, token, _ := strings.Cut(q.Data, ":")
	p, ok := b.confirms.take(token, r.chatID)
	if !ok {
		b.noteRead(ctx, r)
		answer("This button has expired.")
		edit(msg.Text + "\n(Expired: send the command again.)")
		return
	}
	if verb != "ok" {
		b.noteRead(ctx, r)
		answer("Cancelled.")
		edit(msg.Text + "\nCancelled: nothing was changed.")
		return
	}
	c, err := b.Store.Chat(ctx, r.chatID)
	if err != nil {
		b.noteRead(ctx, r)
		answer("This chat is no longer linked.")
		return
	}
	var done string
	switch {
	case p.kind == "revoke" && c.AccountID != "":
		err = b.Service.RevokeKey(ctx, service.ChatActor(r.chatID, c.AccountID, r.updateID), p.args[0])
		done = "Key " + p.args[0] + " is revoked."
	case p.kind == "webhook-rm" && c.AccountID != "":
		err = b.Service.DeleteWebhook(ctx, service.ChatActor(r.chatID, c.AccountID, r.updateID), p.args[0])
		done = "Webhook endpoint " + p.args[0] + " is deleted."
	case p.kind == "credit" && c.Operator != "":
		amount, _ := topupd.ParseMoney(p.args[1])
		var res service.Credited
		var by service.Actor
		if by, err = b.Service.OperatorChatActor(ctx, c.Operator, r.chatID, r.updateID); err == nil {
			res, err = b.Service.Credit(ctx, by, p.args[0], amount, p.args[2])
		}
		done = fmt.Sprintf("Credited %s USD to %s; the balance is %s USD.", amount.Dollars(), p.args[0], res.Balance.Dollars())
		if res.Repeated {
			done = "That reference was used before for " + p.args[0] + ": nothing was credited again."
		}
	default:
		b.noteRead(ctx, r)
		answer("This button is not for this chat.")
		return
	}
	if err != nil {
		answer("Refused.")
		b.fail(ctx, r, err)
		return
	}
	answer("Done.")
	edit(msg.Text + "\n" + done)
}
