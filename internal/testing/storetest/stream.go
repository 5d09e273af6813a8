package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// streamTests check the event stream: every committed change tells of
// itself once, in order, and nothing rolled back tells of anything.
var streamTests = []test{
	{"EveryChange", testStreamEveryChange},
	{"NothingRolledBack", testStreamNothingRolledBack},
	{"ConsumerLease", testStreamConsumerLease},
	{"CatalogChanges", testStreamCatalogChanges},
}

// told is an event as the tests compare it: its type, order and a few data.
type told struct {
	Type     topupd.EventType
	Order    string
	Status   any
	Refunded any
	// Action is the action of an account's or the catalog's change.
	Action any
}

// streamAfter returns the events after pos, as told, and the new end. On
// PostgreSQL the stream shows an event only once every transaction older
// than its own has ended, anywhere in the database (tests run side by
// side), so it first commits a sentinel of its own (a credit to an account
// of its own) and reads until the sentinel shows: every change made before
// it shows then too. The sentinel is left out of the answer, and so are
// the packs.changed events the database's triggers write (the webhooks
// package tests them).
func (e *env) streamAfter(pos topupd.StreamPos) ([]told, topupd.StreamPos) {
	e.t.Helper()
	sentinel := e.account("sentinel", topupd.USD(1))
	out := []told{}
	for deadline := time.Now().Add(30 * time.Second); ; {
		evs, err := e.s.Events(e.ctx, pos, 1000)
		if err != nil {
			e.t.Fatalf("Events: %v", err)
		}
		for _, ev := range evs {
			if !ev.Pos.After(pos) {
				e.t.Errorf("event %s at %+v is not after %+v", ev.ID, ev.Pos, pos)
			}
			pos = ev.Pos
			if ev.AccountID == sentinel.ID {
				return out, pos
			}
			if ev.Type == topupd.PacksChanged {
				continue
			}
			out = append(out, toldOf(&ev))
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the sentinel's event did not show in the stream within 30 s; read %+v", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// toldOf is what a test compares of an event.
func toldOf(ev *topupd.Event) told {
	t := told{Type: ev.Type, Order: ev.OrderID}
	switch d := ev.Data.(type) {
	case topupd.OrderEventData:
		t.Status = string(d.Facts().Status)
		if d.Facts().Refunded {
			t.Refunded = true
		}
	case *topupd.AccountChangedData:
		t.Action = d.Action
	case *topupd.CatalogChangedData:
		t.Action = d.Action
	}
	return t
}

// testStreamEveryChange: a credit, an order placed processing, a key order
// (placed and completed at once), a completion, a refunded cancellation,
// an operator's retry and a change to an account each tell of themselves,
// once and in the order they were made; the audit agrees.
func testStreamEveryChange(t *testing.T, e *env) {
	e.catalog()
	e.stock(pidKey, 2)
	var pos topupd.StreamPos
	a := e.account("a", topupd.USD(100))
	got, pos := e.streamAfter(pos)
	if diff := cmp.Diff([]told{{Type: topupd.BalanceCredited}}, got); diff != "" {
		t.Errorf("a credit (-want +got):\n%s", diff)
	}
	done := e.place(a.ID, topup("ST-1"), t0)
	key := e.place(a.ID, keys(pidKey, "ST-2", 1), t0)
	gone := e.place(a.ID, topup("ST-3"), t0)
	again := e.place(a.ID, topup("ST-4"), t0)
	e.settle(done, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0})
	e.settle(gone, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0})
	e.settle(again, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Minute), Now: t0})
	if _, err := e.s.RetryOrder(e.ctx, nil, again.Seq, t0, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, pos = e.streamAfter(pos)
	want := []told{
		{Type: topupd.OrderPlaced, Order: done.ID, Status: "processing"},
		{Type: topupd.OrderPlaced, Order: key.ID, Status: "completed"},
		{Type: topupd.OrderCompleted, Order: key.ID, Status: "completed"},
		{Type: topupd.OrderPlaced, Order: gone.ID, Status: "processing"},
		{Type: topupd.OrderPlaced, Order: again.ID, Status: "processing"},
		{Type: topupd.OrderCompleted, Order: done.ID, Status: "completed"},
		{Type: topupd.OrderCancelled, Order: gone.ID, Status: "cancelled", Refunded: true},
		// A settlement that leaves the order processing is in its
		// history, not in the stream.
		{Type: topupd.OrderRetried, Order: again.ID, Status: "processing"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("orders (-want +got):\n%s", diff)
	}
	mine, err := e.s.OrderStreamEvents(e.ctx, gone.Seq)
	if err != nil || len(mine) != 2 || mine[0].Type != topupd.OrderPlaced || mine[1].Type != topupd.OrderCancelled {
		t.Errorf("OrderStreamEvents of the cancelled order: %+v, %v", mine, err)
	}
	e.auditClean()
	if rest, _ := e.streamAfter(pos); len(rest) != 0 {
		t.Errorf("reading the stream changed it: %+v", rest)
	}
}

// testStreamNothingRolledBack: changes refused or rolled back (an order
// without the balance, of an unknown pack, of a disabled pack, a
// settlement of a final order, a debit below zero), and changes that
// change nothing (a replayed order, a credit's reference used again), put
// nothing in the stream.
func testStreamNothingRolledBack(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", priceTopup)
	first := e.place(a.ID, topup("RB-1"), t0)
	e.settle(first, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0})
	ref := e.uniq("ref")
	if _, _, err := e.s.Credit(e.ctx, nil, a.ID, topupd.USD(1), ref, t0); err != nil {
		t.Fatal(err)
	}
	_, end := e.streamAfter(topupd.StreamPos{})
	for _, req := range []topupd.OrderRequest{topup("RB-2") /* 1 USD left: too little */, {PID: "no-such", TrxID: "RB-3"},
		{PID: pidTopupOff, TrxID: "RB-4", Fields: topupd.AccountFields{UserID: userID}}} {
		if _, _, err := e.try(a.ID, req); err == nil {
			t.Errorf("order %s was accepted", req.TrxID)
		}
	}
	if _, replay, err := e.try(a.ID, topup("RB-1")); err != nil || !replay {
		t.Errorf("the replay: %v %v", replay, err)
	}
	if _, err := e.s.Settle(e.ctx, nil, first.Seq, topupd.Settlement{Status: topupd.StatusCancelled, Refund: true, Now: t0}); topupd.CodeOf(err) != topupd.EOrderFinal {
		t.Errorf("settling a final order: %v", err)
	}
	if _, _, err := e.s.Credit(e.ctx, nil, a.ID, -topupd.USD(1000), e.uniq("ref"), t0); err == nil {
		t.Error("a debit below zero was accepted")
	}
	if _, repeated, err := e.s.Credit(e.ctx, nil, a.ID, topupd.USD(1), ref, t0); err != nil || !repeated {
		t.Errorf("a credit under a reference used before: %v %v", repeated, err)
	}
	if got, _ := e.streamAfter(end); len(got) != 0 {
		t.Errorf("refused and repeated changes told of: %+v", got)
	}
	e.auditClean()
}

