package topupd

import (
	"encoding/json"
	"fmt"
	"time"
)

// EventType names a kind of change in the event stream.
type EventType string

// The kinds of change the stream carries, each with its payload (the
// EventData struct of the same name). Each is written in the transaction
// of the change it tells of, by the operation that makes the change, so a
// committed change always has its event and a rolled-back one never does.
const (
	// OrderPlaced: an order was created (OrderPlacedData).
	OrderPlaced EventType = "order.placed"
	// OrderCompleted: an order became completed, at placement or later
	// (OrderCompletedData).
	OrderCompleted EventType = "order.completed"
	// OrderCancelled: an order ended cancelled, refunded or not
	// (OrderCancelledData).
	OrderCancelled EventType = "order.cancelled"
	// OrderRetried: an operator made a processing order due again
	// (OrderRetriedData).
	OrderRetried EventType = "order.retried"
	// OrderMoved: an order moved on to its next supplier (OrderMovedData).
	OrderMoved EventType = "order.moved"
	// BalanceCredited: the operator credited or debited an account, or a
	// sandbox got its opening balance (BalanceCreditedData).
	BalanceCredited EventType = "balance.credited"
	// AccountChanged: an operator or a chat changed an account, its keys,
	// chats, prices or webhook endpoints (AccountChangedData).
	AccountChanged EventType = "account.changed"
	// CatalogChanged: an operator changed the catalog: a line, a pack, a
	// pack's stock or batches, an upstream or a price tier
	// (CatalogChangedData).
	CatalogChanged EventType = "catalog.changed"
	// PacksChanged: packs a reseller can see changed price or status, went
	// in or out of stock, or their line changed status; written by the
	// database's triggers in the change's transaction (migration 00025)
	// (PacksChangedData). The webhooks notifier makes catalog.changed
	// webhook events of it.
	PacksChanged EventType = "packs.changed"
	// WebhookDisabled: the server disabled a webhook endpoint of the
	// account (WebhookDisabledData).
	WebhookDisabled EventType = "webhook.disabled"
	// SupplierBalanceWarn, SupplierBalanceCritical and
	// SupplierBalanceRecovered: an upstream's balance alert changed to
	// warn, critical or none (SupplierBalanceData). Operator events only.
	SupplierBalanceWarn      EventType = "supplier.balance.warn"
	SupplierBalanceCritical  EventType = "supplier.balance.critical"
	SupplierBalanceRecovered EventType = "supplier.balance.recovered"
	// ReconciliationMismatches: a reconciliation was made with at least one
	// mismatch (ReconciliationMismatchesData). An operator event.
	ReconciliationMismatches EventType = "reconciliation.mismatches"
	// ReconciliationFailed: a nightly reconciliation could not read its
	// supplier (ReconciliationFailedData). An operator event.
	ReconciliationFailed EventType = "reconciliation.failed"
	// EventDepositConfirmed, EventDepositRejected and EventDepositExpired: a deposit
	// ticket was credited, rejected, or reached its time while pending
	// (DepositData).
	EventDepositConfirmed EventType = "deposit.confirmed"
	EventDepositRejected  EventType = "deposit.rejected"
	EventDepositExpired   EventType = "deposit.expired"
	// EventDisputeOpened: a reseller disputed a completed order
	// (DisputeData).
	EventDisputeOpened EventType = "dispute.opened"
	// EventPriceHeld: a pricing rule's rise of a pack's price waits for an
	// operator (PriceHeldData). An operator event.
	EventPriceHeld EventType = "price.held"
)

// EventData is an event's payload: one struct per event type, each
// listed once in EventKinds. Only pointers to the payload structs are
// EventData.
type EventData interface {
	// EventType is the type of the events that carry this payload.
	EventType() EventType
}

// EventKind is one type of event: its payload, and the webhook event its
// events become for the account's endpoints, if any.
type EventKind struct {
	// Type is the event type.
	Type EventType
	// New returns an empty payload of the type, to read one into.
	New func() EventData
	// Webhook is the webhook event type (integration.md "Events") that the
	// account's endpoints are sent for each event of the type; "" for none.
	Webhook string
	// Operator marks an operator event (back-office.md "Operator
	// events"): told in GET /admin/events and to operators' chats, never
	// to a reseller.
	Operator bool
}

