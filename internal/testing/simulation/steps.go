package simulation

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/dbfault"
	"github.com/topupd/topupd/service"
)

// run starts the nodes, takes the steps with faults, then stops the faults
// and lets time run until every order is final, checking as it goes.
func (w *World) run(ctx context.Context) error {
	for i := range nodes {
		n := &node{w: w, name: fmt.Sprintf("n%d", i+1)}
		w.nodes = append(w.nodes, n)
		w.start(ctx, n)
	}
	for w.step = 1; w.step <= w.cfg.Steps && w.violation == ""; w.step++ {
		act, full := w.act, w.step%50 == 0
		if w.burstDue() { // a burst's orders are checked in full at once
			act, full = w.burst, true
		}
		if err := act(ctx); err != nil {
			return fmt.Errorf("seed %d step %d: %w", w.cfg.Seed, w.step, err)
		}
		if w.hooks.rng.IntN(100) < hookProb {
			n, err := w.hookRound(ctx)
			if err != nil {
				return fmt.Errorf("seed %d step %d: %w", w.cfg.Seed, w.step, err)
			}
			w.logf("webhooks: %d attempts", n)
		}
		if w.deps.rng.IntN(100) < depositProb {
			if err := w.depositStep(ctx); err != nil {
				return fmt.Errorf("seed %d step %d: %w", w.cfg.Seed, w.step, err)
			}
		}
		if err := w.check(ctx, full, false); err != nil {
			return err
		}
	}
	if w.violation != "" {
		return nil
	}
	return w.settleDown(ctx)
}

// settleDown stops the faults, heals the suppliers and the nodes, and lets
// time pass every deadline while the engines and the operator work, until
// every order is final; then checks everything.
func (w *World) settleDown(ctx context.Context) error {
	w.faults = false
	w.logf("faults stop")
	for _, s := range w.supOrd {
		s.down, s.broke = false, false
		w.balanceRead(ctx, s, topupd.USD(1000)) // topped up: orders waiting for funds go on
	}
	for _, n := range w.nodes {
		if n.dead {
			w.start(ctx, n)
		}
	}
	for round := 0; round < 100; round++ {
		open, err := w.store.Orders(ctx, topupd.OrdersQuery{Status: topupd.StatusProcessing, Limit: 1000})
		if err != nil {
			return err
		}
		tests, err := w.store.Orders(ctx, topupd.OrdersQuery{Status: topupd.StatusProcessing, Limit: 1000, Sandbox: true})
		if err != nil {
			return err
		}
		if len(open)+len(tests) == 0 {
			break
		}
		w.clk.Advance(lease + time.Second)
		for _, o := range open {
			if o.Provider == topupd.ProviderManual || o.Alert == topupd.AlertCodeUsed {
				w.operatorSettle(ctx, o)
			}
		}
		for _, n := range w.nodes {
			w.work(ctx, n)
		}
		if err := w.check(ctx, false, false); err != nil || w.violation != "" {
			return err
		}
	}
	if err := w.settleDeposits(ctx); err != nil || w.violation != "" {
		return err
	}
	if err := w.settleHooks(ctx); err != nil || w.violation != "" {
		return err
	}
	if err := w.checkHooks(ctx); err != nil || w.violation != "" {
		return err
	}
	return w.check(ctx, true, true)
}

