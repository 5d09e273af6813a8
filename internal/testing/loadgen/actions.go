package loadgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/topupd/topupd/client"
)

// The actions a worker does as one account's shop (do), and what the run
// remembers of the orders they placed and read, for the checks.

// nextAction is the account's next warm-up action, or one drawn from the mix.
func (a *account) nextAction(r *rand.Rand, m Mix) (Action, OrderKind) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.warm) > 0 {
		act := a.warm[0]
		a.warm = a.warm[1:]
		var kind OrderKind
		if act == ActOrder && len(a.kinds) > 0 {
			kind, a.kinds = a.kinds[0], a.kinds[1:]
		}
		return act, kind
	}
	return m.pick(r), ""
}

// errorKey names a failure for the report without its ids.
func errorKey(act Action, err error) string {
	if e, ok := client.AsError(err); ok {
		return fmt.Sprintf("%s: %d %s", act, e.StatusCode, e.Code)
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "connection reset", "EOF", "timeout", "deadline exceeded", "broken pipe"} {
		if strings.Contains(msg, s) {
			return fmt.Sprintf("%s: network: %s", act, s)
		}
	}
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return fmt.Sprintf("%s: %s", act, msg)
}

// do runs one action for account a.
func (g *gen) do(ctx context.Context, r *rand.Rand, a *account, act Action, kind OrderKind) error {
	switch act {
	case ActProducts:
		_, err := a.c.Products(ctx)
		return err
	case ActServices:
		_, err := a.c.Services(ctx)
		return err
	case ActBalance:
		_, err := a.c.Balance(ctx)
		return err
	case ActOrder:
		return g.placeOrder(ctx, r, a, kind)
	case ActPoll:
		return g.poll(ctx, r, a)
	case ActHistory:
		return g.history(ctx, r, a)
	}
	return fmt.Errorf("unknown action %q", act)
}

// orderRequest makes a new order of kind for a, with a fresh trxid.
func (g *gen) orderRequest(r *rand.Rand, a *account, kind OrderKind) client.OrderRequest {
	packs := g.cat.packs[kind]
	p := packs[r.IntN(len(packs))]
	req := client.OrderRequest{PID: p.PID, TrxID: fmt.Sprintf("lg-%s-%d-%d", g.runID, a.idx, a.seq.Add(1))}
	player := func() string {
		if r.Float64()*100 < g.cfg.InvalidPlayerPct {
			return "9999" + strconv.Itoa(1000+r.IntN(9000)) // sim cancels and refunds these
		}
		return strconv.Itoa(10_000_000 + r.IntN(89_990_000)) // 8 digits, never 9999…
	}
	switch kind {
	case KindTopup:
		req.UserID = player()
	case KindZone:
		req.UserID, req.ZoneID = player(), strconv.Itoa(1+r.IntN(9999))
	case KindGamekey:
		req.Quantity = 1 + r.IntN(3)
	case KindGiftcard:
		req.Quantity = 1
	}
	return req
}

// placeOrder places a new order, or now and then resends an earlier one.
func (g *gen) placeOrder(ctx context.Context, r *rand.Rand, a *account, kind OrderKind) error {
	if kind == "" && r.Float64()*100 < g.cfg.ReplayPct {
		if prev := a.randomRecent(r); prev != nil {
			return g.replay(ctx, a, prev)
		}
	}
	if kind == "" {
		kind = pickKind(r)
	}
	req := g.orderRequest(r, a, kind)
	o, err := a.c.PlaceOrder(ctx, req)
	if err != nil {
		if e, ok := client.AsError(err); ok && e.Rejected() {
			if e.Code == client.CodeInsufficientStock || strings.Contains(e.Message, "STOCK") {
				g.orders.rejectedStock.Add(1)
				select {
				case g.restock <- struct{}{}:
				default:
				}
				return nil // the business saying no, not a failure
			}
			g.orders.rejectedOther.Add(1)
		}
		return err
	}
	g.orders.placed.Add(1)
	g.orders.byKind[kindIndex(kind)].Add(1)
	if strings.HasPrefix(req.UserID, "9999") {
		g.orders.invalidPlayers.Add(1)
	}
	if o.IdempotentReplay {
		g.orders.retriedReplays.Add(1) // an earlier attempt got through; the client's retry found it
	}
	switch o.Status {
	case client.StatusCompleted:
		g.orders.completedAtOnce.Add(1)
	case client.StatusCancelled:
		g.orders.cancelledAtOnce.Add(1)
	default:
		g.orders.processingAtOnce.Add(1)
	}
	g.orders.codes.Add(int64(len(o.Codes)))
	g.remember(a, o)
	t := &tracked{id: o.OrderID, req: req, lastPoll: time.Now()}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.placed++
	if !o.Final() {
		a.pending = append(a.pending, t)
	}
	if len(a.recent) < recentKept {
		a.recent = append(a.recent, t)
	} else {
		a.recent[a.placed%recentKept] = t
	}
	return nil
}