// EventKinds is the one registry of event types: the stream's types, their
// payloads and the webhook types made of them. WebhookEventTypes, the
// console's list of types and both OpenAPI documents' enums follow it (and
// tests hold them to it).
var EventKinds = []EventKind{
	{Type: OrderPlaced, New: func() EventData { return new(OrderPlacedData) }},
	{Type: OrderCompleted, New: func() EventData { return new(OrderCompletedData) }, Webhook: WebhookOrderCompleted},
	{Type: OrderCancelled, New: func() EventData { return new(OrderCancelledData) }, Webhook: WebhookOrderCancelled},
	{Type: OrderRetried, New: func() EventData { return new(OrderRetriedData) }},
	{Type: OrderMoved, New: func() EventData { return new(OrderMovedData) }},
	{Type: BalanceCredited, New: func() EventData { return new(BalanceCreditedData) }, Webhook: WebhookBalanceCredited},
	{Type: AccountChanged, New: func() EventData { return new(AccountChangedData) }},
	{Type: CatalogChanged, New: func() EventData { return new(CatalogChangedData) }},
	{Type: PacksChanged, New: func() EventData { return new(PacksChangedData) }, Webhook: WebhookCatalogChanged},
	{Type: WebhookDisabled, New: func() EventData { return new(WebhookDisabledData) }},
	{Type: SupplierBalanceWarn, New: func() EventData { return &SupplierBalanceData{Type: SupplierBalanceWarn} }, Operator: true},
	{Type: SupplierBalanceCritical, New: func() EventData { return &SupplierBalanceData{Type: SupplierBalanceCritical} }, Operator: true},
	{Type: SupplierBalanceRecovered, New: func() EventData { return &SupplierBalanceData{Type: SupplierBalanceRecovered} }, Operator: true},
	{Type: ReconciliationMismatches, New: func() EventData { return new(ReconciliationMismatchesData) }, Operator: true},
	{Type: ReconciliationFailed, New: func() EventData { return new(ReconciliationFailedData) }, Operator: true},
	{Type: EventDepositConfirmed, New: func() EventData { return &DepositData{Type: EventDepositConfirmed} }, Webhook: WebhookDepositConfirmed},
	{Type: EventDepositRejected, New: func() EventData { return &DepositData{Type: EventDepositRejected} }, Webhook: WebhookDepositRejected},
	{Type: EventDepositExpired, New: func() EventData { return &DepositData{Type: EventDepositExpired} }, Webhook: WebhookDepositExpired},
	{Type: EventDisputeOpened, New: func() EventData { return &DisputeData{Type: EventDisputeOpened} }, Webhook: WebhookDisputeOpened},
	{Type: EventPriceHeld, New: func() EventData { return new(PriceHeldData) }, Operator: true},
}

// OperatorEventTypes are the operator events' types, in the registry's order.
func OperatorEventTypes() []EventType {
	var out []EventType
	for _, k := range EventKinds {
		if k.Operator {
			out = append(out, k.Type)
		}
	}
	return out
}

// KindOf finds an event type in EventKinds.
func KindOf(t EventType) (EventKind, bool) {
	for _, k := range EventKinds {
		if k.Type == t {
			return k, true
		}
	}
	return EventKind{}, false
}

// DecodeEventData reads an event's stored payload as its type's struct.
// A type this release does not know (one a newer release wrote) reads as
// UnknownEventData, which every consumer passes over.
func DecodeEventData(t EventType, raw []byte) (EventData, error) {
	k, ok := KindOf(t)
	if !ok {
		return &UnknownEventData{Type: t, Raw: append(json.RawMessage(nil), raw...)}, nil
	}
	d := k.New()
	if len(raw) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, fmt.Errorf("event %s: %w", t, err)
	}
	return d, nil
}

// Millis is an instant as the event stream stores it: whole milliseconds
// since 1970 UTC, a JSON integer; 0 is none.
type Millis int64

// MillisOf is t in Millis (0 for the zero time).
func MillisOf(t time.Time) Millis {
	if t.IsZero() {
		return 0
	}
	return Millis(t.UnixMilli())
}

// Time is m as a time, UTC (the zero time for 0).
func (m Millis) Time() time.Time {
	if m == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(m)).UTC()
}

