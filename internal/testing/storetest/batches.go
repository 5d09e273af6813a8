package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

// batchTests check stock batches, their voids and exports, the cost of
// stock orders and the low-stock alerts.
var batchTests = []test{
	{"UploadsAreBatches", testUploadsAreBatches},
	{"UploadIsOneChange", testUploadIsOneChange},
	{"VoidWithdrawsUnsold", testVoidWithdrawsUnsold},
	{"VoidRacingDraws", testVoidRacingDraws},
	{"VoidRacingUpload", testVoidRacingUpload},
	{"ExportUnsold", testExportUnsold},
	{"StockOrderCost", testStockOrderCost},
	{"LowStockOnce", testLowStockOnce},
}

// upload adds codes to a pack in a batch and returns the result.
func (e *env) upload(pid string, codes []string, u topupd.StockUpload) topupd.StockResult {
	e.t.Helper()
	r, err := e.s.AddStockBatch(e.ctx, nil, pid, codes, u, t0)
	if err != nil {
		e.t.Fatalf("AddStockBatch %s %+v: %v", pid, u, err)
	}
	return r
}

// batch returns one of a pack's batches.
func (e *env) batch(pid string, id int64) topupd.Batch {
	e.t.Helper()
	list, err := e.s.Batches(e.ctx, pid)
	if err != nil {
		e.t.Fatalf("Batches %s: %v", pid, err)
	}
	for _, b := range list {
		if b.ID == id {
			return b
		}
	}
	e.t.Fatalf("pack %s has no batch %d among %+v", pid, id, list)
	return topupd.Batch{}
}

func money(m topupd.Money) *topupd.Money { return &m }

