package topupdtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/topupd/topupd"
)

// Balance returns GET /balance's balanceUsd text.
func (h *T) Balance(a Account) string {
	h.TB.Helper()
	r := h.Do("GET", "/balance", a.Key, nil)
	if r.Status != http.StatusOK || r.Str("currency") != "USD" || r.Body["success"] != true {
		h.TB.Fatalf("GET /balance: %v", r)
	}
	return r.Num("balanceUsd")
}

// HistoryCount returns how many orders GET /history reports in total.
func (h *T) HistoryCount(a Account) int {
	h.TB.Helper()
	r := h.Do("GET", "/history?page=1&pageSize=1", a.Key, nil)
	if r.Status != http.StatusOK {
		h.TB.Fatalf("GET /history: %v", r)
	}
	var n int
	if _, err := fmt.Sscan(r.Num("total"), &n); err != nil {
		h.TB.Fatalf("GET /history total: %v in %v", err, r)
	}
	return n
}

// Products returns the catalog rows by id.
func (h *T) Products(a Account) map[string]map[string]any {
	h.TB.Helper()
	r := h.Do("GET", "/products", a.Key, nil)
	if r.Status != http.StatusOK {
		h.TB.Fatalf("GET /products: %v", r)
	}
	out := map[string]map[string]any{}
	for _, p := range r.Body["products"].([]any) {
		row := p.(map[string]any)
		out[row["id"].(string)] = row
	}
	return out
}

// Stock returns the catalog `quantity` of every row that has one.
func (h *T) Stock(a Account) map[string]string {
	h.TB.Helper()
	out := map[string]string{}
	for id, row := range h.Products(a) {
		if q, ok := row["quantity"].(json.Number); ok {
			out[id] = string(q)
		}
	}
	return out
}

// Snapshot is what a rejected order must leave unchanged.
type Snapshot struct {
	Balance string
	Orders  int
	Stock   map[string]string
	Ledger  int
}

// Snapshot reads what a rejected order must leave unchanged.
func (h *T) Snapshot(a Account) Snapshot {
	h.TB.Helper()
	return Snapshot{Balance: h.Balance(a), Orders: h.HistoryCount(a), Stock: h.Stock(a), Ledger: len(h.Ledger(a))}
}

// Trx returns a fresh trxid.
func (h *T) Trx() string { return fmt.Sprintf("trx-%d-%s", h.seq.Add(1), topupd.NewID("")) }

// Place posts an order and fails unless it is answered 200.
func (h *T) Place(a Account, body map[string]any) Reply {
	h.TB.Helper()
	r := h.Do("POST", "/orders", a.Key, body)
	if r.Status != http.StatusOK || r.Body["orderCreated"] != true {
		h.TB.Fatalf("POST /orders %v: got %v", body, r)
	}
	return r
}

// WaitOrder polls GET /orders/{id} until the order is final, for at most 5 s.
func (h *T) WaitOrder(a Account, id string) Reply {
	h.TB.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := h.Do("GET", "/orders/"+id, a.Key, nil)
		if r.Status != http.StatusOK {
			h.TB.Fatalf("GET /orders/%s: %v", id, r)
		}
		if s := r.Str("status"); s == "completed" || s == "cancelled" {
			return r
		}
		if time.Now().After(deadline) {
			h.TB.Fatalf("order %s still %s after 5 s", id, r.Str("status"))
		}
		time.Sleep(25 * time.Millisecond)
	}
}
