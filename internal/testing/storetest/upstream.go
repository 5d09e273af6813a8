package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// upstreamTests cover upstream servers, orders fulfilled by one, supplier
// references and the operator's retry.
var upstreamTests = []test{
	{"PutAndRead", testUpstreamPutAndRead},
	{"OrderSnapshotsUpstream", testOrderSnapshotsUpstream},
	{"SupplierRefKept", testSupplierRefKept},
	{"RetryOrder", testRetryOrder},
	{"InstanceAndRoute", testInstanceAndRoute},
}

// testInstanceAndRoute: the deployment's instance id is one, made by the
// first call and read the same every time after; an order keeps the route it
// came by, and one placed without a route has none.
func testInstanceAndRoute(t *testing.T, e *env) {
	id, err := e.s.Instance(e.ctx)
	if err != nil || !topupd.ValidInstanceID(id) {
		t.Fatalf("Instance: %q, %v", id, err)
	}
	if again, err := e.s.Instance(e.ctx); err != nil || again != id {
		t.Errorf("Instance again: %q, %v; was %q", again, err, id)
	}
	e.catalog()
	a := e.account("routed", topupd.USD(10))
	route := topupd.Route{Via: []string{"ins_0123456789abcdefghij", "ins_aaaaaaaaaaaaaaaaaaaa"}, Hops: 2}
	o, _, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: topup("ROUTED"), Now: t0, Deadline: deadline, Route: route})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.order(o.ID).Route; got.Hops != 2 || !slices.Equal(got.Via, route.Via) {
		t.Errorf("the order's route: %+v, want %+v", got, route)
	}
	if got := e.place(a.ID, topup("OWN"), t0).Route; got.Hops != 0 || got.Via != nil {
		t.Errorf("a reseller's own order has route %+v", got)
	}
	if got := e.order(e.place(a.ID, topup("OWN-2"), t0).ID).Route; got.Hops != 0 || len(got.Via) != 0 {
		t.Errorf("a reseller's own order, read back, has route %+v", got)
	}
}

func testUpstreamPutAndRead(t *testing.T, e *env) {
	if _, err := e.s.Upstream(e.ctx, "nobody"); topupd.CodeOf(err) != topupd.ENotFound {
		t.Fatalf("unknown upstream: %v", err)
	}
	b := topupd.Upstream{Name: "b", BaseURL: "http://127.0.0.1:9", APIKey: "tpd_secret-b", UpdatedAt: t0}
	a := topupd.Upstream{Name: "a", BaseURL: "https://a.example", APIKey: "key-a", UpdatedAt: t0}
	for _, u := range []topupd.Upstream{b, a} {
		if err := e.s.PutUpstream(e.ctx, nil, u); err != nil {
			t.Fatal(err)
		}
	}
	// Stored unchecked, with the default thresholds.
	for _, u := range []*topupd.Upstream{&a, &b} {
		u.State, u.WarnHours, u.CriticalHours, u.BalanceAlert = topupd.UpstreamUnchecked, topupd.DefaultWarnHours, topupd.DefaultCriticalHours,
			topupd.BalanceAlertNone
	}
	b.APIKey, b.BaseURL, b.UpdatedAt = "tpd_rotated", "http://127.0.0.1:10", t0.Add(time.Minute)
	if err := e.s.PutUpstream(e.ctx, nil, b); err != nil {
		t.Fatal(err)
	}
	got, err := e.s.Upstream(e.ctx, "b")
	if err != nil || got != b {
		t.Fatalf("Upstream(b) = %+v, %v; want %+v", got, err, b)
	}
	all, err := e.s.Upstreams(e.ctx)
	if err != nil || len(all) != 2 || all[0] != a || all[1] != b {
		t.Fatalf("Upstreams = %+v, %v", all, err)
	}
	// A check keeps what it learned; thresholds change; a save keeps them
	// and takes its own check's state.
	bal := topupd.USD(12)
	if got, err = e.s.RecordUpstreamCheck(e.ctx, nil, "b", &bal, t0.Add(2*time.Minute)); err != nil || got.State != topupd.UpstreamOK ||
		got.Balance == nil || *got.Balance != bal || got.BalanceAt == nil || !got.BalanceAt.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("a check that read 12: %+v, %v", got, err)
	}
	if got, err = e.s.RecordUpstreamCheck(e.ctx, nil, "b", nil, t0.Add(3*time.Minute)); err != nil || got.State != topupd.UpstreamFailing ||
		got.Balance == nil || *got.Balance != bal {
		t.Errorf("a check that failed keeps the balance last read: %+v, %v", got, err)
	}
	warn, critical, tooHigh := 10.0, 2.0, 11.0
	if got, err = e.s.SetUpstreamThresholds(e.ctx, nil, "b", &warn, &critical); err != nil || got.WarnHours != 10 || got.CriticalHours != 2 {
		t.Errorf("thresholds: %+v, %v", got, err)
	}
	if _, err = e.s.SetUpstreamThresholds(e.ctx, nil, "b", nil, &tooHigh); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("critical above warn: %v", err)
	}
	if _, err = e.s.RecordUpstreamCheck(e.ctx, nil, "nobody", nil, t0); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("checking nobody: %v", err)
	}
	if err := e.s.PutUpstream(e.ctx, nil, b); err != nil {
		t.Fatal(err)
	}
	if got, _ = e.s.Upstream(e.ctx, "b"); got.WarnHours != 10 || got.CriticalHours != 2 || got.State != topupd.UpstreamUnchecked || got.Balance != nil {
		t.Errorf("after an unchecked save: %+v", got)
	}
}