// testUploadsAreBatches: each upload starts a batch with its cost, note and
// counts; an upload naming a batch adds to it; the list is newest first;
// a batch of another pack, a voided one or an unknown one is refused.
func testUploadsAreBatches(t *testing.T, e *env) {
	e.catalog()
	first := e.upload(pidKey, []string{"B1-A", "B1-B", "B1-C"}, topupd.StockUpload{Cost: money(30_000), Note: "from supplier X"})
	more := e.upload(pidKey, []string{"B1-D", "B1-A"}, topupd.StockUpload{BatchID: first.BatchID})
	plain, err := e.s.AddStock(e.ctx, pidKey, []string{"B2-A"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if first.BatchID == 0 || more.BatchID != first.BatchID || plain.BatchID == first.BatchID || plain.BatchID == 0 {
		t.Fatalf("batch ids: first %d, added to it %d, plain upload %d", first.BatchID, more.BatchID, plain.BatchID)
	}
	if more.Added != 1 || more.Duplicates != 1 || more.Available != 4 {
		t.Errorf("adding to the batch: %+v", more)
	}
	list, err := e.s.Batches(e.ctx, pidKey)
	if err != nil {
		t.Fatal(err)
	}
	want := []topupd.Batch{
		{ID: plain.BatchID, PID: pidKey, CreatedAt: t0, Added: 1},
		{ID: first.BatchID, PID: pidKey, Cost: money(30_000), Note: "from supplier X", CreatedAt: t0, Added: 4},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("Batches (-want +got):\n%s", diff)
	}
	if other, err := e.s.Batches(e.ctx, pidCard); err != nil || len(other) != 0 {
		t.Errorf("Batches of a pack without uploads: %v, %v", other, err)
	}
	_, err = e.s.Batches(e.ctx, "no-such-pack")
	codeIs(t, err, topupd.ENotFound, "Batches of an unknown pack")

	before := e.snapshot()
	_, err = e.s.AddStockBatch(e.ctx, nil, pidCard, []string{"X-1"}, topupd.StockUpload{BatchID: first.BatchID}, t0)
	codeIs(t, err, topupd.EConflict, "adding to another pack's batch")
	_, err = e.s.AddStockBatch(e.ctx, nil, pidKey, []string{"X-2"}, topupd.StockUpload{BatchID: 999_999}, t0)
	codeIs(t, err, topupd.ENotFound, "adding to an unknown batch")
	if _, err := e.s.VoidBatch(e.ctx, nil, plain.BatchID, t0); err != nil {
		t.Fatal(err)
	}
	before.Stock[pidKey]--
	_, err = e.s.AddStockBatch(e.ctx, nil, pidKey, []string{"X-3"}, topupd.StockUpload{BatchID: plain.BatchID}, t0)
	codeIs(t, err, topupd.EConflict, "adding to a voided batch")
	e.unchanged(before, "refused uploads")
	e.auditClean()
}

// testVoidWithdrawsUnsold: a void withdraws the batch's unsold codes from
// stock and from every later order; its sold codes stay sold; other
// batches sell on; a second void is a conflict.
func testVoidWithdrawsUnsold(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(1000))
	old := e.upload(pidKey, []string{"OLD-1", "OLD-2", "OLD-3", "OLD-4"}, topupd.StockUpload{Note: "leaked"})
	sold := e.place(a.ID, keys(pidKey, "V-1", 1), t0)
	if diff := cmp.Diff([]string{"OLD-1"}, sold.Codes); diff != "" {
		t.Fatalf("first order's codes (-want +got):\n%s", diff)
	}
	fresh := e.upload(pidKey, []string{"NEW-1", "NEW-2"}, topupd.StockUpload{})
	b, err := e.s.VoidBatch(e.ctx, nil, old.BatchID, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	voidedAt := t0.Add(time.Minute)
	want := topupd.Batch{ID: old.BatchID, PID: pidKey, Note: "leaked", CreatedAt: t0, Added: 4, Sold: 1, Withdrawn: 3, VoidedAt: &voidedAt}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("VoidBatch (-want +got):\n%s", diff)
	}
	if b.Unsold() != 3 {
		t.Errorf("unsold after the void: %d, want 3", b.Unsold())
	}
	if got := e.stockLevels()[pidKey]; got != 2 {
		t.Errorf("stock after the void: %d, want the 2 codes of the other batch", got)
	}
	o := e.place(a.ID, keys(pidKey, "V-2", 2), t0)
	if diff := cmp.Diff([]string{"NEW-1", "NEW-2"}, o.Codes); diff != "" {
		t.Errorf("an order after the void (-want +got), none of the voided batch's codes:\n%s", diff)
	}
	_, _, err = e.try(a.ID, keys(pidKey, "V-3", 1))
	codeIs(t, err, topupd.EInsufficientStock, "an order when only withdrawn codes are left")
	_, err = e.s.VoidBatch(e.ctx, nil, old.BatchID, t0.Add(time.Hour))
	codeIs(t, err, topupd.EConflict, "voiding a voided batch")
	_, err = e.s.VoidBatch(e.ctx, nil, 999_999, t0)
	codeIs(t, err, topupd.ENotFound, "voiding an unknown batch")
	if got := e.batch(pidKey, fresh.BatchID); got.Sold != 2 || got.Voided() {
		t.Errorf("the other batch: %+v", got)
	}
	// A code withdrawn is still a code held: uploading it again is a duplicate.
	if r := e.upload(pidKey, []string{"OLD-2"}, topupd.StockUpload{}); r.Duplicates != 1 {
		t.Errorf("re-uploading a withdrawn code: %+v, want a duplicate", r)
	}
	e.auditClean()
}

// testVoidRacingDraws: orders racing a void never get a withdrawn code:
// the batch's sold count at the void is its sold count for good, and
// every code is delivered once, or withdrawn, or in stock.
func testVoidRacingDraws(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(10_000))
	const n = 60
	codes := make([]string, n)
	for i := range codes {
		codes[i] = e.uniq("RACE")
	}
	victim := e.upload(pidKey, codes[:n/2], topupd.StockUpload{})
	e.upload(pidKey, codes[n/2:], topupd.StockUpload{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	delivered := map[string]int{}
	var voided topupd.Batch
	var voidErr error
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 10 {
				voided, voidErr = e.s.VoidBatch(e.ctx, nil, victim.BatchID, t0)
			}
			o, _, err := e.try(a.ID, keys(pidKey, e.uniq("R"), 1))
			if err != nil {
				if topupd.CodeOf(err) != topupd.EInsufficientStock {
					t.Errorf("order: %v", err)
				}
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range o.Codes {
				delivered[c]++
			}
		}()
	}
	wg.Wait()
	if voidErr != nil {
		t.Fatal(voidErr)
	}
	after := e.batch(pidKey, victim.BatchID)
	if after.Sold != voided.Sold || after.Sold+after.Withdrawn != after.Added {
		t.Errorf("the voided batch sold %d at its void and %d after all orders, withdrew %d of %d", voided.Sold, after.Sold, after.Withdrawn, after.Added)
	}
	fromVictim := 0
	for c, k := range delivered {
		if k != 1 {
			t.Errorf("code %s delivered %d times", c, k)
		}
		for _, v := range codes[:n/2] {
			if v == c {
				fromVictim++
			}
		}
	}
	if fromVictim != voided.Sold {
		t.Errorf("%d codes of the voided batch delivered, its count at the void %d", fromVictim, voided.Sold)
	}
	if got, want := e.stockLevels()[pidKey], n-len(delivered)-voided.Withdrawn; got != want {
		t.Errorf("stock %d, want %d (%d codes, %d delivered, %d withdrawn)", got, want, n, len(delivered), voided.Withdrawn)
	}
	e.auditClean()
}

// testExportUnsold: an export holds the batch's unsold codes, oldest
// first, withdrawn ones too, and is in the action log without them.
func testExportUnsold(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(1000))
	up := e.upload(pidCard, []string{"EX-1", "EX-2", "EX-3"}, topupd.StockUpload{})
	e.place(a.ID, keys(pidCard, "E-1", 1), t0)
	b, codes, err := e.s.BatchCodes(e.ctx, nil, up.BatchID)
	if err != nil || b.ID != up.BatchID || !cmp.Equal(codes, []string{"EX-2", "EX-3"}) {
		t.Fatalf("BatchCodes: %+v %v %v", b, codes, err)
	}
	if _, err := e.s.VoidBatch(e.ctx, nil, up.BatchID, t0); err != nil {
		t.Fatal(err)
	}
	c := &topupd.Change{Actor: topupd.Actor{Operator: "own"}, Action: "batch.export", Target: "x"}
	_, codes, err = e.s.BatchCodes(e.ctx, c, up.BatchID)
	if err != nil || !cmp.Equal(codes, []string{"EX-2", "EX-3"}) {
		t.Fatalf("BatchCodes of the voided batch: %v %v", codes, err)
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "batch.export", Limit: 10})
	if err != nil || len(acts) != 1 {
		t.Fatalf("the export in the action log: %+v, %v", acts, err)
	}
	if want := map[string]any{"pid": pidCard, "voided": true, "exported": json.Number("2")}; !cmp.Equal(want, acts[0].After) {
		t.Errorf("the export's entry: after %v, want %v", acts[0].After, want)
	}
	_, _, err = e.s.BatchCodes(e.ctx, nil, 999_999)
	codeIs(t, err, topupd.ENotFound, "exporting an unknown batch")
}

