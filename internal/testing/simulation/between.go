package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd/internal/sqlstore"
	"github.com/topupd/topupd/internal/testing/dbcount"
)

// storeCall is one store call of a node, as atCall runs it.
type storeCall struct {
	name string
	// account is the account the call places an order for, if it does.
	account string
	// again, when set, runs when the world went on between the call's
	// parts before its first write transaction, to read again what the
	// call's checks read just before it began.
	again func() error
	// fell, when set, is set when a fault at the SQL driver fell in the call.
	fell *bool
}

// betweenTx returns ctx for the store call c, and a func to call when it
// has returned. The store calls a hook before each write transaction it
// begins (sqlstore.WithBeforeTx), and the call's statements are counted
// under a tag of its own (w.db, a dbcount.Counter). A call's first write
// transaction, when nothing ran before it, begins as the call does; before
// any other (a call that has read, or written, already) the call is
// between its parts, and the world goes on there (between). Today's store
// calls read nothing before their one write transaction, so their
// histories draw nothing here.
func (s *crashStore) betweenTx(ctx context.Context, c storeCall) (context.Context, func()) {
	w := s.n.w
	w.calls++
	tag := fmt.Sprintf("%s#%d", c.name, w.calls)
	ran, writes := false, 0
	ctx = sqlstore.WithBeforeTx(dbcount.WithTag(ctx, tag), func() error {
		writes++
		if w.db.Take(tag).Statements > 0 {
			ran = true
		}
		if !ran {
			return nil
		}
		if err := w.between(s.n, c, writes == 1); err != nil {
			return err
		}
		if writes == 1 && c.again != nil {
			return c.again()
		}
		return nil
	})
	return ctx, func() {
		w.db.Take(tag)
		w.db.Take("") // the statements of no node's call (checks, the operator), not needed
	}
}

// between is a point inside a node's store call c, after it read or wrote
// and before it begins a write transaction (its first, when first). While
// faults are on, the world goes on there as it may while a process runs:
// the node may crash (about 1.2%, as at a call; the earlier transactions
// committed, the later ones never begun), or one to three other orders of
// a client may run to their answers first (50%; the same account's, for a
// call that places an order: a shop sends orders side by side), or,
// before the call's first write, the node may stall past its leases while
// the other node works (10%). A check made before that point and acted on
// after it is then acted on out of date.
//
// A stall after the call's first write is left out: once PlaceOrder or
// MarkSubmitting has committed, the node calls the supplier on what it
// knew, and a stall there is the window the lease leaves open (a submit
// after the lease ran out; see "Findings"), whatever the call's parts.
func (w *World) between(n *node, c storeCall, first bool) error {
	if w.crashHere() {
		w.crash(n, "inside "+c.name+", between its transactions")
		return errDead
	}
	if !w.faults || w.depth > 0 {
		return nil
	}
	switch r := w.rng.IntN(100); {
	case r < w.mix.betweenStall && first:
		w.logf("  PAUSE %s inside %s, between its parts", n.owner, c.name)
		w.meanwhile(n)
	case r >= 40 && r < 40+w.mix.interleave:
		w.otherOrders(c)
	}
	if n.dead {
		return errDead
	}
	return nil
}

// otherOrders has a client place one to three other orders, each on a
// node the scheduler picks, while a node is inside its store call c:
// orders of c's account when c places one, else of any account's.
func (w *World) otherOrders(c storeCall) {
	account := c.account
	if account == "" {
		account = w.model.accounts[w.rng.IntN(len(w.model.accounts))]
	}
	w.depth++
	defer func() { w.depth-- }()
	for i := range 1 + w.rng.IntN(3) {
		to := w.nodes[w.rng.IntN(len(w.nodes))]
		rq := w.asked(account, w.newRequest(fmt.Sprintf("%d-%d-%d", w.step, w.calls, i)))
		if to.dead {
			continue
		}
		w.logf("  meanwhile %s's client sends %s, to %s:", w.shop(account), rq.req.TrxID, to.owner)
		if err := w.send(context.Background(), to, rq); err != nil {
			w.fail("the other order %s: %v", rq.req.TrxID, err)
		}
	}
}
