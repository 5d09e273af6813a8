package topupd_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// placed is what a test compares of a placement.
type placed struct {
	Status                        topupd.OrderStatus
	Supplier                      topupd.SupplierState
	Provider                      string
	Sandbox                       bool
	Cost                          string // "" for none
	Attempts, Suppliers           int
	Draw, BatchCost, Test, Answer bool
	Due                           time.Time
}

func placedOf(pl topupd.Placement) placed {
	o := pl.Order
	cost := ""
	if o.Cost != nil {
		cost = o.Cost.String()
	}
	return placed{Status: o.Status, Supplier: o.Supplier, Provider: o.Provider, Sandbox: o.Sandbox, Cost: cost, Attempts: o.Attempts,
		Suppliers: len(pl.Suppliers), Draw: pl.Draw, BatchCost: pl.BatchCost, Test: pl.TestCodes,
		Answer: pl.Answered, Due: pl.First.RetryAt}
}

// TestPlace: the domain's decisions on a new order, by its kind, its
// pack's supplier, the sandbox and the sim rules.
func TestPlace(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	topup := topupd.Line{Slug: "pubg", Kind: topupd.KindTopup, Status: topupd.StatusActive}
	keys := topupd.Line{Slug: "steam", Kind: topupd.KindGamekey, Status: topupd.StatusActive}
	low := 5
	sim := topupd.Pack{PID: "sim", Provider: topupd.ProviderSim, Cost: 3000}
	manual := topupd.Pack{PID: "man", Provider: topupd.ProviderManual, Cost: 3000}
	listed := topupd.Pack{PID: "list", Provider: topupd.ProviderUpstream, Upstream: "a", Cost: 3000,
		Suppliers: []topupd.Supplier{{Provider: topupd.ProviderUpstream, Upstream: "a"}, {Provider: topupd.ProviderUpstream, Upstream: "b"}}}
	stock := topupd.Pack{PID: "key", Provider: topupd.ProviderStock, Cost: 2000, LowStockAt: &low}
	upKey := topupd.Pack{PID: "upkey", Provider: topupd.ProviderUpstream, Upstream: "a", Cost: 2000}
	costless := topupd.Pack{PID: "free", Provider: topupd.ProviderSim} // no cost set: an order of it has no known cost
	leased := func(sim topupd.SimTerms) topupd.PlaceOrder {
		return topupd.PlaceOrder{AccountID: "acc_1", Now: now, Deadline: time.Hour, LeaseOwner: "node", Sim: sim,
			Request: topupd.OrderRequest{TrxID: "t", Fields: topupd.AccountFields{UserID: "5123"}}}
	}
	atOnce, delayed := topupd.SimTerms{AtOnce: true}, topupd.SimTerms{AtOnce: true, Delay: 20 * time.Second}
	ms := now.Truncate(time.Millisecond)
	for _, c := range []struct {
		name  string
		p     topupd.PlaceOrder
		pack  topupd.Pack
		line  topupd.Line
		draws bool
		want  placed
	}{
		{"a manual top-up is submitted by its caller", leased(atOnce), manual, topup, false,
			placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierSubmitting, Provider: topupd.ProviderManual}},
		{"with no caller to submit it, it is new", topupd.PlaceOrder{Now: now}, manual, topup, false,
			placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierNew, Provider: topupd.ProviderManual}},
		{"a sim top-up answered at once completes", leased(atOnce), sim, topup, false,
			placed{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, Provider: topupd.ProviderSim, Cost: "0.3", Answer: true}},
		{"a sim top-up of a pack without a cost completes with no known cost", leased(atOnce), costless, topup, false,
			placed{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, Provider: topupd.ProviderSim, Answer: true}},
		{"with a delay it is pending, due the delay after placement", leased(delayed), sim, topup, false,
			placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierAccepted, Provider: topupd.ProviderSim, Attempts: 1, Answer: true,
				Due: ms.Add(20 * time.Second)}},
		{"a delay past the deadline is due at the deadline", func() topupd.PlaceOrder { p := leased(delayed); p.Deadline = time.Second; return p }(), sim, topup, false,
			placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierAccepted, Provider: topupd.ProviderSim, Attempts: 1, Answer: true,
				Due: ms.Add(time.Second)}},
		{"a player the sim refuses is left to its first call", func() topupd.PlaceOrder {
			p := leased(atOnce)
			p.Request.Fields.UserID = topupd.SimInvalidPlayerPrefix + "1"
			return p
		}(), sim, topup, false, placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierSubmitting, Provider: topupd.ProviderSim}},
		{"sim calls that take time are made", leased(topupd.SimTerms{}), sim, topup, false,
			placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierSubmitting, Provider: topupd.ProviderSim}},
		{"a supplier list is kept", leased(atOnce), listed, topup, false,
			placed{Status: topupd.StatusProcessing, Supplier: topupd.SupplierSubmitting, Provider: topupd.ProviderUpstream, Suppliers: 2}},
		{"a key from stock completes with its batches' cost", leased(atOnce), stock, keys, true,
			placed{Status: topupd.StatusCompleted, Supplier: topupd.SupplierNew, Provider: topupd.ProviderStock, Draw: true, BatchCost: true}},
		{"a sandbox top-up follows the sim rules", func() topupd.PlaceOrder { p := leased(atOnce); p.Sandbox = true; return p }(), listed, topup, false,
			placed{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted, Provider: topupd.ProviderSandbox, Sandbox: true, Cost: "0.3", Answer: true}},
		{"a sandbox key of an upstream gets TEST- codes", func() topupd.PlaceOrder { p := leased(atOnce); p.Sandbox = true; return p }(), upKey, keys, false,
			placed{Status: topupd.StatusCompleted, Supplier: topupd.SupplierNew, Provider: topupd.ProviderSandbox, Sandbox: true, Cost: "0.2", Test: true}},
		{"a sandbox key of a pack without a cost has no known cost", func() topupd.PlaceOrder { p := leased(atOnce); p.Sandbox = true; return p }(), costless, keys, false,
			placed{Status: topupd.StatusCompleted, Supplier: topupd.SupplierNew, Provider: topupd.ProviderSandbox, Sandbox: true, Test: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl := topupd.Place(&c.p, &c.pack, &c.line, topupd.Draft{Quantity: 1, Amount: topupd.USD(1), Fields: c.p.Request.Fields, DrawsStock: c.draws})
			if diff := cmp.Diff(c.want, placedOf(pl)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if o := pl.Order; !o.CreatedAt.Equal(ms) || o.CreatedAt.Location() != time.UTC || !o.DeadlineAt.Equal(ms.Add(c.p.Deadline)) {
				t.Errorf("times %v, %v: not the placement's, to the millisecond", o.CreatedAt, o.DeadlineAt)
			}
		})
	}
}