// testStockOrderCost: a stock order costs what its codes cost, each its
// batch's cost, or the pack's for a batch without one.
func testStockOrderCost(t *testing.T, e *env) {
	e.catalog()
	if _, err := e.s.UpdatePack(e.ctx, nil, pidKey, func(p *topupd.Pack) error { p.Cost = 40_000; return nil }); err != nil {
		t.Fatal(err)
	}
	a := e.account("buyer", topupd.USD(1000))
	e.upload(pidKey, []string{"C-1", "C-2"}, topupd.StockUpload{Cost: money(25_000)})
	e.upload(pidKey, []string{"C-3", "C-4"}, topupd.StockUpload{})
	e.upload(pidKey, []string{"C-5"}, topupd.StockUpload{Cost: money(0)})
	for _, tc := range []struct {
		trxid string
		qty   int
		want  topupd.Money
	}{
		{"COST-1", 3, 25_000 + 25_000 + 40_000},
		{"COST-2", 2, 40_000 + 0},
	} {
		o := e.place(a.ID, keys(pidKey, tc.trxid, tc.qty), t0)
		if o.Cost == nil || *o.Cost != tc.want {
			t.Errorf("%s: cost %v, want %v", tc.trxid, o.Cost, tc.want)
		}
		if got := e.order(o.ID); got.Cost == nil || *got.Cost != tc.want {
			t.Errorf("%s: cost as stored %v, want %v", tc.trxid, got.Cost, tc.want)
		}
	}
	e.auditClean()
}

