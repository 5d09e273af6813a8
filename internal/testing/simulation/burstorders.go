package simulation

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/topupd/topupd"
)

// burstDuplicates has a client send one new order request 2–4 times at
// once (the same trxid, and idempotency key if it has one), to nodes the
// burst draws: exactly one order may exist, every answer that succeeded
// must name it and only one may say it placed it; a copy that lost the
// race may be refused only as in flight (DUPLICATE_IN_FLIGHT), and, when
// no copy placed it, only for a reason that was due.
func (w *World) burstDuplicates(ctx context.Context, bn []*burstNode) error {
	account := w.model.accounts[w.bursts.rng.IntN(len(w.model.accounts))]
	rq := w.asked(account, w.newRequest(fmt.Sprintf("b%d", w.step)))
	if rq.req.Quantity > 1 {
		rq.req.Quantity = 1
	}
	copies := 2 + w.bursts.rng.IntN(3)
	to := w.pickNodes(bn, copies)
	before, err := w.meansOf(ctx, account)
	if err != nil {
		return err
	}
	w.logf("BURST %s sends %s %s %d times at once, to %s", w.shop(account), rq.req.TrxID, rq.req.PID, copies, owners(to))
	as := w.placeAll(ctx, slices.Repeat([]*request{rq}, copies), to)
	held, err := w.store.Orders(ctx, topupd.OrdersQuery{AccountID: account, TrxID: rq.req.TrxID, Limit: 10})
	if err != nil {
		return fmt.Errorf("burst: %w", err)
	}
	if len(held) > 1 {
		w.fail("%s sent %s %d times at once and it placed %d orders", w.shop(account), rq.req.TrxID, copies, len(held))
		return nil
	}
	amount := w.model.priceFor(account, rq.req.PID) * topupd.Money(max(rq.req.Quantity, 1))
	var outcomes []string
	placed := 0
	for i, a := range as {
		switch {
		case a.err != nil:
			w.fail("copy %d of %s to %s: %v", i+1, rq.req.TrxID, to[i].owner, a.err)
		case a.status == http.StatusOK && len(held) == 0:
			w.fail("copy %d of %s to %s was answered order %s, which the store does not hold", i+1, rq.req.TrxID, to[i].owner, a.OrderID)
		case a.status == http.StatusOK:
			replay := a.IdempotentReplay != nil && *a.IdempotentReplay
			outcomes = append(outcomes, map[bool]string{false: "placed", true: "replayed"}[replay])
			if !replay {
				placed++
			}
			if a.OrderID != held[0].ID {
				w.fail("copy %d of %s to %s was answered order %s, not %s, the one order of its trxid", i+1, rq.req.TrxID, to[i].owner, a.OrderID, held[0].ID)
			}
		default:
			outcomes = append(outcomes, a.Code)
			code := topupd.ErrorCode(a.Code)
			if len(held) == 1 && code != topupd.EDuplicateInFlight {
				w.fail("copy %d of %s to %s was refused %d %s, though its order was placed", i+1, rq.req.TrxID, to[i].owner, a.status, a.Code)
			} else if len(held) == 0 {
				w.refusalDue(rq, code, amount, before, 0, 0)
			}
		}
	}
	if len(held) == 1 {
		o := held[0]
		if placed != 1 {
			w.fail("%d copies of %s were answered as placing #%d, not 1", placed, rq.req.TrxID, w.ord(o.Seq))
		}
		if o.Amount != amount {
			w.fail("#%d of %s was charged %s, not %s at %s", w.ord(o.Seq), o.PID, o.Amount.Dollars(), amount.Dollars(), w.model.describe(account, o.PID))
		}
		rq.firstID = o.ID
		w.model.orders[o.ID] = true
		w.logf("  answers %s; one order #%d (now %s)", tally(outcomes), w.ord(o.Seq), o.Status)
		return nil
	}
	w.logf("  answers %s; no order", tally(outcomes))
	return nil
}

