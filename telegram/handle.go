package telegram

import (
	"context"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// request is one update being acted on: who sent it, from where, and the
// client to answer with.
type request struct {
	api      *tgbot.Bot
	updateID int64
	chatID   int64
	private  bool
	username string
	cmd      string
	args     []string
	// set is the commands of the chat's kind, once the dispatcher knows it.
	set *commandSet
	// noted is set once the update is recorded, alone or with a change.
	noted bool
	// actor is who the service layer's operations are asked for: the
	// reseller's chat, or the operator whose chat it is; actorErr, when
	// set, is why the operator may not act (unknown or disabled).
	actor    service.Actor
	actorErr error
}

// reply answers in the request's chat. The update is recorded first,
// unless a change recorded it already (then recording it again is a
// conflict, ignored), so that a redelivered update is never answered twice.
func (b *Bot) reply(ctx context.Context, r *request, text string, buttons ...[]models.InlineKeyboardButton) {
	b.noteRead(ctx, r)
	b.send(ctx, r.api, r.chatID, text, buttons...)
}

// handle acts on one update, at most once: an update recorded before (its
// change committed, then a crash before the offset moved on) is skipped.
// The offset is stored after it, so a crash before that redelivers it,
// unless the library had already confirmed it to Telegram (it asks for
// the next updates while the newest is handled: that one may be lost).
func (b *Bot) handle(ctx context.Context, api *tgbot.Bot, u *models.Update) {
	defer func() {
		if err := b.Store.SetBotOffset(context.WithoutCancel(ctx), u.ID); err != nil {
			b.Logger.Warn("telegram: storing the offset", "update", u.ID, "err", b.scrub(err))
		}
	}()
	seen, err := b.Store.UpdateSeen(ctx, u.ID)
	if err != nil {
		b.Logger.Warn("telegram: looking up an update", "update", u.ID, "err", b.scrub(err))
		return
	}
	if seen {
		b.Logger.Info("telegram: an update acted on before, redelivered; skipped", "update", u.ID)
		return
	}
	switch {
	case u.Message != nil && u.Message.Text != "":
		m := u.Message
		r := &request{api: api, updateID: u.ID, chatID: m.Chat.ID, private: m.Chat.Type == models.ChatTypePrivate, username: m.Chat.Username}
		if m.From != nil && r.username == "" {
			r.username = m.From.Username
		}
		r.cmd, r.args = parseCommand(m.Text)
		b.command(ctx, r)
	case u.CallbackQuery != nil:
		b.pressed(ctx, api, u)
	}
}

// parseCommand splits "/cmd@bot a b" into "/cmd" and its arguments.
func parseCommand(text string) (string, []string) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return "", nil
	}
	cmd, _, _ := strings.Cut(strings.ToLower(f[0]), "@")
	return cmd, f[1:]
}

// noteRead records an update that changes nothing, so that a redelivery
// is not answered twice: once (an update a change recorded is a
// conflict, ignored). A command that changes something must not call it
// before its change, or the change is refused as acted on before.
func (b *Bot) noteRead(ctx context.Context, r *request) {
	if r.noted {
		return
	}
	r.noted = true
	err := b.Store.RecordUpdate(ctx, topupd.BotUpdate{UpdateID: r.updateID, ChatID: r.chatID, At: b.Now()})
	if err != nil && topupd.CodeOf(err) != topupd.EConflict {
		b.Logger.Warn("telegram: recording an update", "update", r.updateID, "err", b.scrub(err))
	}
}

// link spends a link code: /start <code> in a private chat (the
// dispatcher refuses it in a group) links it to the code's account or
// operator, the update recorded in the transaction.
func (b *Bot) link(ctx context.Context, r *request, _ topupd.Chat) {
	c, err := b.Service.LinkChat(ctx, r.chatID, r.username, r.args[0], r.updateID)
	switch {
	case topupd.CodeOf(err) == topupd.EInvalidRequest:
		b.reply(ctx, r, "That link code is unknown, used or expired. Ask for a new one: a code works once, for 15 minutes.")
	case err != nil:
		b.fail(ctx, r, err)
	case c.Operator != "":
		text := "This chat is linked to operator " + c.Operator + ". Send /help for the commands."
		if told, err := b.Store.BotAlerts(ctx); err == nil && len(told) > 0 {
			text += "\nAlerts now:"
			for _, k := range sortedKeys(told) {
				text += "\n- " + told[k]
			}
		}
		b.reply(ctx, r, text)
	default:
		b.reply(ctx, r, "This chat is linked to account "+c.AccountID+". Send /help for the commands.")
	}
}

// fail answers an error: the admin API's refusal in words, anything else
// as our fault (logged).
func (b *Bot) fail(ctx context.Context, r *request, err error) {
	if msg, ok := refusal(err); ok {
		b.reply(ctx, r, msg)
		return
	}
	b.Logger.Error("telegram: acting on a command", "chat", r.chatID, "command", r.cmd, "err", b.scrub(err))
	b.reply(ctx, r, "Something went wrong on our side; nothing was changed. Try again in a minute.")
}

// confirmTTL is how long a confirmation button works.
const confirmTTL = 10 * time.Minute