// kindIndex is k's place in OrderKinds (0 for an unknown kind).
func kindIndex(k OrderKind) int {
	for i, x := range OrderKinds {
		if x == k {
			return i
		}
	}
	return 0
}

// replay resends an earlier order byte for byte: the answer must be that
// same order, marked as a replay, and nothing may be charged again.
func (g *gen) replay(ctx context.Context, a *account, prev *tracked) error {
	o, err := a.c.PlaceOrder(ctx, prev.req)
	if err != nil {
		return err
	}
	g.orders.replays.Add(1)
	if o.OrderID != prev.id || !o.IdempotentReplay {
		g.replayBad.add(CheckReplays, "resending trxid %s answered order %s (idempotentReplay %v), want %s",
			prev.req.TrxID, o.OrderID, o.IdempotentReplay, prev.id)
	}
	g.remember(a, o)
	return nil
}

// poll reads a processing order that is due for a poll, or else one of the
// account's recent orders, as a shop re-reading an order would.
func (g *gen) poll(ctx context.Context, r *rand.Rand, a *account) error {
	t := a.duePending(time.Now())
	if t == nil {
		t = a.randomRecent(r)
	}
	if t == nil {
		return g.placeOrder(ctx, r, a, "") // nothing to poll yet
	}
	o, err := a.c.Order(ctx, t.id)
	if err != nil {
		return err
	}
	g.remember(a, o)
	if o.Final() && a.dropPending(t.id) {
		g.orders.finishedByPoll.Add(1)
	}
	return nil
}

// history reads the account's history: mostly the first page, sometimes
// further back, sometimes in simple mode.
func (g *gen) history(ctx context.Context, r *rand.Rand, a *account) error {
	if r.IntN(4) == 0 {
		_, err := a.c.History(ctx, client.HistoryQuery{Limit: 10 + r.IntN(191)})
		return err
	}
	size := 20
	if r.IntN(2) == 0 {
		size = 50
	}
	a.mu.Lock()
	pages := max(1, (a.placed+size-1)/size)
	a.mu.Unlock()
	page := 1
	if r.IntN(10) >= 7 {
		page = 1 + r.IntN(pages)
	}
	_, err := a.c.HistoryPage(ctx, page, size)
	return err
}

// duePending returns the oldest processing order not polled for pollEvery,
// and marks it polled.
func (a *account) duePending(now time.Time) *tracked {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.pending {
		if now.Sub(t.lastPoll) >= pollEvery {
			t.lastPoll = now
			return t
		}
	}
	return nil
}

// dropPending forgets a processing order that ended; false if it was not pending.
func (a *account) dropPending(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, t := range a.pending {
		if t.id == id {
			a.pending = append(a.pending[:i], a.pending[i+1:]...)
			return true
		}
	}
	return false
}

// randomRecent is one of the account's recent orders, or nil.
func (a *account) randomRecent(r *rand.Rand) *tracked {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.recent) == 0 {
		return nil
	}
	return a.recent[r.IntN(len(a.recent))]
}

// remember keeps what the client was told about an order, for the checker.
func (g *gen) remember(a *account, o *client.Order) {
	if o == nil || o.OrderID == "" {
		return
	}
	g.knownMu.Lock()
	defer g.knownMu.Unlock()
	k := g.known[o.OrderID]
	if k == nil {
		k = &KnownOrder{OrderID: o.OrderID, AccountID: a.id, TrxID: o.TrxID, PID: o.PID, Quantity: o.Quantity}
		g.known[o.OrderID] = k
	}
	if k.Status == "" || !client.Status(k.Status).Final() {
		k.Status = string(o.Status)
	} else if k.Status != string(o.Status) {
		// A final order changed: the checker reports it, as the books will disagree with one of the two.
		g.replayBad.add(CheckFinalStable, "order %s was %s and later %s", o.OrderID, k.Status, o.Status)
	}
	if len(o.Codes) > 0 && len(k.Codes) == 0 {
		k.Codes = append([]string(nil), o.Codes...)
	}
}

// knownOrders is what the client was told of each order, by order id.
func (g *gen) knownOrders() []KnownOrder {
	g.knownMu.Lock()
	defer g.knownMu.Unlock()
	out := make([]KnownOrder, 0, len(g.known))
	for _, k := range g.known {
		out = append(out, *k)
	}
	slices.SortFunc(out, func(a, b KnownOrder) int { return strings.Compare(a.OrderID, b.OrderID) })
	return out
}