// act takes one step the scheduler picks.
func (w *World) act(ctx context.Context) error {
	switch r := w.rng.IntN(100); {
	case r < 30:
		return w.place(ctx)
	case r < 60:
		w.work(ctx, w.nodes[w.rng.IntN(len(w.nodes))])
	case r < 70:
		d := time.Duration(w.rng.IntN(5000)) * time.Millisecond
		w.clk.Advance(d)
		w.logf("tick %v", d)
	case r < 73:
		d := lease + time.Duration(w.rng.IntN(int(deadline/time.Second)))*time.Second
		w.clk.Advance(d)
		w.logf("jump %v", d)
	case r < 78:
		acct := w.rng.IntN(len(w.model.accounts))
		amount := topupd.Money(w.rng.IntN(2000) - 500)
		if amount == 0 {
			amount = 1
		}
		ref := fmt.Sprintf("ref-%d", w.step)
		if w.rng.IntN(4) == 0 {
			ref = fmt.Sprintf("ref-%d", w.rng.IntN(w.step))
		}
		return w.credit(ctx, acct, amount, ref)
	case r < 84:
		o, ok, err := w.pickProcessing(ctx)
		if err != nil || !ok {
			return err
		}
		w.operatorSettle(ctx, o)
	case r < 87:
		o, ok, err := w.pickProcessing(ctx)
		if err != nil || !ok {
			return err
		}
		_, _, err = untilAnswered(func() (topupd.Order, error) { return w.svc.RetryOrder(ctx, w.root, o.ID) })
		w.logf("operator retries #%d: %v", w.ord(o.Seq), errText(err))
	case r < 88:
		w.setLimits(ctx)
	case r < 89:
		p := packs[w.rng.IntN(len(packs))]
		price := topupd.Money(100 * (1 + w.rng.IntN(5))) // whole cents
		allow := w.rng.IntN(4) == 0
		_, _, err := untilAnswered(func() (service.PackView, error) {
			return w.svc.UpdatePack(ctx, w.root, p.PID, service.PackPatch{Price: &price, AllowBelowCost: allow})
		})
		if err == nil {
			w.model.prices[p.PID] = price
		}
		w.judgeBelowCost("the price of "+p.PID, price < highestCost(p.PID), allow, err)
		w.logf("price %s %v (allowing below cost: %v): %v", p.PID, price, allow, errText(err))
	case r < 91:
		return w.addStock(ctx, 1+w.rng.IntN(4))
	case r < 92:
		return w.voidBatch(ctx)
	case r < 93:
		w.stepClock()
	case r < 95:
		w.repriceStep(ctx)
	case r < 96:
		w.simDelayStep(ctx)
	default:
		if !w.mix.outages {
			return nil
		}
		s := w.supOrd[w.rng.IntN(len(w.supOrd))]
		switch w.rng.IntN(3) {
		case 0:
			s.down = !s.down
		case 1:
			s.broke = !s.broke
			if !s.broke { // a top-up, and the operator's check reads it
				w.balanceRead(ctx, s, topupd.USD(1000))
			}
		default:
			// A read of our balance there: dry, too low for most orders,
			// or plenty (orders waiting for funds go on).
			w.balanceRead(ctx, s, []topupd.Money{0, topupd.USD(1), topupd.USD(1000)}[w.rng.IntN(3)])
		}
		w.logf("supplier %s down=%v broke=%v", s.name, s.down, s.broke)
	}
	return nil
}

// simDelayStep switches the sim supplier between answering 20 s after
// placement and answering at once. A top-up of T-SIM or a sandbox's top-up
// gets the sim's first answer in its placement's transaction
// (topupd.PlaceOrder.Sim) instead of through the engine: it completes
// there while the sim answers at once, and is placed pending, due 20 s
// later, while it does not.
func (w *World) simDelayStep(ctx context.Context) {
	delay := 0
	if w.simAtOnce {
		delay = simDelay
	}
	_, _, err := untilAnswered(func() (topupd.Settings, error) {
		return w.svc.UpdateSettings(ctx, w.root, topupd.SettingsPatch{SimDelayMs: &delay})
	})
	if err == nil {
		w.simAtOnce = delay == 0
	}
	w.logf("sim delay %dms: %v", delay, errText(err))
}

// maxSkew bounds how far a node's clock strays from the simulated one.
const maxSkew = 10 * time.Second

// stepClock steps a live node's clock, as NTP does when it corrects one
// that drifted: back by up to 3 s (or, one time in three, forward), while
// the node runs. Deadlines, leases and backoffs it computed stay as they
// were written.
func (w *World) stepClock() {
	n := w.nodes[w.rng.IntN(len(w.nodes))]
	step := -time.Duration(1+w.rng.IntN(3000)) * time.Millisecond
	if w.rng.IntN(3) == 0 {
		step = -step
	}
	if !w.faults || n.dead || !w.mix.clockSteps {
		return
	}
	n.skew = max(-maxSkew, min(maxSkew, n.skew+step))
	w.logf("clock of %s steps %+v (off by %+v)", n.owner, step, n.skew)
}

