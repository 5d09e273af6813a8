package simulation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// check checks the invariants: the cheap ones after every step, and with
// full those that read every order's ledger entries and events, and the
// store's own audit; with final, every order must be final too. A broken
// invariant is recorded (fail); an error is the store failing to answer.
func (w *World) check(ctx context.Context, full, final bool) error {
	live, err := w.store.Orders(ctx, topupd.OrdersQuery{Limit: 100_000})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	sandbox, err := w.store.Orders(ctx, topupd.OrdersQuery{Limit: 100_000, Sandbox: true})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	orders := append(slices.Clip(live), sandbox...)
	if err := w.checkDeposits(ctx); err != nil {
		return err
	}
	books := append(slices.Clip(w.model.accounts), w.model.sandboxes...)
	if w.model.depositor != "" {
		books = append(books, w.model.depositor)
	}
	owed := map[string]topupd.Money{}
	for _, id := range books {
		owed[id] = w.model.credited[id]
	}
	codes := map[string]int64{}
	trxids := map[[2]string]int64{} // an account's trxids, lowered: one order each
	uploaded := map[string]bool{}
	for _, c := range w.model.stock {
		uploaded[c] = true
	}
	for i := range orders {
		o := &orders[i]
		owed[o.AccountID] -= o.Amount
		if o.Refunded {
			owed[o.AccountID] += o.Amount
		}
		w.checkOrder(o)
		key := [2]string{o.AccountID, strings.ToLower(o.TrxID)}
		if seq, ok := trxids[key]; ok {
			w.fail("trxid %s of %s placed two orders, #%d and #%d", o.TrxID, w.shop(o.AccountID), w.ord(seq), w.ord(o.Seq))
		}
		trxids[key] = o.Seq
		for _, c := range o.Codes {
			if seq, ok := codes[c]; ok {
				w.fail("code %s delivered to #%d and to #%d", c, w.ord(seq), w.ord(o.Seq))
			}
			codes[c] = o.Seq
			if o.Provider == topupd.ProviderStock && !uploaded[c] {
				w.fail("#%d from stock delivered %s, a code never uploaded", w.ord(o.Seq), c)
			}
			if o.Sandbox != strings.HasPrefix(c, "TEST-") {
				w.fail("#%d (sandbox=%v) delivered %s", w.ord(o.Seq), o.Sandbox, c)
			}
			if w.model.voided[c] {
				w.fail("#%d delivered %s, a code withdrawn by a void", w.ord(o.Seq), c)
			}
			if o.Provider != topupd.ProviderStock && uploaded[c] {
				w.fail("#%d (%s) delivered %s, a code uploaded to stock", w.ord(o.Seq), o.Provider, c)
			}
		}
		if final && !o.Status.Final() {
			w.fail("#%d is still processing (%s) after faults stopped and time passed its deadline", w.ord(o.Seq), o.Alert)
		}
		if full {
			if err := w.checkHistory(ctx, o); err != nil {
				return err
			}
		}
	}
	for _, id := range books {
		bal, err := w.store.Balance(ctx, id)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		if bal < 0 {
			w.fail("%s's balance is %v, below zero", w.shop(id), bal)
		}
		if bal != owed[id] {
			w.fail("%s's balance is %v; its credits less its charges plus its refunds are %v", w.shop(id), bal, owed[id])
		}
	}
	if full {
		if err := w.checkRollups(ctx, live); err != nil { // reports leave sandboxes out
			return err
		}
		a, err := w.store.Audit(ctx, w.clk.Now())
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		for _, c := range a.Checks {
			// Orders are processing until the faults stop: the audit's
			// "orders-final" holds only once they are all settled.
			if c.Violations > 0 && (final || c.Name != "orders-final") {
				w.fail("audit %s: %d violations (%v)%s", c.Name, c.Violations, c.Examples, w.attemptsOf(ctx, c.Examples))
			}
		}
	}
	return nil
}

// shop names an account as the trace does: shop1, or shop1's sandbox.
func (w *World) shop(id string) string {
	live, sandbox := topupd.LiveID(id)
	name := live
	if i := slices.Index(w.model.accounts, live); i >= 0 {
		name = fmt.Sprintf("shop%d", i+1)
	} else if live == w.model.depositor {
		name = "shop4"
	}
	if sandbox {
		return name + "'s sandbox"
	}
	return name
}

