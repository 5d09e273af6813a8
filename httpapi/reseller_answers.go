package httpapi

import "github.com/topupd/topupd"

// The reseller API's answers besides an order's (orderAnswer). Members
// are in the order of their names, as the JSON has always spelt them.

// servicesList answers GET /services: the active lines.
type servicesList struct {
	Services []serviceView `json:"services"`
	Success  bool          `json:"success"`
}

// productsList answers GET /products: the packs the caller may order,
// at its own prices; serverTime is the time to send as the next updatedSince.
type productsList struct {
	Products   []productRow `json:"products"`
	ServerTime string       `json:"serverTime"`
	Success    bool         `json:"success"`
}

// ipAnswer answers GET /myip: the client IP the allow-list checks ("" when
// it is not known).
type ipAnswer struct {
	IP      string `json:"ip"`
	Success bool   `json:"success"`
}

// balanceAnswer answers GET /balance.
type balanceAnswer struct {
	BalanceUsd topupd.Money `json:"balanceUsd"`
	Currency   string       `json:"currency"`
	Success    bool         `json:"success"`
}

// historyAnswer answers GET /history in simple mode: the newest orders.
type historyAnswer struct {
	Count   int         `json:"count"`
	Orders  []orderView `json:"orders"`
	Success bool        `json:"success"`
}

// historyPage answers GET /history in paged mode: one page of orders and
// where it stands.
type historyPage struct {
	Count    int         `json:"count"`
	HasMore  bool        `json:"hasMore"`
	Orders   []orderView `json:"orders"`
	Page     int         `json:"page"`
	PageSize int         `json:"pageSize"`
	Success  bool        `json:"success"`
	Total    int         `json:"total"`
}