// burstAccount has one account's client send 2–6 distinct orders of one
// pack at once, to nodes the burst draws, with a balance that covers only
// some of them (the operator debits it first, when it covers more).
func (w *World) burstAccount(ctx context.Context, bn []*burstNode) error {
	acct := w.bursts.rng.IntN(len(w.model.accounts))
	account := w.model.accounts[acct]
	p := packs[w.bursts.rng.IntN(len(packs))]
	amount := w.model.priceFor(account, p.PID)
	room := 1 + w.bursts.rng.IntN(3)
	before, err := w.meansOf(ctx, account)
	if err != nil {
		return err
	}
	if extra := before.balance - topupd.Money(room)*amount - topupd.Money(w.bursts.rng.IntN(int(amount))); extra > 0 {
		if err := w.credit(ctx, acct, -extra, fmt.Sprintf("ref-burst-%d", w.step)); err != nil {
			return err
		}
		if before, err = w.meansOf(ctx, account); err != nil {
			return err
		}
	}
	n := room + 1 + w.bursts.rng.IntN(3)
	r := &orderRace{account: account, low: amount, high: amount, before: before}
	for i := range n {
		r.rqs = append(r.rqs, w.asked(account, w.orderOf(p, fmt.Sprintf("b%d-%d", w.step, i))))
	}
	to := w.pickNodes(bn, n)
	w.logf("BURST %s sends %d orders of %s at %s at once, to %s, with a balance of %s", w.shop(account), n, p.PID, amount.Dollars(), owners(to), before.balance.Dollars())
	r.as = w.placeAll(ctx, r.rqs, to)
	return w.checkRace(ctx, r)
}

// orderOf is a new request of pack p, of one unit, named by name.
func (w *World) orderOf(p topupd.Pack, name string) topupd.OrderRequest {
	req := topupd.OrderRequest{PID: p.PID, TrxID: "trx-" + name, Fields: topupd.AccountFields{UserID: "12345"}}
	if p.Slug == "keys" {
		req.Fields, req.Quantity = topupd.AccountFields{}, 1
	}
	return req
}

// means is what an account had just before a burst: its balance, what
// it spent that UTC day (charges less refunds), and its orders refunded.
type means struct {
	balance, spent topupd.Money
	refunded       map[string]bool
}

// meansOf reads an account's means.
func (w *World) meansOf(ctx context.Context, account string) (means, error) {
	m := means{refunded: map[string]bool{}}
	var err error
	if m.balance, err = w.store.Balance(ctx, account); err != nil {
		return m, fmt.Errorf("burst: %w", err)
	}
	orders, err := w.store.Orders(ctx, topupd.OrdersQuery{AccountID: account, Limit: 100_000})
	if err != nil {
		return m, fmt.Errorf("burst: %w", err)
	}
	for _, o := range orders {
		if o.Refunded {
			m.refunded[o.ID] = true
		}
	}
	m.spent, err = w.spentToday(ctx, account, w.clk.Now())
	return m, err
}

// refundedSince is what the account's orders were refunded since m was
// read: an engine working meanwhile may refund any of them.
func (w *World) refundedSince(ctx context.Context, account string, m means) (topupd.Money, error) {
	orders, err := w.store.Orders(ctx, topupd.OrdersQuery{AccountID: account, Limit: 100_000})
	if err != nil {
		return 0, fmt.Errorf("burst: %w", err)
	}
	var sum topupd.Money
	for _, o := range orders {
		if o.Refunded && !m.refunded[o.ID] {
			sum += o.Amount
		}
	}
	return sum, nil
}

// orderRace is a burst's distinct orders of one account, each of the same
// amount, sent at once: low, or high when the price changed meanwhile
// (else the same); debit is a debit of the account that took effect
// meanwhile.
type orderRace struct {
	account   string
	low, high topupd.Money
	before    means
	debit     topupd.Money
	rqs       []*request
	as        []burstAnswer
}