// OrderFacts are what every order event says of its order, as the
// stream's consumers need it (metrics, notices): not its codes, fields or
// supplier's answers.
type OrderFacts struct {
	OrderID  string      `json:"orderId"`
	TrxID    string      `json:"trxid"`
	PID      string      `json:"pid"`
	Slug     string      `json:"slug"`
	Provider string      `json:"provider"`
	Upstream string      `json:"upstream,omitempty"`
	Status   OrderStatus `json:"status"`
	Amount   Money       `json:"amountUsd"`
	Sandbox  bool        `json:"sandbox,omitempty"`
	// CreatedAt, and FinishedAt once the order is final.
	CreatedAt  Millis `json:"createdAt"`
	FinishedAt Millis `json:"finishedAt,omitempty"`
	// Refunded and Error, for a cancelled order.
	Refunded bool   `json:"refunded,omitempty"`
	Error    string `json:"error,omitempty"`
	// Backfilled marks the events the migration that began the stream
	// wrote for the orders before it (00020): they say nothing else.
	Backfilled bool `json:"backfilled,omitempty"`
}

// FactsOf are an order's facts as its events tell them.
func FactsOf(o *Order) OrderFacts {
	f := OrderFacts{OrderID: o.ID, TrxID: o.TrxID, PID: o.PID, Slug: o.Slug, Provider: o.Provider, Upstream: o.Upstream,
		Status: o.Status, Amount: o.Amount, Sandbox: o.Sandbox, CreatedAt: MillisOf(o.CreatedAt)}
	if o.Status.Final() {
		f.FinishedAt = MillisOf(o.FinishedAt)
	}
	if o.Status == StatusCancelled {
		f.Refunded, f.Error = o.Refunded, o.Error
	}
	return f
}

// Facts are the order's facts: every order event's payload has them.
func (f *OrderFacts) Facts() *OrderFacts { return f }

// OrderEventData is the payload of every order event.
type OrderEventData interface {
	EventData
	// Facts are what the event says of its order.
	Facts() *OrderFacts
}

// OrderPlacedData is an order.placed event's payload.
type OrderPlacedData struct{ OrderFacts }

// OrderCompletedData is an order.completed event's payload.
type OrderCompletedData struct{ OrderFacts }

// OrderCancelledData is an order.cancelled event's payload (Refunded and
// Error say how it ended).
type OrderCancelledData struct{ OrderFacts }

// OrderRetriedData is an order.retried event's payload.
type OrderRetriedData struct {
	OrderFacts
	// By is "by <operator>", or "" when no operator is known.
	By string `json:"by"`
}

// OrderMovedData is an order.moved event's payload: the supplier it left,
// the outcome there and why.
type OrderMovedData struct {
	OrderFacts
	From    string `json:"from"`
	Outcome string `json:"outcome"`
	Why     string `json:"why"`
}

// BalanceCreditedData is a balance.credited event's payload.
type BalanceCreditedData struct {
	Amount    Money  `json:"amountUsd"`
	Balance   Money  `json:"balanceUsd"`
	Reference string `json:"reference"`
	// By is the operator (or chat) who credited it ("" for the server).
	By string `json:"by,omitempty"`
	// Sandbox marks a credit of a sandbox's books.
	Sandbox bool `json:"sandbox,omitempty"`
	// Backfilled marks the credits before the stream began (00020).
	Backfilled bool `json:"backfilled,omitempty"`
}

// ChangeFacts are what an account's or the catalog's change event says:
// the action log's entry of the change.
type ChangeFacts struct {
	Action string         `json:"action"`
	Target string         `json:"target"`
	By     string         `json:"by"`
	Before map[string]any `json:"before"`
	After  map[string]any `json:"after"`
}

// AccountChangedData is an account.changed event's payload.
type AccountChangedData struct{ ChangeFacts }

// CatalogChangedData is a catalog.changed event's payload (the stream's:
// an operator's change to the catalog).
type CatalogChangedData struct{ ChangeFacts }

// PacksChangedData is a packs.changed event's payload, as the database's
// triggers write it (00025).
type PacksChangedData struct {
	// PIDs are the packs that changed; AllPacks says every pack on sale did.
	PIDs     []string `json:"pids,omitempty"`
	AllPacks bool     `json:"allPacks,omitempty"`
	// Accounts are the live accounts the change concerns; nil for every one.
	Accounts []string `json:"accounts"`
}

