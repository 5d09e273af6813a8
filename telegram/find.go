package telegram

import (
	"context"
	"fmt"
	"strings"

	"github.com/topupd/topupd"
)

// order shows the account's orders an order id or trxid names, live or
// sandbox (service.FindOrders): never their codes.
func (b *Bot) order(ctx context.Context, r *request, _ topupd.Chat) {
	if len(r.args) != 1 {
		b.reply(ctx, r, "Send /order <orderId or trxid>.")
		return
	}
	b.findOrders(ctx, r, "No order "+r.args[0]+" on your account.", func(o *topupd.Order) string {
		return fmt.Sprintf("%s (trxid %s): %s, %s × %d, %s USD", orderWord(o), o.TrxID, o.Status, o.PackName, o.Quantity, o.Amount.Dollars())
	})
}

// find shows the orders a trxid or order id names, live or sandbox, each
// with its account.
func (b *Bot) find(ctx context.Context, r *request, _ topupd.Chat) {
	if len(r.args) != 1 {
		b.reply(ctx, r, "Send /find <trxid or orderId>.")
		return
	}
	if r.actorErr != nil {
		b.fail(ctx, r, r.actorErr)
		return
	}
	b.findOrders(ctx, r, "No order "+r.args[0]+".", func(o *topupd.Order) string {
		account, _ := topupd.LiveID(o.AccountID)
		return fmt.Sprintf("%s (trxid %s) of %s: %s, %s × %d, %s USD, %s%s%s", orderWord(o), o.TrxID, account, o.Status,
			o.PackName, o.Quantity, o.Amount.Dollars(), o.Provider, upstreamOf(o.Upstream), alertOf(o.Alert))
	})
}

// findOrders answers the orders r.args[0] names, each told by line and
// its error and refund under it; when a trxid names a live order and a
// sandbox one, both, the live one first, and says so.
func (b *Bot) findOrders(ctx context.Context, r *request, none string, line func(*topupd.Order) string) {
	found, err := b.Service.FindOrders(ctx, r.actor, r.args[0])
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	if len(found) == 0 {
		b.reply(ctx, r, none)
		return
	}
	var parts []string
	if len(found) > 1 {
		parts = append(parts, "Trxid "+r.args[0]+" names a live order and a sandbox order: both, the live one first.")
	}
	for i := range found {
		o := &found[i]
		text := line(o)
		if o.Error != "" {
			text += "\nError: " + o.Error
		}
		if o.Refunded {
			text += "\nRefunded."
		}
		parts = append(parts, text)
	}
	b.reply(ctx, r, strings.Join(parts, "\n\n"))
}

// orderWord names an order as the bot tells it: a sandbox order says so.
func orderWord(o *topupd.Order) string {
	if o.Sandbox {
		return "Sandbox order " + o.ID
	}
	return "Order " + o.ID
}