// upstreamPack is a key pack fulfilled by upstream "b".
var upstreamPack = topupd.Pack{PID: "key-up", Slug: "gamekeypubg", Name: "PUBG key (upstream)", Price: priceKey,
	Status: topupd.StatusActive, Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "b-key-60"}

func testOrderSnapshotsUpstream(t *testing.T, e *env) {
	e.catalog()
	if err := e.s.PutPack(e.ctx, nil, upstreamPack); err != nil {
		t.Fatal(err)
	}
	a := e.account("buyer", 10*priceKey)
	o := e.place(a.ID, topupd.OrderRequest{PID: "key-up", TrxID: "T-UP", Quantity: 2}, t0)
	if o.Status != topupd.StatusProcessing || len(o.Codes) != 0 || o.Upstream != "b" || o.UpstreamPID != "b-key-60" {
		t.Fatalf("upstream key order: %s codes %d upstream %q %q", o.Status, len(o.Codes), o.Upstream, o.UpstreamPID)
	}
	// The pack moves to another upstream; the order keeps what it was sold as.
	moved := upstreamPack
	moved.Upstream, moved.UpstreamPID = "c", "c-key"
	if err := e.s.PutPack(e.ctx, nil, moved); err != nil {
		t.Fatal(err)
	}
	if got := e.order(o.ID); got.Upstream != "b" || got.UpstreamPID != "b-key-60" {
		t.Errorf("after the pack moved, the order says %q %q", got.Upstream, got.UpstreamPID)
	}
	e.stock(pidKey, 1)
	if sim := e.place(a.ID, topupd.OrderRequest{PID: pidKey, TrxID: "T-LOCAL"}, t0); sim.Upstream != "" {
		t.Errorf("a local key order names upstream %q", sim.Upstream)
	}
}

func testSupplierRefKept(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", 10*priceTopup)
	o := e.place(a.ID, topupd.OrderRequest{PID: pidTopup, TrxID: "T-REF", Fields: topupd.AccountFields{UserID: userID}}, t0)
	got, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Second),
		Supplier: topupd.SupplierAccepted, SupplierRef: "up-123", Now: t0})
	if err != nil || got.SupplierRef != "up-123" {
		t.Fatalf("reschedule with a ref: %+v, %v", got.SupplierRef, err)
	}
	// A later settlement without a ref keeps the one known.
	got, err = e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0.Add(2 * time.Second)})
	if err != nil || got.SupplierRef != "up-123" || got.Status != topupd.StatusCompleted {
		t.Fatalf("complete: %s %q, %v", got.Status, got.SupplierRef, err)
	}
}

func testRetryOrder(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", 10*priceTopup)
	o := e.place(a.ID, topupd.OrderRequest{PID: pidTopupManual, TrxID: "T-STUCK", Fields: topupd.AccountFields{UserID: userID}}, t0)
	// Leased by a node that works on it: a retry leaves the lease to it,
	// and no other node claims the order until the lease runs out (two
	// nodes working on one order could buy it twice).
	claimed, err := e.s.ClaimDue(e.ctx, "busy-node", t0, t0.Add(time.Hour), 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	later := t0.Add(2 * deadline)
	got, err := e.s.RetryOrder(e.ctx, nil, o.Seq, later, later.Add(deadline))
	if err != nil || !got.DeadlineAt.Equal(later.Add(deadline)) || got.Status != topupd.StatusProcessing {
		t.Fatalf("RetryOrder: deadline %v status %s, %v", got.DeadlineAt, got.Status, err)
	}
	if taken, err := e.s.ClaimDue(e.ctx, "node-b", later, later.Add(time.Minute), 10); err != nil || len(taken) != 0 {
		t.Fatalf("a retry let node-b claim an order busy-node holds the lease of: %d, %v", len(taken), err)
	}
	// Leased by a node that died, its lease run out: the retry makes the
	// order claimable at once.
	later = t0.Add(time.Hour)
	if _, err := e.s.RetryOrder(e.ctx, nil, o.Seq, later, later.Add(deadline)); err != nil {
		t.Fatal(err)
	}
	again, err := e.s.ClaimDue(e.ctx, "node-b", later, later.Add(time.Minute), 10)
	if err != nil || len(again) != 1 || again[0].ID != o.ID {
		t.Fatalf("after a retry the order is claimable at once: %d, %v", len(again), err)
	}
	// An earlier deadline never shortens the order's.
	if got, err := e.s.RetryOrder(e.ctx, nil, o.Seq, later, t0); err != nil || !got.DeadlineAt.Equal(later.Add(deadline)) {
		t.Errorf("retry with an earlier deadline: %v, %v", got.DeadlineAt, err)
	}
	e.settle(o, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: later})
	if _, err := e.s.RetryOrder(e.ctx, nil, o.Seq, later, later); topupd.CodeOf(err) != topupd.EOrderFinal {
		t.Errorf("retrying a final order: %v", err)
	}
}
