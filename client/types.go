package client

import (
	"encoding/json"
	"time"
)

// Status is the state of an order.
type Status string

// The order states; completed and cancelled are final.
const (
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusCancelled  Status = "cancelled"
)

// Final reports whether the status can no longer change.
func (s Status) Final() bool { return s == StatusCompleted || s == StatusCancelled }

// Order is an order (invoice) as POST /orders, GET /orders/{id} and GET /history show it.
type Order struct {
	// OrderCreated is false only for an order rejected at submit (see Error.Order).
	OrderCreated bool   `json:"orderCreated"`
	OrderID      string `json:"orderId,omitempty"`
	TrxID        string `json:"trxid,omitempty"`
	Status       Status `json:"status"`
	// Game is the game key of the line, for example "pubg" or "gamekey".
	Game     string `json:"game,omitempty"`
	PID      string `json:"pid,omitempty"`
	PackName string `json:"packName,omitempty"`
	Quantity int    `json:"quantity,omitempty"`
	// AmountUSD is what the order costs (and was charged).
	AmountUSD Money `json:"amountUsd"`
	// DurationSec is whole seconds since placement; it grows while processing.
	DurationSec int64  `json:"durationSec"`
	UserID      string `json:"userId,omitempty"`
	ZoneID      string `json:"zoneId,omitempty"`
	ServerID    string `json:"serverId,omitempty"`
	Region      string `json:"region,omitempty"`
	MoreID      string `json:"moreId,omitempty"`
	// Codes are the delivered keys or gift cards of a completed order.
	Codes []string `json:"codes,omitempty"`
	// Error says why the order was cancelled or rejected.
	Error string `json:"error,omitempty"`
	// Refunded is true on a cancelled order whose charge was given back.
	Refunded bool `json:"refunded,omitempty"`
	// IdempotentReplay is true when POST /orders answered an earlier order with the same trxid.
	IdempotentReplay bool      `json:"idempotentReplay,omitempty"`
	CreatedAt        time.Time `json:"createdAt,omitzero"`
}

// Final reports whether the order is completed or cancelled (false for nil).
func (o *Order) Final() bool { return o != nil && o.Status.Final() }

// Duration returns DurationSec as a time.Duration.
func (o *Order) Duration() time.Duration { return time.Duration(o.DurationSec) * time.Second }

// UnmarshalJSON reads an order leniently: ids may be JSON strings or
// numbers, amounts are exact, and an unreadable createdAt is left zero.
func (o *Order) UnmarshalJSON(b []byte) error {
	type plain Order
	var w struct {
		*plain
		OrderID     flexString      `json:"orderId"`
		TrxID       flexString      `json:"trxid"`
		PID         flexString      `json:"pid"`
		UserID      flexString      `json:"userId"`
		ZoneID      flexString      `json:"zoneId"`
		ServerID    flexString      `json:"serverId"`
		Region      flexString      `json:"region"`
		MoreID      flexString      `json:"moreId"`
		AmountUSD   flexMoney       `json:"amountUsd"`
		DurationSec flexSeconds     `json:"durationSec"`
		CreatedAt   json.RawMessage `json:"createdAt"`
	}
	*o = Order{}
	w.plain = (*plain)(o)
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	o.OrderID, o.TrxID, o.PID = string(w.OrderID), string(w.TrxID), string(w.PID)
	o.UserID, o.ZoneID, o.ServerID = string(w.UserID), string(w.ZoneID), string(w.ServerID)
	o.Region, o.MoreID = string(w.Region), string(w.MoreID)
	o.AmountUSD, o.DurationSec = Money(w.AmountUSD), int64(w.DurationSec)
	var ts string
	if json.Unmarshal(w.CreatedAt, &ts) == nil && ts != "" {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			o.CreatedAt = t
		}
	}
	return nil
}

