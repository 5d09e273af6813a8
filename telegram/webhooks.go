package telegram

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// webhookUsage is /webhook's forms, for a wrong one.
const webhookUsage = "Send /webhook, /webhook add <URL>, /webhook rm <endpointId> or /webhook test <endpointId>."

// webhook lists the account's webhook endpoints, or adds one (its secret
// shown in this message only), asks before removing one, or queues a
// test event for one (a later message tells how its first attempt went).
func (b *Bot) webhook(ctx context.Context, r *request, c topupd.Chat) {
	switch {
	case len(r.args) == 0:
		b.listWebhooks(ctx, r, c)
	case len(r.args) == 2 && r.args[0] == "add":
		e, err := b.Service.CreateWebhook(ctx, r.actor, c.AccountID, service.WebhookInput{URL: r.args[1]})
		if err != nil {
			b.fail(ctx, r, err)
			return
		}
		b.reply(ctx, r, "Webhook endpoint "+e.ID+" sends every event to "+e.URL+".\nIts signing secret, shown only here and only once; keep it safe:\n"+e.Secret)
	case len(r.args) == 2 && r.args[0] == "rm":
		e, err := b.Service.Webhook(ctx, r.actor, r.args[1])
		if err != nil {
			b.fail(ctx, r, err)
			return
		}
		token := b.confirms.add(pending{chatID: r.chatID, kind: "webhook-rm", args: []string{e.ID}})
		b.reply(ctx, r, "Delete webhook endpoint "+e.ID+" ("+e.URL+")? Nothing more is sent to it.", confirmButtons("Delete it", token))
	case len(r.args) == 2 && r.args[0] == "test":
		ev, err := b.Service.TestWebhook(ctx, r.actor, r.args[1])
		if err != nil {
			b.fail(ctx, r, err)
			return
		}
		b.reply(ctx, r, "A webhook.test event ("+ev.ID+") is queued for "+r.args[1]+"; I will tell you how its first attempt went.")
		go b.tellTest(context.WithoutCancel(ctx), r, c, r.args[1], ev.ID)
	default:
		b.reply(ctx, r, webhookUsage)
	}
}

// listWebhooks shows each endpoint: URL, events, enabled, the last
// delivery's state.
func (b *Bot) listWebhooks(ctx context.Context, r *request, c topupd.Chat) {
	list, err := b.Service.Webhooks(ctx, r.actor, c.AccountID)
	if err != nil {
		b.fail(ctx, r, err)
		return
	}
	if len(list) == 0 {
		b.reply(ctx, r, "No webhook endpoints. /webhook add <URL> makes one.")
		return
	}
	var lines []string
	for _, e := range list {
		events := "every event"
		if len(e.Events) > 0 {
			events = strings.Join(e.Events, ", ")
		}
		state := "enabled"
		if !e.Enabled {
			state = "disabled"
			if e.DisabledReason != "" {
				state += " (" + e.DisabledReason + ")"
			}
		}
		last := "no deliveries yet"
		if page, err := b.Service.WebhookDeliveries(ctx, r.actor, e.ID, nil, 1); err == nil && len(page.Deliveries) > 0 {
			last = "last delivery " + deliveryText(page.Deliveries[0])
		}
		lines = append(lines, fmt.Sprintf("%s %s: %s; %s; %s", e.ID, e.URL, events, state, last))
	}
	b.reply(ctx, r, "Your webhook endpoints:\n"+strings.Join(lines, "\n"))
}

// deliveryText says how a delivery stands.
func deliveryText(d topupd.WebhookDelivery) string {
	s := d.Type + " " + d.State
	if d.LastStatus != 0 {
		s += fmt.Sprintf(" (HTTP %d)", d.LastStatus)
	} else if d.LastError != "" {
		s += " (" + d.LastError + ")"
	}
	return s
}

// testWait bounds how long the bot watches a test's first attempt.
const testWait = 2 * time.Minute

// tellTest tells the chat how a test event's first attempt went, once it
// is recorded (this node watches for testWait; after a restart nobody does).
func (b *Bot) tellTest(ctx context.Context, r *request, c topupd.Chat, endpointID, eventID string) {
	deadline := time.Now().Add(testWait)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
		page, err := b.Service.WebhookDeliveries(ctx, r.actor, endpointID, nil, 20)
		if err != nil {
			return
		}
		for _, d := range page.Deliveries {
			if d.EventID != eventID || d.Attempts == 0 {
				continue
			}
			text := fmt.Sprintf("The test of %s: the first attempt failed", endpointID)
			if d.LastStatus >= 200 && d.LastStatus < 300 {
				text = fmt.Sprintf("The test of %s: delivered", endpointID)
			}
			if d.LastStatus != 0 {
				text += fmt.Sprintf(", the receiver answered HTTP %d.", d.LastStatus)
			} else {
				text += " (" + d.LastError + ")."
			}
			if err := b.notify(ctx, r.api, c.ChatID, NoticePrefix+text); err != nil {
				b.Logger.Warn("telegram: telling a webhook test", "err", b.scrub(err))
			}
			return
		}
	}
}
