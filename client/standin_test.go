package client_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/topupd/topupd/client"
)

// The client module may not import the server, so its examples and tests
// run against standIn: an httptest server that plays the calls a shop makes
// (GET /products, GET /balance, POST /orders, GET /orders/{id}, GET
// /history) as topupd answers them (api/reseller.yaml), for one account and
// a catalog of two packs. internal/testing/clienttest runs the client against the
// real server.

// standInKey is the stand-in's one API key.
const standInKey = "tpd_live_standin"

// standInPack is a pack of the stand-in's catalog.
type standInPack struct {
	pid, slug, game, kind, name string
	price                       client.Money
}

// standInPacks is the stand-in's catalog: a top-up the supplier fulfils a
// few polls later, and a key pack delivered from stock at once.
var standInPacks = []standInPack{
	{pid: "pubg-60", slug: "pubg", game: "pubg", kind: "topup", name: "60 UC", price: 8_900},
	{pid: "gamekey-steam", slug: "gamekey", game: "gamekey", kind: "gamekey", name: "Steam key", price: 12_000},
}

// standInOrder is an order the stand-in holds.
type standInOrder struct {
	o     client.Order
	req   client.OrderRequest
	polls int // GET /orders/{id} answers left before a top-up is final
}

// standIn is a stand-in of the reseller API.
type standIn struct {
	*httptest.Server
	mu      sync.Mutex
	balance client.Money
	orders  []*standInOrder // oldest first
	byTrx   map[string]*standInOrder
	byID    map[string]*standInOrder
	// Polls is how many GET /orders/{id} see a top-up processing before
	// its supplier answers (set before the first order).
	Polls int
	// Fail, when set, answers the next calls with this status and body
	// before playing the API, one per call, then is used up.
	Fail []string
}

// newStandIn starts a stand-in whose account holds balance; Close stops it.
func newStandIn(balance string) *standIn {
	b, err := client.ParseMoney(balance)
	if err != nil {
		panic(err)
	}
	s := &standIn{balance: b, byTrx: map[string]*standInOrder{}, byID: map[string]*standInOrder{}, Polls: 2}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /products", s.products)
	mux.HandleFunc("GET /balance", s.getBalance)
	mux.HandleFunc("POST /orders", s.placeOrder)
	mux.HandleFunc("GET /orders/{id}", s.order)
	mux.HandleFunc("GET /history", s.history)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != standInKey {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"success": false, "code": "INVALID_API_KEY", "error": "INVALID API KEY"})
			return
		}
		s.mu.Lock()
		var fail string
		if len(s.Fail) > 0 {
			fail, s.Fail = s.Fail[0], s.Fail[1:]
		}
		s.mu.Unlock()
		if status, body, ok := strings.Cut(fail, " "); ok {
			n, _ := strconv.Atoi(status)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(n)
			fmt.Fprint(w, body)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	return s
}

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// failure answers a refusal in the API's form.
func failure(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"success": false, "code": code, "error": msg})
}

func (s *standIn) products(w http.ResponseWriter, r *http.Request) {
	var rows []map[string]any
	for _, p := range standInPacks {
		rows = append(rows, map[string]any{"id": p.pid, "slug": p.slug, "gameName": p.game, "serviceName": p.name,
			"category": p.kind, "price": p.price, "status": "active", "game": p.game, "kind": p.kind})
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "products": rows})
}

func (s *standIn) getBalance(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "balanceUsd": s.balance, "currency": "USD"})
}

func (s *standIn) placeOrder(w http.ResponseWriter, r *http.Request) {
	var req client.OrderRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		failure(w, http.StatusBadRequest, "INVALID_BODY", "INVALID BODY")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.byTrx[req.TrxID]; ok {
		if o.req != req {
			failure(w, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY KEY REUSED")
			return
		}
		s.answer(w, o, true)
		return
	}
	var pack *standInPack
	for i := range standInPacks {
		if standInPacks[i].pid == req.PID {
			pack = &standInPacks[i]
		}
	}
	if pack == nil {
		failure(w, http.StatusBadRequest, "UNKNOWN_PID", "UNKNOWN PID")
		return
	}
	q := req.Quantity
	if q == 0 {
		q = 1
	}
	amount, _ := pack.price.Times(q)
	if amount > s.balance {
		writeJSON(w, http.StatusBadRequest, map[string]any{"success": false, "orderCreated": false, "status": "cancelled",
			"game": pack.game, "error": "INSUFFICIENT BALANCE", "code": "INSUFFICIENT_BALANCE"})
		return
	}
	s.balance -= amount
	o := &standInOrder{req: req, polls: s.Polls, o: client.Order{
		OrderCreated: true, OrderID: fmt.Sprintf("ord_%04d", len(s.orders)+1), TrxID: req.TrxID,
		Status: client.StatusProcessing, Game: pack.game, PID: pack.pid, PackName: pack.name, Quantity: q,
		AmountUSD: amount, UserID: req.UserID, CreatedAt: time.Date(2026, 11, 26, 12, 0, len(s.orders), 0, time.UTC),
	}}
	if pack.kind == "gamekey" { // drawn from stock at once
		o.o.Status = client.StatusCompleted
		for i := range q {
			o.o.Codes = append(o.o.Codes, fmt.Sprintf("STEAM-%04d-%d", len(s.orders)+1, i+1))
		}
	}
	s.orders = append(s.orders, o)
	s.byTrx[req.TrxID], s.byID[o.o.OrderID] = o, o
	s.answer(w, o, false)
}

// answer writes one order as POST /orders (with replay) or GET
// /orders/{id} (replay nil) answers it.
func (s *standIn) answer(w http.ResponseWriter, o *standInOrder, replay any) {
	b, _ := json.Marshal(o.o)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["success"] = true
	if replay != nil {
		m["idempotentReplay"] = replay
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *standIn) order(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.byID[r.PathValue("id")]
	if !ok {
		failure(w, http.StatusNotFound, "ORDER_NOT_FOUND", "ORDER NOT FOUND")
		return
	}
	if o.o.Status == client.StatusProcessing {
		if o.polls--; o.polls < 0 { // the supplier answers
			o.o.Status, o.o.DurationSec = client.StatusCompleted, 3
			if strings.HasPrefix(o.o.UserID, "9999") { // the supplier refuses these players
				o.o.Status, o.o.Error, o.o.Refunded = client.StatusCancelled, "INVALID PLAYER", true
				s.balance += o.o.AmountUSD
			}
		}
	}
	s.answer(w, o, nil)
}

func (s *standIn) history(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	size, _ := strconv.Atoi(r.URL.Query().Get("pageSize"))
	if page < 1 {
		page = 1
	}
	if size < 1 {
		size = 20
	}
	list := []client.Order{}
	for i := len(s.orders) - 1 - (page-1)*size; i >= 0 && len(list) < size; i-- {
		list = append(list, s.orders[i].o)
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "orders": list, "count": len(list), "page": page,
		"pageSize": size, "total": len(s.orders), "hasMore": page*size < len(s.orders)})
}