// checkRace checks a race of distinct orders: each order placed is the
// request's, charged its amount; no more were placed than the balance
// covered (plus the account's refunds meanwhile), and within the limits; each
// refusal is one the spec allows, and was due whatever the interleaving:
// one for the balance only once as many orders as the balance covered
// were placed (the balance falls only by their charges and the debit).
func (w *World) checkRace(ctx context.Context, r *orderRace) error {
	var placed []topupd.Order
	var outcomes []string
	refunded, err := w.refundedSince(ctx, r.account, r.before)
	if err != nil {
		return err
	}
	for i, a := range r.as {
		rq := r.rqs[i]
		switch {
		case a.err != nil:
			w.fail("%s: %v", rq.req.TrxID, a.err)
		case a.status == http.StatusOK:
			o, err := w.store.Order(ctx, "", a.OrderID)
			if err != nil {
				return fmt.Errorf("burst: the order answered: %w", err)
			}
			if a.IdempotentReplay != nil && *a.IdempotentReplay || o.TrxID != rq.req.TrxID {
				w.fail("new request %s was answered with #%d (%s), as a replay", rq.req.TrxID, w.ord(o.Seq), o.TrxID)
			}
			if o.Amount != r.low && o.Amount != r.high {
				w.fail("#%d of %s was charged %s, not %s (or %s, the price meanwhile) at %s", w.ord(o.Seq), o.PID, o.Amount.Dollars(),
					r.low.Dollars(), r.high.Dollars(), w.model.describe(r.account, o.PID))
			}
			rq.firstID = o.ID
			w.model.orders[o.ID] = true
			placed = append(placed, o)
			outcomes = append(outcomes, "placed")
		default:
			outcomes = append(outcomes, a.Code)
		}
	}
	for i, a := range r.as {
		if a.err == nil && a.status != http.StatusOK {
			w.refusalDue(r.rqs[i], topupd.ErrorCode(a.Code), r.high, r.before, r.debit, len(placed))
		}
	}
	n, l := len(placed), w.model.limits[r.account]
	if covered := coveredBy(r.before.balance-r.debit+refunded, r.low); n > covered {
		w.fail("%s placed %d orders of %s at once with a balance of %s (debited %s): room for %d", w.shop(r.account), n, r.low.Dollars(),
			r.before.balance.Dollars(), r.debit.Dollars(), covered)
	}
	if l.Daily != nil && n > 0 && r.before.spent+topupd.Money(n)*r.low-refunded > *l.Daily {
		w.fail("%s placed %d orders of %s at once with %s spent today, above its daily limit of %s", w.shop(r.account), n, r.low.Dollars(),
			r.before.spent.Dollars(), l.Daily.Dollars())
	}
	slices.SortFunc(placed, func(a, b topupd.Order) int { return int(a.Seq - b.Seq) })
	var names []string
	for _, o := range placed {
		names = append(names, fmt.Sprintf("#%d", w.ord(o.Seq)))
	}
	w.logf("  answers %s; placed %v", tally(outcomes), names)
	return nil
}

// coveredBy is how many orders of amount a balance covers.
func coveredBy(balance, amount topupd.Money) int {
	if balance <= 0 || amount <= 0 {
		return 0
	}
	return int(balance / amount)
}

// refusalDue checks a refusal of request rq (of amount, for an account
// that had before just before its burst, was debited debit meanwhile, and
// of whose burst's orders placed were placed): it is one the spec allows
// a valid request, and was due whatever the interleaving.
func (w *World) refusalDue(rq *request, code topupd.ErrorCode, amount topupd.Money, before means, debit topupd.Money, placed int) {
	l := w.model.limits[rq.account]
	switch code {
	case topupd.EInsufficientBalance:
		if covered := coveredBy(before.balance-debit, amount); placed < covered {
			w.fail("%s was refused %s of %s for its balance, which covered %d orders (%s, debited %s) and %d were placed",
				w.shop(rq.account), rq.req.TrxID, amount.Dollars(), covered, before.balance.Dollars(), debit.Dollars(), placed)
		}
	case topupd.ESpendLimit:
		switch {
		case l.MaxOrder != nil && amount > *l.MaxOrder:
		case l.Daily != nil && before.spent+topupd.Money(placed+1)*amount > *l.Daily:
		default:
			w.fail("%s was refused %s of %s for its spending limits (max=%s daily=%s) with %s spent before and %d placed at once",
				w.shop(rq.account), rq.req.TrxID, amount.Dollars(), show(l.MaxOrder), show(l.Daily), before.spent.Dollars(), placed)
		}
	case topupd.EInsufficientStock:
		if rq.req.PID != "K-STK" {
			w.fail("%s of %s was refused for stock", rq.req.TrxID, rq.req.PID)
		}
	default:
		w.fail("%s was refused %s, which no valid request of a burst is", rq.req.TrxID, code)
	}
}