// checkOrder checks one order against itself and the suppliers' truth.
func (w *World) checkOrder(o *topupd.Order) {
	w.checkCost(o)
	if o.Status == topupd.StatusCompleted && o.Refunded {
		w.fail("#%d is completed and refunded", w.ord(o.Seq))
	}
	var holders []*supplier
	for _, s := range w.supOrd {
		if s.holds(o.ID) {
			holders = append(holders, s)
		}
	}
	if o.Sandbox && len(holders) > 0 {
		w.fail("sandbox order #%d reached supplier %s", w.ord(o.Seq), holders[0].name)
		return
	}
	if len(holders) > 1 {
		w.fail("#%d is bought from %s and %s", w.ord(o.Seq), holders[0].name, holders[1].name)
		return
	}
	if o.Status == topupd.StatusProcessing && o.Alert == topupd.AlertWaitingFunds {
		if len(holders) > 0 {
			w.fail("#%d waits for supplier funds but supplier %s holds it", w.ord(o.Seq), holders[0].name)
			return
		}
		if !w.model.waited[o.ID] {
			w.model.waited[o.ID] = true
			w.logf("#%d waits for supplier funds", w.ord(o.Seq))
		}
	}
	if len(holders) == 1 && (o.Provider != topupd.ProviderUpstream || holders[0].name != o.Upstream) {
		w.fail("#%d is held by supplier %s but the order says %s %s", w.ord(o.Seq), holders[0].name, o.Provider, o.Upstream)
		return
	}
	if w.model.byOperator[o.ID] || o.Provider != topupd.ProviderUpstream {
		return // the operator's word, or a supplier without a simulated truth
	}
	switch o.Status {
	case topupd.StatusCompleted:
		if len(holders) == 0 {
			w.fail("#%d is completed but supplier %s holds no such order", w.ord(o.Seq), o.Upstream)
			return
		}
		so := holders[0].orders[o.ID]
		if so.state != topupd.OutcomeCompleted {
			w.fail("#%d is completed but supplier %s has it %s", w.ord(o.Seq), o.Upstream, so.state)
		}
		if o.Kind == topupd.KindGamekey && !slices.Equal(so.codes, o.Codes) {
			w.fail("#%d delivered codes %v; supplier %s delivered %v", w.ord(o.Seq), o.Codes, o.Upstream, so.codes)
		}
	case topupd.StatusCancelled:
		if len(holders) == 1 {
			w.fail("#%d is cancelled (refunded=%v) but supplier %s has it %s", w.ord(o.Seq), o.Refunded, holders[0].name, holders[0].orders[o.ID].state)
		}
	}
}

// checkHistory checks an order's ledger entries and events against its state.
func (w *World) checkHistory(ctx context.Context, o *topupd.Order) error {
	entries, err := w.store.OrderEntries(ctx, o.Seq)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	count := map[topupd.EntryKind]int{}
	for _, e := range entries {
		count[e.Kind]++
		switch {
		case e.Kind == topupd.EntryCharge && e.Amount != -o.Amount:
			w.fail("#%d of %v was charged %v", w.ord(o.Seq), o.Amount, e.Amount)
		case e.Kind == topupd.EntryRefund && e.Amount != o.Amount:
			w.fail("#%d of %v was refunded %v", w.ord(o.Seq), o.Amount, e.Amount)
		}
	}
	refunds := 0
	if o.Refunded {
		refunds = 1
	}
	if count[topupd.EntryCharge] != 1 || count[topupd.EntryRefund] != refunds {
		w.fail("#%d (%s, refunded=%v) has %d charges and %d refunds", w.ord(o.Seq), o.Status, o.Refunded, count[topupd.EntryCharge], count[topupd.EntryRefund])
	}
	events, err := w.store.OrderStreamEvents(ctx, o.Seq)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	kinds := map[topupd.EventType]int{}
	for _, e := range events {
		kinds[e.Type]++
		// A final state's event tells the order as it ended, to the field.
		switch d := e.Data.(type) {
		case *topupd.OrderCompletedData, *topupd.OrderCancelledData:
			if got, want := *d.(topupd.OrderEventData).Facts(), topupd.FactsOf(o); got != want {
				w.fail("#%d's %s event says %+v, the order %+v", w.ord(o.Seq), e.Type, got, want)
			}
		}
	}
	want := map[topupd.EventType]int{topupd.OrderPlaced: 1}
	switch o.Status {
	case topupd.StatusCompleted:
		want[topupd.OrderCompleted] = 1
	case topupd.StatusCancelled:
		want[topupd.OrderCancelled] = 1
	}
	for _, t := range []topupd.EventType{topupd.OrderPlaced, topupd.OrderCompleted, topupd.OrderCancelled} {
		if kinds[t] != want[t] {
			w.fail("#%d (%s) has %d %s events, not %d", w.ord(o.Seq), o.Status, kinds[t], t, want[t])
		}
	}
	return nil
}

// checkRollups compares the sales report, by pack over the whole run, with
// the orders.
func (w *World) checkRollups(ctx context.Context, orders []topupd.Order) error {
	want := map[string]*topupd.SalesRow{}
	for i := range orders {
		o := &orders[i]
		r := want[o.PID]
		if r == nil {
			r = &topupd.SalesRow{Key: o.PID}
			want[o.PID] = r
		}
		r.CountOrder(o)
		if o.Status == topupd.StatusCompleted && o.Cost != nil { // each checked against the model (checkCost)
			r.Cost += *o.Cost
		}
	}
	from := w.began.Add(-48 * time.Hour)
	rows, err := w.store.SalesReport(ctx, from, w.clk.Now().Add(48*time.Hour), topupd.ByPack)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	for _, got := range rows {
		if want[got.Key] == nil {
			w.fail("sales report has pack %s, which has no order", got.Key)
			continue
		}
		if *want[got.Key] != got {
			w.fail("sales report of %s is %+v; its orders sum to %+v", got.Key, got, *want[got.Key])
		}
		delete(want, got.Key)
	}
	for pid := range want {
		w.fail("sales report misses pack %s", pid)
	}
	return nil
}

// attemptsOf spells the supplier attempts of the orders named, to explain
// a broken supplier-attempts-consistent.
func (w *World) attemptsOf(ctx context.Context, ids []string) string {
	var b strings.Builder
	for _, id := range ids {
		o, err := w.store.Order(ctx, "", id)
		if err != nil {
			continue
		}
		list, _ := w.store.SupplierAttempts(ctx, o.Seq)
		fmt.Fprintf(&b, "; #%d %s %s alert %q on %s:", w.ord(o.Seq), o.Status, o.Supplier, o.Alert, o.Upstream)
		for _, a := range list {
			fmt.Fprintf(&b, " %s/%s(%s)", a.Upstream, a.Outcome, a.Why)
		}
	}
	return b.String()
}
