package loadgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Action is one thing a reseller's client does.
type Action string

// The actions of the mix.
const (
	ActProducts Action = "products" // GET /products: catalog read
	ActServices Action = "services" // GET /services: catalog read
	ActBalance  Action = "balance"  // GET /balance
	ActOrder    Action = "order"    // POST /orders, of every line kind
	ActPoll     Action = "poll"     // GET /orders/{id}: a processing order, else a recent one
	ActHistory  Action = "history"  // GET /history, paged
)

// Actions are every action, in report order.
var Actions = []Action{ActProducts, ActServices, ActBalance, ActOrder, ActPoll, ActHistory}

// Mix is the weight of each action: an account picks its next action with
// probability weight/sum.
type Mix map[Action]int

// DefaultMix is a shop's usual day: mostly orders and order polls, regular
// catalog and balance reads, some history paging.
//
//	products 10, services 5, balance 10, order 35, poll 25, history 15
var DefaultMix = Mix{ActProducts: 10, ActServices: 5, ActBalance: 10, ActOrder: 35, ActPoll: 25, ActHistory: 15}

// String spells the mix as ParseMix reads it.
func (m Mix) String() string {
	var parts []string
	for _, a := range Actions {
		parts = append(parts, fmt.Sprintf("%s=%d", a, m[a]))
	}
	return strings.Join(parts, ",")
}

// ParseMix reads "order=40,poll=20,...": actions not named keep their
// DefaultMix weight; a weight of 0 turns an action off.
func ParseMix(s string) (Mix, error) {
	m := Mix{}
	for a, w := range DefaultMix {
		m[a] = w
	}
	if strings.TrimSpace(s) == "" {
		return m, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("mix %q: want action=weight", part)
		}
		a := Action(strings.TrimSpace(name))
		if _, known := DefaultMix[a]; !known {
			return nil, fmt.Errorf("mix: unknown action %q (known: products, services, balance, order, poll, history)", name)
		}
		w, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || w < 0 {
			return nil, fmt.Errorf("mix %q: the weight must be a whole number, 0 or more", part)
		}
		m[a] = w
	}
	total := 0
	for _, w := range m {
		total += w
	}
	if total == 0 {
		return nil, fmt.Errorf("mix: every weight is 0")
	}
	return m, nil
}

// pick draws an action.
func (m Mix) pick(r *rand.Rand) Action {
	total := 0
	for _, a := range Actions {
		total += m[a]
	}
	n := r.IntN(total)
	for _, a := range Actions {
		if n < m[a] {
			return a
		}
		n -= m[a]
	}
	return ActBalance
}

// OrderKind is the kind of line an order is for.
type OrderKind string

// The order kinds of the generator's own catalog.
const (
	KindTopup    OrderKind = "topup"    // userId
	KindZone     OrderKind = "zone"     // userId + zoneId
	KindGamekey  OrderKind = "gamekey"  // quantity 1 to 3, from stock
	KindGiftcard OrderKind = "giftcard" // quantity 1, from stock
)

// OrderKinds are the kinds in report order.
var OrderKinds = []OrderKind{KindTopup, KindZone, KindGamekey, KindGiftcard}

// orderKindWeights is how an order's kind is drawn:
// top-up 40, zone 25, game key 20, gift card 15.
var orderKindWeights = map[OrderKind]int{KindTopup: 40, KindZone: 25, KindGamekey: 20, KindGiftcard: 15}

func pickKind(r *rand.Rand) OrderKind {
	n := r.IntN(100)
	for _, k := range OrderKinds {
		if n < orderKindWeights[k] {
			return k
		}
		n -= orderKindWeights[k]
	}
	return KindTopup
}
