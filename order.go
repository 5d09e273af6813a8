package topupd

import (
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd/client"
)

// DefaultOrderDeadline is how long an order may stay processing before it
// is cancelled and refunded, unless a supplier may have it (then it waits
// for the supplier's answer or the operator).
const DefaultOrderDeadline = 30 * time.Minute

// OrderStatus is the state of an order as the reseller API shows it: the
// Go client's Status, with its Final method (completed and cancelled are
// final), as Money is the client's Money.
type OrderStatus = client.Status

// The order states.
const (
	StatusProcessing = client.StatusProcessing
	StatusCompleted  = client.StatusCompleted
	StatusCancelled  = client.StatusCancelled
)

// SupplierState records how far the supplier has got with an order, so that
// a retry after an unknown outcome asks before it submits again.
type SupplierState string

// The supplier states.
const (
	// SupplierNew: the supplier was never called for this order.
	SupplierNew SupplierState = "new"
	// SupplierSubmitting: a submit was started; its outcome may be unknown.
	SupplierSubmitting SupplierState = "submitting"
	// SupplierAccepted: the supplier has the order.
	SupplierAccepted SupplierState = "accepted"
)

// AccountFields are the player account fields of an order, named as the
// reseller API names them (an OrderView shows them so, omitting an empty one).
type AccountFields struct {
	UserID   string `json:"userId,omitempty"`
	ZoneID   string `json:"zoneId,omitempty"`
	ServerID string `json:"serverId,omitempty"`
	Region   string `json:"region,omitempty"`
	MoreID   string `json:"moreId,omitempty"`
}

// get returns the value of one named field.
func (f *AccountFields) get(name string) *string {
	switch name {
	case FieldUserID:
		return &f.UserID
	case FieldZoneID:
		return &f.ZoneID
	case FieldServerID:
		return &f.ServerID
	case FieldRegion:
		return &f.Region
	case FieldMoreID:
		return &f.MoreID
	}
	return nil
}

// OrderRequest is a decoded POST /orders body.
type OrderRequest struct {
	PID            string
	TrxID          string
	IdempotencyKey string
	Fields         AccountFields
	// Quantity is 0 when the body carried none.
	Quantity int
	// MaxPrice, when set, is the most the order may cost (maxPriceUsd).
	// It is not part of what makes two requests the same: a replay
	// answers the earlier order whatever it says.
	MaxPrice *Money
}

// Key returns the idempotency key of the request: idempotencyKey when sent,
// otherwise the trxid.
func (r *OrderRequest) Key() string {
	if r.IdempotencyKey != "" {
		return r.IdempotencyKey
	}
	return r.TrxID
}

// Order is one placed order.
type Order struct {
	Seq       int64 // internal id
	ID        string
	AccountID string
	TrxID     string
	// IdempotencyKey is the order's effective key: the idempotencyKey it was
	// placed with, or else its trxid.
	IdempotencyKey string
	PID            string
	Slug           string
	Game           string
	Kind           LineKind
	PackName       string
	Provider       string
	Quantity       int
	Amount         Money
	Fields         AccountFields
	Status         OrderStatus
	Error          string
	Refunded       bool
	Codes          []string
	CreatedAt      time.Time
	FinishedAt     time.Time
	DeadlineAt     time.Time
	Supplier       SupplierState
	Attempts       int
	// Upstream and UpstreamPID, for an order fulfilled by an upstream
	// server, are the pack's as they were when it was placed.
	Upstream    string
	UpstreamPID string
	// SupplierRef is the supplier's own id of the order, once known.
	SupplierRef string
	// CodeCount is how many codes were delivered to the order.
	CodeCount int
	// Fingerprint is the placing request's OrderRequest.Fingerprint.
	Fingerprint string
	// Alert, on a processing order, says why it needs the operator (see
	// AlertPastDeadline and AlertCodeUsed); empty when it does not.
	Alert string
	// Cost is what the order cost the business, fixed when it completed
	// from a cost that was set (its supplier's or its pack's, or each
	// code's batch's, else its pack's); nil until then, for an order never
	// completed, and for a completed order whose cost is not known (no
	// cost was set, or it completed before costs were kept).
	Cost *Money
	// Sandbox marks an order of an account's sandbox (sandbox.go).
	Sandbox bool
	// Route is the servers the order passed through before this one, as
	// its request said: the engine's calls to an upstream name them
	// (route.go).
	Route Route
}

// The alerts a processing order can raise.
const (
	// AlertPastDeadline: the deadline passed while the supplier may have the
	// order and has given no final answer; the order is never refunded
	// without one, or without an operator's decision.
	AlertPastDeadline = "PAST DEADLINE: OUTCOME UNKNOWN"
	// AlertCodeUsed: the supplier delivered a code that was already sold or
	// is held in stock; the order is not completed with it.
	AlertCodeUsed = "SUPPLIER DELIVERED A USED CODE"
)

// TakesCodes reports whether an operator completing the order may deliver
// codes with it: a key or gift-card order, or an order an upstream server
// fulfils (whose packs may deliver codes). A top-up or subscription of any
// other supplier delivers none.
func (o *Order) TakesCodes() bool {
	return o.Kind == KindGamekey || o.Kind == KindGiftcard || o.Provider == ProviderUpstream
}

// Duration returns how long the order has taken: until now while processing.
func (o *Order) Duration(now time.Time) time.Duration {
	end := now
	if o.Status.Final() && !o.FinishedAt.IsZero() {
		end = o.FinishedAt
	}
	if end.Before(o.CreatedAt) {
		return 0
	}
	return end.Sub(o.CreatedAt)
}

