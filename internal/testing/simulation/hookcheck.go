package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
)

// expected is a webhook event a receiver must get: its account, type and,
// for an order's event, the order and the status it was told with.
type expected struct {
	account, typ string
	seq          int64
	orderID      string
	status       string
}

// checkHooks checks, once every delivery was made, that each event of the
// stream after the notifier's start that concerns an account with an
// endpoint (by the notifier's rules) reached that account's receiver with a
// 2xx, under the stream's id (or, for a catalog change, the id derived from
// it and the account's), with the order's status at that event; and that
// no receiver got an event that is not its account's.
func (w *World) checkHooks(ctx context.Context) error {
	events, err := w.streamAfter(ctx, w.hooks.start)
	if err != nil {
		return err
	}
	byAccount := map[string]*receiver{}
	for _, r := range w.hooks.receivers {
		byAccount[r.account] = r
	}
	want := map[string]expected{}
	for _, e := range events {
		for id, x := range w.hookEvents(&e) {
			if r := byAccount[x.account]; r != nil && r.wants(x.typ) {
				want[id] = x
			}
		}
	}
	for id, x := range want {
		r := byAccount[x.account]
		d, ok := r.got[id]
		switch {
		case !ok:
			w.fail("%s never got %s %s%s with a 2xx", r.name, x.typ, id, w.ofOrder(x.seq))
		case d.Type != x.typ:
			w.fail("%s got %s as %s, the stream says %s", r.name, id, d.Type, x.typ)
		case x.orderID != "" && (d.Data.OrderID != x.orderID || d.Data.Status != x.status):
			w.fail("%s got %s of #%d as order %s %s, not %s", r.name, x.typ, w.ord(x.seq), d.Data.OrderID, d.Data.Status, x.status)
		}
	}
	n := 0
	for _, r := range w.hooks.receivers {
		for id := range r.got {
			n++
			if x, ok := want[id]; !ok || x.account != r.account {
				w.fail("%s got %s, an event not of its account's", r.name, id)
			}
		}
	}
	w.logf("webhooks: %d events of the stream, %d deliveries expected, %d received", len(events), len(want), n)
	return nil
}

// hookEvents are the webhook events a stream event makes, by id, as
// integration.md's "Webhooks" tells them (webhooks.Notifier): an order
// completed or cancelled and a credit, under the stream event's id, to
// the account (a sandbox's to its live account); a change of packs, to
// each account it names (every live one when it names none), under an id
// derived from the event's and the account's.
func (w *World) hookEvents(e *topupd.Event) map[string]expected {
	out := map[string]expected{}
	owner, _ := topupd.LiveID(e.AccountID)
	switch e.Type {
	case topupd.OrderCompleted:
		out[e.ID] = expected{account: owner, typ: topupd.WebhookOrderCompleted, seq: e.OrderSeq, orderID: e.OrderID, status: string(topupd.StatusCompleted)}
	case topupd.OrderCancelled:
		out[e.ID] = expected{account: owner, typ: topupd.WebhookOrderCancelled, seq: e.OrderSeq, orderID: e.OrderID, status: string(topupd.StatusCancelled)}
	case topupd.BalanceCredited:
		if e.AccountID != "" {
			out[e.ID] = expected{account: owner, typ: topupd.WebhookBalanceCredited}
		}
	case topupd.EventDepositConfirmed, topupd.EventDepositRejected, topupd.EventDepositExpired:
		kind, _ := topupd.KindOf(e.Type)
		out[e.ID] = expected{account: owner, typ: kind.Webhook}
	case topupd.PacksChanged:
		c, ok := e.Data.(*topupd.PacksChangedData)
		if !ok || !c.AllPacks && len(c.PIDs) == 0 {
			return out
		}
		accounts := c.Accounts
		if accounts == nil {
			accounts = w.model.accounts // every live account: all were made in setup
		}
		for _, a := range accounts {
			out[topupd.DerivedEventID(e.ID, e.At, a)] = expected{account: a, typ: topupd.WebhookCatalogChanged}
		}
	}
	return out
}

// ofOrder names an order's event's order in a message.
func (w *World) ofOrder(seq int64) string {
	if seq == 0 {
		return ""
	}
	return fmt.Sprintf(" of #%d", w.ord(seq))
}