// OrderRequest is the body of POST /orders. Which account fields a line
// needs is listed by Services.
type OrderRequest struct {
	// PID is the catalog id of the pack (Product.ID). Required.
	PID string `json:"pid"`
	// TrxID is your own unique id for this purchase. Required; a new purchase
	// needs a new one, and the same one makes a retry safe.
	TrxID    string `json:"trxid"`
	UserID   string `json:"userId,omitempty"`
	ZoneID   string `json:"zoneId,omitempty"`
	ServerID string `json:"serverId,omitempty"`
	Region   string `json:"region,omitempty"`
	MoreID   string `json:"moreId,omitempty"`
	// Quantity is for gamekey, giftcard and other stock-based packs: 1 to 500.
	Quantity int `json:"quantity,omitempty"`
	// IdempotencyKey optionally replaces TrxID as the idempotency key.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// MaxPriceUSD, when not nil, is the most the order may cost: when its
	// amount would be higher, it is rejected with nothing charged, as an
	// *Error with code CodePriceAboveMax whose Order holds the amount it
	// would have cost. The price compared is the one charged. A replay of
	// an earlier order answers that order, whatever MaxPriceUSD it carries.
	MaxPriceUSD *Money `json:"maxPriceUsd,omitempty"`
}

// Product is one row of the catalog: one orderable pack.
type Product struct {
	// ID is the stable PID, sent as OrderRequest.PID.
	ID          string `json:"id"`
	Slug        string `json:"slug"`
	GameName    string `json:"gameName"`
	ServiceName string `json:"serviceName"`
	Category    string `json:"category"`
	Price       Money  `json:"price"`
	Status      string `json:"status"`
	Game        string `json:"game,omitempty"`
	Kind        string `json:"kind,omitempty"`
	// Quantity is the live stock; it and the fields below are set only on stock-based packs.
	Quantity    *int  `json:"quantity,omitempty"`
	InStock     *bool `json:"inStock,omitempty"`
	QuantityMin *int  `json:"quantityMin,omitempty"`
	QuantityMax *int  `json:"quantityMax,omitempty"`
	// NextPriceUSD is what the account will pay from NextPriceAt on, when
	// a change of the pack's list price is scheduled and moves its price.
	NextPriceUSD *Money     `json:"nextPriceUsd,omitempty"`
	NextPriceAt  *time.Time `json:"nextPriceAt,omitempty"`
}

// UnmarshalJSON reads a catalog row with an exact price.
func (p *Product) UnmarshalJSON(b []byte) error {
	type plain Product
	var w struct {
		*plain
		Price flexMoney `json:"price"`
	}
	*p = Product{}
	w.plain = (*plain)(p)
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p.Price = Money(w.Price)
	return nil
}

// Service is an orderable line and the order fields it requires.
type Service struct {
	ProductName string          `json:"productName"`
	Slug        string          `json:"slug"`
	GameName    string          `json:"gameName"`
	Game        string          `json:"game,omitempty"`
	Kind        string          `json:"kind,omitempty"`
	Required    []RequiredField `json:"required"`
	Status      string          `json:"status"`
	// ServerIDOptions are the allowed serverId values, when the line has a list.
	ServerIDOptions []Choice `json:"serverIdOptions,omitempty"`
	// RegionOptions are the allowed region values, when the line has a list.
	RegionOptions []Choice `json:"regionOptions,omitempty"`
}

// RequiredField is one order body field a line requires.
type RequiredField struct {
	Field   string `json:"field"`
	Label   string `json:"label"`
	Pattern string `json:"pattern,omitempty"`
}

// Choice is one allowed value of a serverId or region field.
type Choice struct {
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
}

// UnmarshalJSON reads {"value","label"} or a plain string.
func (c *Choice) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = Choice{Value: s, Label: s}
		return nil
	}
	type plain Choice
	return json.Unmarshal(b, (*plain)(c))
}

// HistoryQuery asks GET /history in simple mode.
type HistoryQuery struct {
	// Limit is how many of the newest orders to return: 1 to 200, 0 for the server's default (30).
	Limit int
	// TrxID, when set, looks up the order of that trxid alone: the answer
	// holds it, or nothing.
	TrxID string
}

// OrderPage is one page of GET /history in paged mode.
type OrderPage struct {
	Orders   []Order `json:"orders"`
	Count    int     `json:"count"`
	Page     int     `json:"page"`
	PageSize int     `json:"pageSize"`
	// Total is how many orders the account has.
	Total int `json:"total"`
	// HasMore is true when a later page holds older orders.
	HasMore bool `json:"hasMore"`
}