// pickProcessing picks one processing order, if any.
func (w *World) pickProcessing(ctx context.Context) (topupd.Order, bool, error) {
	open, err := w.store.Orders(ctx, topupd.OrdersQuery{Status: topupd.StatusProcessing, Limit: 1000})
	if err != nil || len(open) == 0 {
		return topupd.Order{}, false, err
	}
	return open[w.rng.IntN(len(open))], true, nil
}

// operatorSettle has the operator complete or cancel a processing order by
// hand: a manual order is completed or cancelled, an order with an alert
// cancelled and refunded.
func (w *World) operatorSettle(ctx context.Context, o topupd.Order) {
	var call func() (topupd.Order, error)
	var what string
	switch {
	case o.Provider == topupd.ProviderManual && w.rng.IntN(3) > 0:
		what = "completes"
		call = func() (topupd.Order, error) { return w.svc.CompleteOrder(ctx, w.root, o.ID, nil) }
	case o.Provider == topupd.ProviderManual || o.Alert != "":
		what = "cancels"
		call = func() (topupd.Order, error) { return w.svc.CancelOrder(ctx, w.root, o.ID, "", true) }
	default:
		return
	}
	// The order was processing when the operator asked, and nothing else
	// runs meanwhile: ORDER_FINAL after a cut-off attempt means it took.
	_, crashed, err := untilAnswered(call)
	if err == nil || (crashed && topupd.CodeOf(err) == topupd.EOrderFinal) {
		w.model.byOperator[o.ID] = true
	}
	w.logf("operator %s #%d: %v", what, w.ord(o.Seq), errText(err))
}

// work has a node claim due orders and work on each, as its engine's loop
// would; a crashed node is started again instead.
func (w *World) work(ctx context.Context, n *node) {
	w.workUpTo(ctx, n, 1+w.rng.IntN(3))
}

// workUpTo has a node claim up to limit due orders and work on each.
func (w *World) workUpTo(ctx context.Context, n *node, limit int) {
	if n.dead {
		w.start(ctx, n)
		return
	}
	orders, err := n.eng.Claim(ctx, limit)
	w.logf("%s claims %d: %v", n.owner, len(orders), errText(err))
	for _, o := range orders {
		if n.dead {
			return
		}
		out := n.eng.Process(ctx, o, false)
		w.logf("%s worked #%d: %s %s", n.owner, w.ord(o.Seq), out.Status, out.Alert)
	}
}

// place has a client place an order on a node through its reseller API
// (the real handler: one store transaction, then the first supplier call). A client repeats a
// trxid now and then, and hangs up before the answer now and then.
func (w *World) place(ctx context.Context) error {
	n := w.nodes[w.rng.IntN(len(w.nodes))]
	if n.dead {
		w.start(ctx, n)
		return nil
	}
	var rq *request
	if len(w.model.trxids) > 0 && w.rng.IntN(4) == 0 {
		rq = w.model.requests[w.model.trxids[w.rng.IntN(len(w.model.trxids))]]
		if rq.firstID != "" && w.isLive(rq.account) && w.rng.IntN(8) == 0 { // another account's client sends the trxid
			return w.collide(ctx, n, rq)
		}
	} else {
		acct := w.rng.IntN(len(w.model.accounts))
		req := w.newRequest(fmt.Sprint(w.step))
		account := w.model.accounts[acct]
		if w.rng.IntN(6) == 0 { // a test on a sandbox key
			account = w.model.sandboxes[w.rng.IntN(len(w.model.sandboxes))]
		}
		rq = w.asked(account, req)
	}
	return w.send(ctx, n, rq)
}

// newRequest is a new order request of a random pack, named by name
// (trx-name, and idem-name when it has an idempotency key).
func (w *World) newRequest(name string) topupd.OrderRequest {
	p := packs[w.rng.IntN(len(packs))]
	req := topupd.OrderRequest{PID: p.PID, TrxID: "trx-" + name, Fields: topupd.AccountFields{UserID: "12345"}}
	if p.Slug == "keys" {
		req.Fields = topupd.AccountFields{}
		req.Quantity = 1 + w.rng.IntN(3)
	}
	if w.rng.IntN(3) == 0 {
		req.IdempotencyKey = "idem-" + name
	}
	return req
}