// WebhookDisabledData is a webhook.disabled event's payload: the endpoint,
// the reason (WebhookGone, WebhookFailing) and the last attempt's status.
type WebhookDisabledData struct {
	EndpointID string `json:"endpointId"`
	URL        string `json:"url"`
	Reason     string `json:"reason"`
	Status     int    `json:"status"`
}

// SupplierBalanceData is the payload of a supplier.balance.* operator
// event: the upstream, its new level, its known balance and runway then
// (null while unknown).
type SupplierBalanceData struct {
	// Type is the event's type, one of the three.
	Type        EventType `json:"-"`
	Supplier    string    `json:"supplier"`
	Level       string    `json:"level"`
	Balance     *Money    `json:"balanceUsd"`
	RunwayHours *float64  `json:"runwayHours"`
}

// SupplierBalanceEvent is the operator event of an upstream's balance
// alert changing to level.
func SupplierBalanceEvent(u *Upstream, level string) *SupplierBalanceData {
	d := &SupplierBalanceData{Type: SupplierBalanceRecovered, Supplier: u.Name, Level: level, Balance: u.Balance}
	switch level {
	case BalanceAlertWarn:
		d.Type = SupplierBalanceWarn
	case BalanceAlertCritical:
		d.Type = SupplierBalanceCritical
	}
	if h, ok := u.Runway(); ok {
		d.RunwayHours = &h
	}
	return d
}

// ReconciliationMismatchesData is the payload of a
// reconciliation.mismatches operator event.
type ReconciliationMismatchesData struct {
	ReconciliationID string `json:"reconciliationId"`
	Supplier         string `json:"supplier"`
	From             string `json:"from"`
	To               string `json:"to"`
	Mismatches       int    `json:"mismatches"`
}

// ReconciliationFailedData is the payload of a reconciliation.failed
// operator event.
type ReconciliationFailedData struct {
	Supplier string `json:"supplier"`
	From     string `json:"from"`
	To       string `json:"to"`
	Error    string `json:"error"`
}

// UnknownEventData is the payload of an event of a type this release does
// not know, as it was stored.
type UnknownEventData struct {
	Type EventType
	Raw  json.RawMessage
}

// The payloads' types.

// EventType is order.placed.
func (*OrderPlacedData) EventType() EventType { return OrderPlaced }

// EventType is order.completed.
func (*OrderCompletedData) EventType() EventType { return OrderCompleted }

// EventType is order.cancelled.
func (*OrderCancelledData) EventType() EventType { return OrderCancelled }

// EventType is order.retried.
func (*OrderRetriedData) EventType() EventType { return OrderRetried }

// EventType is order.moved.
func (*OrderMovedData) EventType() EventType { return OrderMoved }

// EventType is balance.credited.
func (*BalanceCreditedData) EventType() EventType { return BalanceCredited }

// EventType is account.changed.
func (*AccountChangedData) EventType() EventType { return AccountChanged }

// EventType is catalog.changed.
func (*CatalogChangedData) EventType() EventType { return CatalogChanged }

// EventType is packs.changed.
func (*PacksChangedData) EventType() EventType { return PacksChanged }

// EventType is webhook.disabled.
func (*WebhookDisabledData) EventType() EventType          { return WebhookDisabled }
func (d *SupplierBalanceData) EventType() EventType        { return d.Type }
func (*ReconciliationMismatchesData) EventType() EventType { return ReconciliationMismatches }
func (*ReconciliationFailedData) EventType() EventType     { return ReconciliationFailed }

// EventType is the type it was stored under.
func (d *UnknownEventData) EventType() EventType { return d.Type }

// MarshalJSON writes the payload as it was stored.
func (d *UnknownEventData) MarshalJSON() ([]byte, error) {
	if len(d.Raw) == 0 {
		return []byte("{}"), nil
	}
	return d.Raw, nil
}

// DepositData is a deposit.* event's payload: the deposit as the reseller
// sees it.
type DepositData struct {
	// Type is the event's type (EventDepositConfirmed,
	// EventDepositRejected or EventDepositExpired).
	Type EventType `json:"-"`
	DepositView
}

// EventType is the deposit event's type.
func (d *DepositData) EventType() EventType { return d.Type }
