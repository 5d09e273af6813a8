package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// round is what one node's engine claimed and worked on in a burst.
type round struct {
	claimed, worked []topupd.Order
	err             error
}

// engineRound is a node's engine claiming up to limit due orders and
// working on each, as its loop would.
func engineRound(ctx context.Context, n *burstNode, limit int, out *round) func() {
	return func() {
		out.claimed, out.err = n.eng.Claim(ctx, limit)
		for _, o := range out.claimed {
			out.worked = append(out.worked, n.eng.Process(ctx, o, false))
		}
	}
}

// rounds starts every node's engine round, each claiming up to limit (or
// a limit the burst draws, when 0).
func (w *World) rounds(ctx context.Context, bn []*burstNode, limit int) ([]*round, []func()) {
	rs := make([]*round, len(bn))
	var fns []func()
	for i, n := range bn {
		rs[i] = &round{}
		l := limit
		if l == 0 {
			l = 1 + w.bursts.rng.IntN(4)
		}
		fns = append(fns, engineRound(ctx, n, l, rs[i]))
	}
	return rs, fns
}

// checkRounds logs the engines' rounds of a burst. That no node claimed
// an order another held is burstStore's check (the lease, FOR UPDATE SKIP
// LOCKED on PostgreSQL).
func (w *World) checkRounds(bn []*burstNode, rs []*round) {
	var claims []int
	var states []string
	for i, r := range rs {
		if r.err != nil {
			w.logf("  %s claims: %v", bn[i].owner, errText(r.err))
		}
		claims = append(claims, len(r.claimed))
		for _, o := range r.worked {
			states = append(states, string(o.Status)+o.Alert)
		}
	}
	w.logf("  claims %v; worked %s", claims, tally(states))
}

// burstEngines has every node's engine claim and work on due orders at
// once (after a jump past the leases, one time in two), while a client
// sends 0–2 orders.
func (w *World) burstEngines(ctx context.Context, bn []*burstNode) error {
	if w.bursts.rng.IntN(2) == 0 {
		d := lease + 2*maxSkew
		w.clk.Advance(d)
		w.logf("jump %v", d)
	}
	rs, fns := w.rounds(ctx, bn, 0)
	acct := w.bursts.rng.IntN(len(w.model.accounts))
	account := w.model.accounts[acct]
	p := packs[w.bursts.rng.IntN(len(packs))]
	before, err := w.meansOf(ctx, account)
	if err != nil {
		return err
	}
	amount := w.model.priceFor(account, p.PID)
	r := &orderRace{account: account, low: amount, high: amount, before: before}
	for i := range w.bursts.rng.IntN(3) {
		r.rqs = append(r.rqs, w.asked(account, w.orderOf(p, fmt.Sprintf("b%d-%d", w.step, i))))
	}
	to := w.pickNodes(bn, len(r.rqs))
	w.logf("BURST the engines of %s work at once, while %s sends %d orders of %s", owners(bn), w.shop(account), len(r.rqs), p.PID)
	r.as = w.placeAll(ctx, r.rqs, to, fns...)
	w.checkRounds(bn, rs)
	return w.checkRace(ctx, r)
}

// burstSettle has the operator complete, cancel or retry a processing
// order, as operatorSettle and the retry step do, past its lease, while
// every node's engine claims every order due at once.
func (w *World) burstSettle(ctx context.Context, bn []*burstNode) error {
	o, ok, err := w.pickProcessing(ctx)
	if err != nil || !ok {
		return err
	}
	d := lease + 2*maxSkew
	w.clk.Advance(d)
	w.logf("jump %v", d)
	svc, root := w.bursts.svc, w.root
	what, settles := "retries", false
	call := func() (topupd.Order, error) { return svc.RetryOrder(ctx, root, o.ID) }
	switch {
	case o.Provider == topupd.ProviderManual && w.bursts.rng.IntN(3) > 0:
		what, settles = "completes", true
		call = func() (topupd.Order, error) { return svc.CompleteOrder(ctx, root, o.ID, nil) }
	case o.Provider == topupd.ProviderManual || o.Alert != "":
		what, settles = "cancels", true
		call = func() (topupd.Order, error) { return svc.CancelOrder(ctx, root, o.ID, "", true) }
	}
	rs, fns := w.rounds(ctx, bn, meanwhileClaims)
	w.logf("BURST the operator %s #%d while the engines of %s work at once", what, w.ord(o.Seq), owners(bn))
	var opErr error
	together(append(fns, func() { _, opErr = call() })...)
	switch c := topupd.CodeOf(opErr); {
	case opErr == nil && settles:
		w.model.byOperator[o.ID] = true
	case opErr == nil, c == topupd.EOrderFinal, c == topupd.EConflict:
	default:
		w.fail("the operator %s #%d while the engines work, and is answered %v", what, w.ord(o.Seq), opErr)
	}
	w.logf("  operator: %s", errText(opErr))
	w.checkRounds(bn, rs)
	return nil
}