// ResellerView is the part of the order a reseller sees, with every other
// field left zero: what OrderStore.ResellerOrder and History return.
func (o *Order) ResellerView() Order {
	return Order{
		Seq: o.Seq, ID: o.ID, AccountID: o.AccountID, TrxID: o.TrxID, PID: o.PID, Game: o.Game, PackName: o.PackName,
		Quantity: o.Quantity, Amount: o.Amount, Fields: o.Fields, Status: o.Status, Error: o.Error, Refunded: o.Refunded,
		Codes: o.Codes, CreatedAt: o.CreatedAt, FinishedAt: o.FinishedAt, CodeCount: o.CodeCount, Sandbox: o.Sandbox,
	}
}

// Draft is a validated order about to be placed.
type Draft struct {
	Quantity   int
	Amount     Money
	Fields     AccountFields
	DrawsStock bool
}

// Prepare checks an order request against its line and pack and works out
// what it costs. It does not look at balance or stock.
func Prepare(req *OrderRequest, line *Line, pack *Pack) (Draft, error) {
	switch {
	case line.Status != StatusActive:
		return Draft{}, Fail(EGameDisabled)
	case pack.Status != StatusActive:
		return Draft{}, Fail(EProductDisabled)
	}
	qty := req.Quantity
	if qty != 0 && !pack.TakesQuantity(line) {
		return Draft{}, Fail(EQuantityOnlyStock)
	}
	if qty > MaxQuantity {
		return Draft{}, Fail(EQuantityExceedsMax)
	}
	if qty < 0 {
		return Draft{}, Errorf(EInvalidBody, "quantity must be at least 1")
	}
	if err := line.checkQuantity(qty); err != nil {
		return Draft{}, err
	}
	if qty == 0 {
		qty = 1
	}
	fields, err := line.checkFields(req.Fields)
	if err != nil {
		return Draft{}, err
	}
	amount, ok := pack.Price.Times(qty)
	if !ok {
		return Draft{}, Fail(EInvalidPack)
	}
	return Draft{Quantity: qty, Amount: amount, Fields: fields, DrawsStock: pack.DrawsStock(line)}, nil
}

// CheckMaxPrice refuses a draft that costs more than the request's
// MaxPrice: PRICE_ABOVE_MAX, rejected at submit for the line's game,
// saying what the order would cost. The draft's amount must be the one
// about to be charged, fixed in the charge's transaction.
func (r *OrderRequest) CheckMaxPrice(d *Draft, game string) error {
	if r.MaxPrice == nil || d.Amount <= *r.MaxPrice {
		return nil
	}
	amount := d.Amount
	return &Error{Code: EPriceAboveMax, Game: game, Amount: &amount,
		Detail: "the order costs " + amount.String() + " USD, above maxPriceUsd " + r.MaxPrice.String()}
}

// checkQuantity checks the order's quantity (0 when the body had none)
// against the line's required quantity, if it declares one: present, and
// matching its pattern.
func (l *Line) checkQuantity(qty int) error {
	for _, r := range l.Required {
		if r.Field != FieldQuantity {
			continue
		}
		if qty == 0 {
			return Errorf(EInvalidRequest, "quantity is required")
		}
		if r.Pattern != "" {
			re, err := compilePattern(r.Pattern)
			if err != nil || !re.MatchString(strconv.Itoa(qty)) {
				return Errorf(EInvalidRequest, "quantity does not match %s", r.Pattern)
			}
		}
	}
	return nil
}

// checkFields keeps the fields the line requires, checks each against its
// pattern and options, and drops the rest. A region-requiring line that does
// not itself require serverId also takes the region from serverId, and echoes
// the region back as serverId; there, a region and a serverId that name
// different regions (ignoring case, as options are matched) are INVALID BODY.
func (l *Line) checkFields(in AccountFields) (AccountFields, error) {
	var out AccountFields
	requires := map[string]bool{}
	for _, r := range l.Required {
		requires[r.Field] = true
	}
	if requires[FieldRegion] && !requires[FieldServerID] {
		region, server := strings.TrimSpace(in.Region), strings.TrimSpace(in.ServerID)
		switch {
		case region == "":
			in.Region = in.ServerID
		case server != "" && !strings.EqualFold(region, server):
			return out, Errorf(EInvalidBody, "region and serverId disagree: on this line serverId is the region")
		}
	}
	for _, r := range l.Required {
		if r.Field == FieldQuantity {
			continue // checkQuantity's
		}
		v := strings.TrimSpace(*in.get(r.Field))
		if v == "" {
			return out, Errorf(EInvalidRequest, "%s is required", r.Field)
		}
		if len(v) > 100 {
			return out, Errorf(EInvalidRequest, "%s: at most 100 characters", r.Field)
		}
		if r.Pattern != "" {
			re, err := compilePattern(r.Pattern)
			if err != nil || !re.MatchString(v) {
				return out, Errorf(EInvalidRequest, "%s does not match %s", r.Field, r.Pattern)
			}
		}
		opts := l.ServerIDOptions
		if r.Field == FieldRegion {
			opts = l.RegionOptions
		}
		if (r.Field == FieldServerID || r.Field == FieldRegion) && len(opts) > 0 {
			canon, ok := matchOption(opts, v)
			if !ok {
				return out, Errorf(EInvalidRequest, "%s: not one of the line's options", r.Field)
			}
			v = canon
		}
		*out.get(r.Field) = v
	}
	if requires[FieldRegion] && !requires[FieldServerID] {
		out.ServerID = out.Region
	}
	return out, nil
}

// matchOption finds v among the options, ignoring case, and returns the
// option's own spelling.
func matchOption(opts []Option, v string) (string, bool) {
	for _, o := range opts {
		if strings.EqualFold(o.Value, v) {
			return o.Value, true
		}
	}
	return "", false
}
