package topupd

import "time"

// Placement is a new order as the domain decides it from what its
// placement read under the account's lock: the request, the pack at the
// account's price, its line and the draft (Prepare), once the checks
// (price guard, limits, balance, stock) have passed. The store writes it
// in the same transaction, as it says.
type Placement struct {
	// Order is the order to insert: its books (a sandbox's), supplier,
	// status, supplier state and, when already known, cost. Its Seq and
	// Codes are the store's to fill in.
	Order Order
	// Suppliers are the pack's supplier list that the order keeps a copy
	// of (none for an order final at placement, or a sandbox's).
	Suppliers []Supplier
	// Draw says codes are drawn from the pack's stock, and BatchCost that
	// the order's cost is theirs: each code's batch's cost, else the
	// pack's unit cost (the store reads them before the draw).
	Draw, BatchCost bool
	// TestCodes says a sandbox key or card order gets its quantity of
	// TEST- codes, drawn from no stock.
	TestCodes bool
	// Answered says the placement records the answer of the order's first
	// supplier call (PlaceOrder.Sim): First, with RetryAt the time a
	// pending one falls due.
	Answered bool
	First    Outcome
}

// Place decides a new order (see Placement):
//   - a sandbox order (p.Sandbox) is on the account's sandbox's books,
//     fulfilled by the sim rules (ProviderSandbox), calling no supplier;
//     a key or card order of it completes at once with TEST- codes,
//     whatever the pack's supplier, costing the pack's unit cost (no
//     known cost when the pack has none);
//   - a key or card order from stock completes at once with drawn codes;
//   - a top-up whose caller makes the first call now is submitting under
//     the caller's lease, unless the sim rules answer that call in the
//     placement itself (SimFirstAnswer): completed at its unit cost (as
//     above), or accepted and pending until the sim's delay.
func Place(p *PlaceOrder, pack *Pack, line *Line, draft Draft) Placement {
	if p.Sandbox && pack.TakesQuantity(line) {
		draft.DrawsStock = true // TEST- codes, from no stock: see below
	}
	pl := Placement{Order: newOrder(p, pack, line, &draft), Suppliers: pack.Suppliers}
	o := &pl.Order
	unitCost := packCost(pack, draft.Quantity)
	switch {
	case p.Sandbox:
		o.Sandbox, o.Provider, o.Upstream, o.UpstreamPID = true, ProviderSandbox, "", ""
		pl.Suppliers = nil
		if draft.DrawsStock {
			pl.TestCodes, o.Cost = true, unitCost
		}
	case draft.DrawsStock:
		pl.Draw, pl.BatchCost = true, true
	}
	pl.First, pl.Answered = SimFirstAnswer(p, o, len(pl.Suppliers), draft.DrawsStock)
	switch {
	case pl.Answered && pl.First.State == OutcomeCompleted: // as a settlement after the first call completes it
		o.Status, o.FinishedAt, o.Supplier, o.Cost = StatusCompleted, o.CreatedAt, SupplierAccepted, unitCost
	case pl.Answered: // pending: as a settlement records the answer, due when the sim says, with no lease
		o.Supplier, o.Attempts = SupplierAccepted, 1
	}
	if o.Status.Final() {
		pl.Suppliers = nil
	}
	return pl
}

// packCost is what quantity units of a pack cost at its own cost, nil
// when it has none set (a pack's cost of 0 is none): an order completed at
// it has no known cost.
func packCost(pack *Pack, quantity int) *Money {
	if pack.Cost <= 0 {
		return nil
	}
	c := pack.Cost * Money(quantity)
	return &c
}

// newOrder is the order a placement makes, before the sandbox and the sim
// rules have their say; its times are kept to the millisecond, as the
// store keeps them. A key order completes at once; a top-up whose caller
// submits at once is recorded as submitting, so that nobody submits
// again without asking the supplier first.
func newOrder(p *PlaceOrder, pack *Pack, line *Line, draft *Draft) Order {
	req := &p.Request
	o := Order{
		ID: NewOrderID(p.Now), AccountID: p.AccountID, TrxID: req.TrxID, IdempotencyKey: req.Key(), Fingerprint: req.Fingerprint(),
		PID: pack.PID, Slug: line.Slug, Game: line.Game, Kind: line.Kind, PackName: pack.Name, Provider: pack.Provider,
		Quantity: draft.Quantity, Amount: draft.Amount, Fields: draft.Fields, Status: StatusProcessing,
		CreatedAt: toMillisecond(p.Now), DeadlineAt: toMillisecond(p.Now.Add(p.Deadline)), Supplier: SupplierNew,
		Route: p.Route,
	}
	if pack.Provider == ProviderUpstream {
		o.Upstream, o.UpstreamPID = pack.Upstream, pack.UpstreamPID
	}
	switch {
	case draft.DrawsStock: // its cost is its codes'
		o.Status, o.FinishedAt, o.CodeCount = StatusCompleted, o.CreatedAt, draft.Quantity
	case p.LeaseOwner != "":
		o.Supplier = SupplierSubmitting
	}
	return o
}

// toMillisecond is t as the store keeps it: to the millisecond, in UTC.
func toMillisecond(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// SimFirstAnswer is the answer the sim rules give a new order's first
// call, when its placement records it (PlaceOrder.Sim): the order is a
// top-up the sim rules fulfil (draws no stock), of a pack with no
// supplier list (suppliers 0), whose caller would make the first call
// now, to a sim supplier that answers at once. With a delay, the answer is
// pending until the delay after placement, never past the deadline (as
// the engine records such an answer); without, completed, for a player
// the rules do not refuse. ok is false for any other order, which its
// first call answers.
func SimFirstAnswer(p *PlaceOrder, o *Order, suppliers int, drawsStock bool) (first Outcome, ok bool) {
	if !p.Sim.AtOnce || p.LeaseOwner == "" || drawsStock || suppliers != 0 || !FollowsSimRules(o.Provider) {
		return first, false
	}
	if p.Sim.Delay > 0 {
		due := o.CreatedAt.Add(p.Sim.Delay)
		if due.After(o.DeadlineAt) {
			due = o.DeadlineAt
		}
		return Outcome{State: OutcomePending, RetryAt: due}, true
	}
	if SimRefuses(o.Fields) {
		return first, false
	}
	return Outcome{State: OutcomeCompleted}, true
}
