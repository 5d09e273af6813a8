package telegram

import (
	"context"
	"slices"
	"strings"

	"github.com/topupd/topupd"
)

// Disputes from a reseller's chat (back-office.md, section 5); the
// operators' chats hear of them through the alerts (alerts.go).

// dispute answers /dispute <orderId> <reason> [detail]: a dispute of the
// whole order, answered with its id and dueAt.
func (b *Bot) dispute(ctx context.Context, r *request, c topupd.Chat) {
	if len(r.args) < 2 || !slices.Contains(topupd.DisputeReasons, r.args[1]) {
		b.reply(ctx, r, "Send /dispute <orderId> <reason> [detail]; the reason is one of "+strings.Join(topupd.DisputeReasons, ", ")+".")
		return
	}
	d, err := b.Service.OpenAccountDispute(ctx, r.actor, c.AccountID, r.args[0],
		topupd.DisputeRequest{Reason: r.args[1], Detail: strings.Join(r.args[2:], " ")})
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	b.reply(ctx, r, "Dispute "+d.ID+" of order "+d.OrderID+" is open; the operator answers by "+d.DueAt.UTC().Format("2006-01-02 15:04")+" UTC.")
}