// testStreamConsumerLease: a new consumer starts at the stream's end; one
// owner holds it at a time, and only the holder moves its cursor on; when
// the lease runs out another owner takes over from that cursor.
func testStreamConsumerLease(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(10))
	_, end := e.streamAfter(topupd.StreamPos{})
	pos, ok, err := e.s.TakeConsumer(e.ctx, "test", "node-a", t0, t0.Add(time.Minute))
	if err != nil || !ok || pos != end {
		t.Fatalf("a new consumer: at %+v (end %+v), %v, %v", pos, end, ok, err)
	}
	o := e.place(a.ID, topup("CL-1"), t0)
	var evs []topupd.Event
	for deadline := time.Now().Add(30 * time.Second); len(evs) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if evs, err = e.s.Events(e.ctx, pos, 10); err != nil { // on PostgreSQL, once older transactions (other tests') end
			t.Fatal(err)
		}
	}
	if len(evs) != 1 || evs[0].OrderID != o.ID {
		t.Fatalf("the events after the consumer's cursor: %+v", evs)
	}
	if _, ok, err := e.s.TakeConsumer(e.ctx, "test", "node-b", t0.Add(30*time.Second), t0.Add(90*time.Second)); ok || err != nil {
		t.Errorf("node-b took a lease node-a holds: %v %v", ok, err)
	}
	if err := e.s.AdvanceConsumer(e.ctx, "test", "node-b", evs[0].Pos); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("node-b moved node-a's cursor: %v", err)
	}
	if err := e.s.AdvanceConsumer(e.ctx, "test", "node-a", evs[0].Pos); err != nil {
		t.Fatal(err)
	}
	pos, ok, err = e.s.TakeConsumer(e.ctx, "test", "node-b", t0.Add(2*time.Minute), t0.Add(3*time.Minute))
	if err != nil || !ok || pos != evs[0].Pos {
		t.Errorf("node-b after the lease ran out: at %+v, %v, %v; want %+v", pos, ok, err, evs[0].Pos)
	}
	if err := e.s.ReleaseConsumer(e.ctx, "test", "node-b"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := e.s.TakeConsumer(e.ctx, "test", "node-a", t0.Add(2*time.Minute), t0.Add(3*time.Minute)); !ok || err != nil {
		t.Errorf("node-a after node-b let go: %v %v", ok, err)
	}
}

// testStreamCatalogChanges: an operator's change to a line, a pack, its
// stock or a tier tells of itself as the catalog's change, in order; a
// refused one (voiding no batch) and one made without a change in its
// context (no operator's, as when a test or the demo seeds) tell nothing.
func testStreamCatalogChanges(t *testing.T, e *env) {
	e.catalog()
	_, pos := e.streamAfter(topupd.StreamPos{})
	as := func(action string) *topupd.Change {
		return &topupd.Change{Actor: topupd.Actor{Operator: "kim"}, Action: action, Target: action, Tells: topupd.CatalogChanged}
	}
	line := lines[0]
	line.ProductName += " (new)"
	if err := e.s.PutLine(e.ctx, as("line.put"), line); err != nil {
		t.Fatal(err)
	}
	pack := packs[0]
	pack.Name += " (new)"
	if err := e.s.PutPack(e.ctx, as("pack.put"), pack); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.AddStockBatch(e.ctx, as("stock.add"), pidKey, []string{e.uniq("CODE")}, topupd.StockUpload{}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.PutTier(e.ctx, as("tier.put"), topupd.Tier{Name: e.uniq("tier"), Prices: map[string]topupd.Money{pidTopup: topupd.USD(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.VoidBatch(e.ctx, as("batch.void"), 1<<40, t0); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("voiding no batch: %v", err)
	}
	if err := e.s.PutPack(e.ctx, nil, pack); err != nil {
		t.Fatal(err)
	}
	got, _ := e.streamAfter(pos)
	want := []told{{Type: topupd.CatalogChanged, Action: "line.put"}, {Type: topupd.CatalogChanged, Action: "pack.put"},
		{Type: topupd.CatalogChanged, Action: "stock.add"}, {Type: topupd.CatalogChanged, Action: "tier.put"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("catalog changes (-want +got):\n%s", diff)
	}
}