// burstOperator has the operator change a pack's price while two or three
// accounts order it, or debit an account while it orders, at once.
func (w *World) burstOperator(ctx context.Context, bn []*burstNode) error {
	if w.bursts.rng.IntN(2) == 0 {
		return w.burstDebit(ctx, bn)
	}
	p := packs[w.bursts.rng.IntN(len(packs))]
	price := topupd.Money(100 * (1 + w.bursts.rng.IntN(5))) // whole cents
	var rqs []*request
	var old []topupd.Money
	var befores []means
	for i, acct := range w.bursts.rng.Perm(len(w.model.accounts))[:2+w.bursts.rng.IntN(2)] {
		account := w.model.accounts[acct]
		rqs = append(rqs, w.asked(account, w.orderOf(p, fmt.Sprintf("b%d-%d", w.step, i))))
		old = append(old, w.model.priceFor(account, p.PID))
		m, err := w.meansOf(ctx, account)
		if err != nil {
			return err
		}
		befores = append(befores, m)
	}
	to := w.pickNodes(bn, len(rqs))
	w.logf("BURST the operator prices %s at %s while %d accounts order it at once, to %s", p.PID, price.Dollars(), len(rqs), owners(to))
	var opErr error
	as := w.placeAll(ctx, rqs, to, func() {
		_, opErr = w.bursts.svc.UpdatePack(ctx, w.root, p.PID, service.PackPatch{Price: &price, AllowBelowCost: true})
	})
	if opErr != nil {
		w.fail("the operator prices %s while it is ordered, and is answered %v", p.PID, opErr)
	} else {
		w.model.prices[p.PID] = price
	}
	w.logf("  operator: %s", errText(opErr))
	for i := range as {
		now := w.model.priceFor(rqs[i].account, p.PID)
		r := &orderRace{account: rqs[i].account, low: min(old[i], now), high: max(old[i], now), before: befores[i], rqs: rqs[i : i+1], as: as[i : i+1]}
		if err := w.checkRace(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// burstDebit has the operator debit an account while it sends two or three
// orders at once, the debit and the orders together more than its balance.
func (w *World) burstDebit(ctx context.Context, bn []*burstNode) error {
	acct := w.bursts.rng.IntN(len(w.model.accounts))
	account := w.model.accounts[acct]
	p := packs[w.bursts.rng.IntN(len(packs))]
	before, err := w.meansOf(ctx, account)
	if err != nil {
		return err
	}
	amount := w.model.priceFor(account, p.PID)
	r := &orderRace{account: account, low: amount, high: amount, before: before}
	n := 2 + w.bursts.rng.IntN(2)
	debit := before.balance - amount*topupd.Money(w.bursts.rng.IntN(n)) - topupd.Money(w.bursts.rng.IntN(int(amount)))
	if debit <= 0 {
		debit = amount
	}
	for i := range n {
		r.rqs = append(r.rqs, w.asked(account, w.orderOf(p, fmt.Sprintf("b%d-%d", w.step, i))))
	}
	to := w.pickNodes(bn, n)
	ref := fmt.Sprintf("ref-burst-%d", w.step)
	w.logf("BURST the operator debits %s %s of %s while it sends %d orders of %s at once, to %s", w.shop(account), debit.Dollars(), before.balance.Dollars(), n, p.PID, owners(to))
	var opErr error
	r.as = w.placeAll(ctx, r.rqs, to, func() {
		_, opErr = w.bursts.svc.Credit(ctx, w.root, account, -debit, ref)
	})
	if opErr == nil {
		r.debit = debit
		w.model.credited[account] -= debit
		w.model.refs[account+"\x00"+ref] = true
	}
	if err := w.checkRace(ctx, r); err != nil {
		return err
	}
	placed := 0
	for _, rq := range r.rqs {
		if rq.firstID != "" {
			placed++
		}
	}
	switch {
	case opErr == nil:
	case topupd.CodeOf(opErr) != topupd.EInsufficientBalance:
		w.fail("the operator debits %s while it orders, and is answered %v", w.shop(account), opErr)
	case before.balance-topupd.Money(placed)*amount >= debit:
		w.fail("the operator's debit of %s is refused for %s's balance of %s, with %d orders of %s placed meanwhile", debit.Dollars(),
			w.shop(account), before.balance.Dollars(), placed, amount.Dollars())
	}
	w.logf("  operator: %s", errText(opErr))
	return nil
}
