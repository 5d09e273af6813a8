package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// NotifierStore is what the notifier needs of the database.
type NotifierStore interface {
	ResellerOrderWithoutCodes(ctx context.Context, accountID, id string) (topupd.Order, error)
	AddWebhookEvents(ctx context.Context, events []topupd.WebhookEvent, now time.Time) error
	CatalogReaders(ctx context.Context, at time.Time) ([]string, error)
	PIDsOnSale(ctx context.Context) ([]string, error)
}

// Notifier turns the event stream's events into webhook events of their
// accounts (topupd.Notifier): an order completed, a created order
// cancelled, a credit, each with the stream event's id; and a change of
// packs (packs.changed) as a catalog.changed event for each account it
// concerns, with an id derived from the stream event's and the account's
// (catalog.go). The store queues each event's deliveries to the account's
// endpoints in the same transaction and adds nothing for an event told
// again.
type Notifier struct {
	store NotifierStore
	now   func() time.Time
	wake  func()
}

// NewNotifier returns the notifier; wake (may be nil) is called after
// events were added, to tell this node's deliverer.
func NewNotifier(store NotifierStore, now func() time.Time, wake func()) *Notifier {
	if now == nil {
		now = time.Now
	}
	if wake == nil {
		wake = func() {}
	}
	return &Notifier{store: store, now: now, wake: wake}
}

// Name names the notifier's cursor.
func (*Notifier) Name() string { return "webhooks" }

// Notify adds the webhook events of the stream's events.
func (n *Notifier) Notify(ctx context.Context, events []topupd.Event) error {
	var out []topupd.WebhookEvent
	for _, e := range events {
		if d, ok := e.Data.(*topupd.PacksChangedData); ok {
			// Every account's event of the change; they may be many, so
			// they are stored apart, and the ones stored before a failure
			// are left as they are when the change is told again.
			catalog, err := n.catalogEvents(ctx, &e, d)
			if err != nil {
				return err
			}
			if err := n.add(ctx, catalog); err != nil {
				return err
			}
			continue
		}
		ev, ok, err := n.event(ctx, &e)
		if err != nil {
			return err
		}
		if ok {
			out = append(out, ev)
		}
	}
	return n.add(ctx, out)
}

// add stores events, in batches of at most addBatch, and wakes the
// deliverer.
func (n *Notifier) add(ctx context.Context, events []topupd.WebhookEvent) error {
	if len(events) == 0 {
		return nil
	}
	for len(events) > 0 {
		k := min(len(events), addBatch)
		if err := n.store.AddWebhookEvents(ctx, events[:k], n.now()); err != nil {
			return err
		}
		events = events[k:]
	}
	n.wake()
	return nil
}

// addBatch is the most events stored in one transaction.
const addBatch = 500

// event is the webhook event of a stream event, if its type has one
// (topupd.EventKinds).
func (n *Notifier) event(ctx context.Context, e *topupd.Event) (topupd.WebhookEvent, bool, error) {
	ev := topupd.WebhookEvent{ID: e.ID, AccountID: e.AccountID, At: e.At}
	kind, ok := topupd.KindOf(e.Type)
	if e.AccountID == "" || !ok || kind.Webhook == "" {
		return ev, false, nil
	}
	ev.Type = kind.Webhook
	var data any
	switch d := e.Data.(type) {
	case *topupd.OrderCompletedData, *topupd.OrderCancelledData:
		// Only created orders have events in the stream, so every
		// cancellation here is of an order with orderCreated true.
		o, err := n.store.ResellerOrderWithoutCodes(ctx, e.AccountID, e.OrderID)
		if err != nil {
			return ev, false, fmt.Errorf("webhooks: event %s: %w", e.ID, err)
		}
		v := topupd.ViewOrder(&o, n.now()) // no codes: the integrator fetches them with its key
		v.IdempotentReplay = nil
		data = v
	case *topupd.BalanceCreditedData:
		data = credited{Amount: d.Amount, Balance: d.Balance, Reference: d.Reference}
	case *topupd.DepositData:
		data = d.DepositView
	case *topupd.DisputeData:
		data = d.DisputeView
	default:
		return ev, false, fmt.Errorf("webhooks: event %s: no webhook data for %s", e.ID, e.Type)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return ev, false, fmt.Errorf("webhooks: event %s: %w", e.ID, err)
	}
	ev.Data = b
	return ev, true, nil
}

// credited is a balance.credited event's data.
type credited struct {
	Amount    topupd.Money `json:"amountUsd"`
	Balance   topupd.Money `json:"balanceUsd"`
	Reference string       `json:"reference"`
}