// asked records that account's client asks for req.
func (w *World) asked(account string, req topupd.OrderRequest) *request {
	rq := &request{account: account, req: req}
	w.model.requests[req.TrxID] = rq
	w.model.trxids = append(w.model.trxids, req.TrxID)
	return rq
}

// send posts one request to a node and checks the answer against the model.
func (w *World) send(ctx context.Context, n *node, rq *request) error {
	if w.rng.IntN(1000) < w.mix.hangUp { // a client that hangs up during its request
		ctx = withHangUp(ctx, 1+w.rng.IntN(2), w.rng.IntN(2) == 0)
	}
	rs := &requestState{}
	ctx = context.WithValue(ctx, requestKey{}, rs)
	a, err := w.post(ctx, n, rq)
	if hungUp(ctx) { // the answer reaches nobody; the order, if placed, stands
		w.logf("%s POST /orders %s %s: hung up mid-request (%d %s)", n.owner, rq.req.TrxID, rq.req.PID, a.status, a.Error)
		return nil
	}
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		w.logf("%s POST /orders %s %s: %d %s", n.owner, rq.req.TrxID, rq.req.PID, a.status, a.Error)
		if a.status >= 500 && !n.dead && !rs.dbFault {
			w.fail("POST /orders %s answered %d %s on a node that did not crash", rq.req.TrxID, a.status, a.Error)
		}
		w.checkRefusal(rq, topupd.ErrorCode(a.Code), rs.before)
		return nil
	}
	o, err := w.store.Order(ctx, "", a.OrderID)
	if err != nil {
		return fmt.Errorf("the order answered: %w", err)
	}
	replay := a.IdempotentReplay != nil && *a.IdempotentReplay
	w.model.orders[o.ID] = true
	w.logf("%s POST /orders %s %s: #%d %s replay=%v (now %s)", n.owner, rq.req.TrxID, rq.req.PID, w.ord(o.Seq), a.Status, replay, o.Status)
	switch {
	case rq.firstID != "" && o.ID != rq.firstID:
		w.fail("trxid %s answered order #%d, not the first order it was answered with", rq.req.TrxID, w.ord(o.Seq))
	case rq.firstID != "" && !replay:
		w.fail("trxid %s placed a second order #%d", rq.req.TrxID, w.ord(o.Seq))
	}
	if want := w.model.priceFor(rq.account, o.PID) * topupd.Money(max(o.Quantity, 1)); !replay && o.Amount != want {
		w.fail("#%d of %d × %s was charged %s, not %s at %s", w.ord(o.Seq), max(o.Quantity, 1), o.PID, o.Amount.Dollars(), want.Dollars(), w.model.describe(rq.account, o.PID))
	}
	spent := rs.spent // read as the store was just before PlaceOrder ran
	if l := w.model.limits[rq.account]; !replay {
		if l.MaxOrder != nil && o.Amount > *l.MaxOrder {
			w.fail("#%d of %s is above its account's limit of %s an order", w.ord(o.Seq), o.Amount.Dollars(), l.MaxOrder.Dollars())
		}
		if l.Daily != nil && spent+o.Amount > *l.Daily {
			w.fail("#%d of %s with %s spent today is above its account's daily limit of %s", w.ord(o.Seq), o.Amount.Dollars(), spent.Dollars(), l.Daily.Dollars())
		}
	}
	if w.rng.IntN(100) < w.mix.hungUp {
		w.logf("  client hung up")
		return nil
	}
	if rq.firstID == "" {
		rq.firstID = o.ID
	}
	return nil
}

