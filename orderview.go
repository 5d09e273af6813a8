package topupd

import "time"

// OrderView is an order in the reseller shape: as GET /orders/:orderId
// shows it, and as webhooks send it (without codes).
type OrderView struct {
	OrderCreated bool   `json:"orderCreated"`
	OrderID      string `json:"orderId"`
	TrxID        string `json:"trxid"`
	Status       string `json:"status"`
	Game         string `json:"game"`
	PID          string `json:"pid"`
	PackName     string `json:"packName"`
	Quantity     int    `json:"quantity"`
	AmountUsd    Money  `json:"amountUsd"`
	DurationSec  int64  `json:"durationSec"`
	AccountFields
	Codes            []string `json:"codes,omitempty"`
	Error            string   `json:"error,omitempty"`
	Refunded         *bool    `json:"refunded,omitempty"`
	IdempotentReplay *bool    `json:"idempotentReplay,omitempty"`
	CreatedAt        string   `json:"createdAt"`
	// Sandbox is true on a sandbox order; a live order never carries it.
	Sandbox bool `json:"sandbox,omitempty"`
}

// ViewOrder renders an order as of now.
func ViewOrder(o *Order, now time.Time) OrderView {
	v := OrderView{
		OrderCreated: true, OrderID: o.ID, TrxID: o.TrxID, Status: string(o.Status), Game: o.Game, PID: o.PID,
		PackName: o.PackName, Quantity: o.Quantity, AmountUsd: o.Amount, DurationSec: int64(o.Duration(now) / time.Second),
		AccountFields: o.Fields, Codes: o.Codes, Error: o.Error, CreatedAt: o.CreatedAt.Format(time.RFC3339Nano), Sandbox: o.Sandbox,
	}
	if o.Status == StatusCancelled {
		refunded := o.Refunded
		v.Refunded = &refunded
	}
	return v
}