// TestSettled: the domain's decision on a settlement: refusals first,
// then what each final or processing state writes.
func TestSettled(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	o := topupd.Order{ID: "ord_1", Status: topupd.StatusProcessing, Provider: topupd.ProviderUpstream, Upstream: "a",
		Supplier: topupd.SupplierSubmitting, Attempts: 1, Alert: "old"}
	final := o
	final.Status = topupd.StatusCompleted
	sandbox := o
	sandbox.Sandbox = true
	for _, c := range []struct {
		name  string
		o     topupd.Order
		owner string
		st    topupd.Settlement
		code  topupd.ErrorCode
	}{
		{"a final order", final, "", topupd.Settlement{Status: topupd.StatusCancelled}, topupd.EOrderFinal},
		{"a lease lost", o, "node-b", topupd.Settlement{Status: topupd.StatusCompleted, LeaseOwner: "node-a"}, topupd.EConflict},
		{"a supplier moved on from", o, "", topupd.Settlement{Status: topupd.StatusCompleted, By: &topupd.Supplier{Provider: topupd.ProviderUpstream, Upstream: "b"}}, topupd.EConflict},
		{"codes for a sandbox order", sandbox, "", topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{"X"}}, topupd.EInvalidBody},
	} {
		if _, err := c.o.Settled(&c.st, c.owner); topupd.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	codes := []string{"A", "B"}
	done, err := o.Settled(&topupd.Settlement{Status: topupd.StatusCompleted, Codes: codes, Now: now, Supplier: topupd.SupplierAccepted,
		SupplierRef: "r-1", LeaseOwner: "node-a", By: &topupd.Supplier{Provider: topupd.ProviderUpstream, Upstream: "a"}}, "node-a")
	codes[0] = "changed after"
	if err != nil || done.Status != topupd.StatusCompleted || !done.FinishedAt.Equal(now.Truncate(time.Millisecond)) ||
		done.Supplier != topupd.SupplierAccepted || done.SupplierRef != "r-1" || done.CodeCount != 2 || done.Codes[0] != "A" {
		t.Errorf("completed: %+v %v", done, err)
	}
	gone, err := o.Settled(&topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: now}, "")
	if err != nil || gone.Status != topupd.StatusCancelled || !gone.Refunded || gone.Error != "INVALID PLAYER" || gone.Supplier != topupd.SupplierSubmitting {
		t.Errorf("cancelled: %+v %v", gone, err)
	}
	again, err := o.Settled(&topupd.Settlement{Status: topupd.StatusProcessing, Now: now}, "")
	if err != nil || again.Status != topupd.StatusProcessing || again.Attempts != 2 || again.Alert != "" {
		t.Errorf("processing: %+v %v", again, err)
	}
	if o.Attempts != 1 || o.Alert != "old" {
		t.Errorf("the order settled changed: %+v", o)
	}
}