// testLowStockOnce: a pack's low-stock alert is raised once when its
// stock falls to its lowStockAt, whatever the orders after, and cleared
// once when stock is added above it; each flip is noted to the call that
// made it, once that call committed, and to no other.
func testLowStockOnce(t *testing.T, e *env) {
	e.catalog()
	level := 2
	if _, err := e.s.UpdatePack(e.ctx, nil, pidKey, func(p *topupd.Pack) error { p.LowStockAt = &level; return nil }); err != nil {
		t.Fatal(err)
	}
	if low, err := e.s.LowStock(e.ctx); err != nil || !cmp.Equal(low, map[string]bool{pidKey: true}) {
		t.Errorf("LowStock of a pack with a level and no stock: %v, %v", low, err)
	}
	a := e.account("buyer", topupd.USD(1000))
	noted := func(what string, call func(ctx context.Context), want ...topupd.LowStockAlert) {
		t.Helper()
		n := &topupd.LowStockNotes{}
		call(topupd.WithLowStockNotes(e.ctx, n))
		if diff := cmp.Diff(want, n.Take(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: alerts noted (-want +got):\n%s", what, diff)
		}
	}
	order := func(trxid string, qty int) func(ctx context.Context) {
		return func(ctx context.Context) {
			if _, _, err := e.s.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: a.ID, Request: keys(pidKey, trxid, qty), Now: t0, Deadline: deadline}); err != nil {
				t.Fatalf("order %s: %v", trxid, err)
			}
		}
	}
	upload := func(codes ...string) func(ctx context.Context) {
		return func(ctx context.Context) {
			if _, err := e.s.AddStockBatch(ctx, nil, pidKey, codes, topupd.StockUpload{}, t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	noted("stocking above the level", upload("L-1", "L-2", "L-3", "L-4", "L-5"),
		topupd.LowStockAlert{PID: pidKey, Raised: false, Available: 5, LowStockAt: 2})
	noted("an order above the level", order("LOW-1", 2))
	noted("the order reaching it", order("LOW-2", 1), topupd.LowStockAlert{PID: pidKey, Raised: true, Available: 2, LowStockAt: 2})
	noted("an order below it", order("LOW-3", 1))
	noted("a refused order", func(ctx context.Context) {
		if _, _, err := e.s.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: a.ID, Request: keys(pidKey, "LOW-4", 5), Now: t0, Deadline: deadline}); err == nil {
			t.Fatal("an order beyond the stock was placed")
		}
	})
	noted("stock added, not above it", upload("L-6"))
	if low, _ := e.s.LowStock(e.ctx); !low[pidKey] {
		t.Errorf("LowStock while low: %v", low)
	}
	noted("stock added above it", upload("L-7", "L-8"), topupd.LowStockAlert{PID: pidKey, Raised: false, Available: 4, LowStockAt: 2})
	b := e.upload(pidKey, []string{"L-9", "L-10"}, topupd.StockUpload{})
	noted("a void bringing it down to it", func(ctx context.Context) {
		if _, err := e.s.VoidBatch(ctx, nil, b.BatchID, t0); err != nil {
			t.Fatal(err)
		}
	})
	noted("another void", func(ctx context.Context) {
		list, _ := e.s.Batches(e.ctx, pidKey)
		if _, err := e.s.VoidBatch(ctx, nil, list[1].ID, t0); err != nil {
			t.Fatal(err)
		}
	}, topupd.LowStockAlert{PID: pidKey, Raised: true, Available: 2, LowStockAt: 2})
	if low, _ := e.s.LowStock(e.ctx); !cmp.Equal(low, map[string]bool{pidKey: true}) {
		t.Errorf("LowStock after the void: %v", low)
	}
	// A change of the level alone sets the alert as the stock stands.
	setLevel := func(level *int) func(ctx context.Context) {
		return func(ctx context.Context) {
			if _, err := e.s.UpdatePack(ctx, nil, pidKey, func(p *topupd.Pack) error { p.LowStockAt = level; return nil }); err != nil {
				t.Fatal(err)
			}
		}
	}
	one, three := 1, 3
	noted("a level below the stock", setLevel(&one), topupd.LowStockAlert{PID: pidKey, Raised: false, Available: 2, LowStockAt: 1})
	noted("a level above it", setLevel(&three), topupd.LowStockAlert{PID: pidKey, Raised: true, Available: 2, LowStockAt: 3})
	noted("the level taken away", setLevel(nil), topupd.LowStockAlert{PID: pidKey, Raised: false, Available: 2, LowStockAt: 3})
	if low, _ := e.s.LowStock(e.ctx); len(low) != 0 {
		t.Errorf("LowStock once no pack has a level: %v", low)
	}
	e.auditClean()
}