// checkRefusal checks a refusal of a request for the account's means
// against the model and the store as it was just before PlaceOrder ran
// (b): a refused request repeats no order placed for its trxid, whether
// its client was answered with it (a repeat is replayed whatever the
// limits, the balance or the stock say now) or not (an answer lost, a
// client that hung up); a refusal for the spending limits is due to one
// of them (its amount at the account's price is above the limit of an
// order, or above the daily limit with what the account had spent that
// day: charges less refunds); and one for the balance is due to it.
func (w *World) checkRefusal(rq *request, code topupd.ErrorCode, b before) {
	switch code {
	case topupd.ESpendLimit, topupd.EInsufficientBalance, topupd.EInsufficientStock:
	default:
		return
	}
	amount := w.model.priceFor(rq.account, rq.req.PID) * topupd.Money(max(rq.req.Quantity, 1))
	l := w.model.limits[rq.account]
	switch {
	case rq.firstID != "":
		w.fail("trxid %s, answered with an order before, is refused %s instead of replayed", rq.req.TrxID, code)
	case b.held:
		w.fail("trxid %s, whose order the store held, is refused %s instead of replayed", rq.req.TrxID, code)
	case code == topupd.EInsufficientBalance && amount <= b.balance:
		w.fail("%s is refused %s of %s for its balance, which is %s", w.shop(rq.account), rq.req.TrxID, amount.Dollars(), b.balance.Dollars())
	case code != topupd.ESpendLimit:
	case l.MaxOrder != nil && amount > *l.MaxOrder:
	case l.Daily != nil && b.spent+amount > *l.Daily:
	default:
		w.fail("%s is refused %s of %s for its spending limits (max=%s daily=%s) with %s spent today", w.shop(rq.account),
			rq.req.TrxID, amount.Dollars(), show(l.MaxOrder), show(l.Daily), b.spent.Dollars())
	}
}

// before is what the store held just before a PlaceOrder ran.
type before struct {
	// spent is what the account spent that UTC day, charges less refunds;
	// balance its balance.
	spent, balance topupd.Money
	// held: the store holds an order of the request's trxid.
	held bool
}

// storeBefore reads what the store holds just before p is placed.
func (w *World) storeBefore(ctx context.Context, p topupd.PlaceOrder) (before, error) {
	var b before
	var err error
	if b.spent, err = w.spentToday(ctx, p.AccountID, p.Now); err != nil {
		return b, err
	}
	if b.balance, err = w.store.Balance(ctx, p.AccountID); err != nil {
		return b, fmt.Errorf("balance before: %w", err)
	}
	held, err := w.store.Orders(ctx, topupd.OrdersQuery{AccountID: p.AccountID, Sandbox: p.Sandbox, TrxID: p.Request.TrxID, Limit: 1})
	if err != nil {
		return b, fmt.Errorf("orders before: %w", err)
	}
	b.held = len(held) > 0
	return b, nil
}

// requestState is what the simulator learns of one request while it runs.
type requestState struct {
	// dbFault: its PlaceOrder failed with a fault at the SQL driver in it,
	// which the API rightly answers 500.
	dbFault bool
	// before is what the store held just before its PlaceOrder ran.
	before
}

type requestKey struct{}

// errText is an error's code for the trace, or "ok". A fault at the SQL
// driver is named as it is on both stores (dbfault.Describe), not by the
// driver's text.
func errText(err error) string {
	switch {
	case err == nil:
		return "ok"
	case err == errDead:
		return "node crashed"
	}
	if d := dbfault.Describe(err); d != "" {
		return d
	}
	if c := topupd.CodeOf(err); c != topupd.EInternal {
		return string(c)
	}
	return err.Error()
}

// spentToday is what an account's orders of now's UTC day have charged,
// less their refunds, as the orders in the store say.
func (w *World) spentToday(ctx context.Context, account string, now time.Time) (topupd.Money, error) {
	day := now.UTC().Truncate(24 * time.Hour)
	orders, err := w.store.Orders(ctx, topupd.OrdersQuery{AccountID: account, From: day, To: day.Add(24 * time.Hour), Limit: 100_000})
	if err != nil {
		return 0, fmt.Errorf("spent today: %w", err)
	}
	var spent topupd.Money
	for _, o := range orders {
		spent += o.Amount
		if o.Refunded {
			spent -= o.Amount
		}
	}
	return spent, nil
}
