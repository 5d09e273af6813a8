package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var placeTests = []test{
	{"ChargesPriceOnce", testChargesPriceOnce},
	{"TermsFollowChanges", testTermsFollowChanges},
	{"Kinds", testKinds},
	{"Replay", testReplay},
	{"ReplayOfStockOrder", testReplayStock},
	{"ReplayWithIdempotencyKey", testReplayIdempotencyKey},
	{"IdempotencyKeyIsPerAccount", testIdempotencyKeyPerAccount},
	{"LeaseAtPlacement", testLeaseAtPlacement},
	{"SimFirstAnswer", testSimFirstAnswer},
	{"HintHeld", testHintHeld},
	{"RepeatBeforeChecks", testRepeatBeforeChecks},
}

// ignoreNew leaves out the fields a store chooses for a new order.
var ignoreNew = cmpopts.IgnoreFields(topupd.Order{}, "Seq", "ID")

func testChargesPriceOnce(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	before := e.ledger(a.ID)
	req := topupd.OrderRequest{PID: pidZone, TrxID: "T-1", Fields: topupd.AccountFields{UserID: " 777 ", ZoneID: "2001", ServerID: "dropped", MoreID: "dropped"}}
	o := e.place(a.ID, req, t0)
	want := topupd.Order{AccountID: a.ID, TrxID: "T-1", IdempotencyKey: "T-1", PID: pidZone, Slug: "mlbb", Game: gameZone, Kind: topupd.KindTopup,
		PackName: "86 Diamonds", Provider: topupd.ProviderSim, Quantity: 1, Amount: priceTopup,
		Fields: topupd.AccountFields{UserID: "777", ZoneID: "2001"}, Status: topupd.StatusProcessing,
		CreatedAt: t0, DeadlineAt: t0.Add(deadline), Supplier: topupd.SupplierNew, Fingerprint: req.Fingerprint()}
	if diff := cmp.Diff(want, o, ignoreNew, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("placed order (-want +got):\n%s", diff)
	}
	if o.ID == "" || o.Seq == 0 {
		t.Errorf("placed order has ID %q and Seq %d; want both set", o.ID, o.Seq)
	}
	if got := e.order(o.ID); cmp.Diff(o, got, cmpopts.EquateEmpty()) != "" {
		t.Errorf("Order(id) differs from what PlaceOrder returned (-placed +read):\n%s", cmp.Diff(o, got, cmpopts.EquateEmpty()))
	}
	if b := e.balance(a.ID); b != topupd.USD(100)-priceTopup {
		t.Errorf("balance = %v, want %v", b, topupd.USD(100)-priceTopup)
	}
	after := e.ledger(a.ID)
	if len(after) != len(before)+1 {
		t.Fatalf("ledger has %d entries, want %d", len(after), len(before)+1)
	}
	charge := after[0]
	wantCharge := topupd.LedgerEntry{AccountID: a.ID, Kind: topupd.EntryCharge, Amount: -priceTopup,
		BalanceAfter: topupd.USD(100) - priceTopup, OrderID: o.ID, CreatedAt: t0}
	if diff := cmp.Diff(wantCharge, charge, cmpopts.IgnoreFields(topupd.LedgerEntry{}, "ID")); diff != "" {
		t.Errorf("charge entry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, after[1:]); diff != "" {
		t.Errorf("older entries changed (-want +got):\n%s", diff)
	}
}

func testKinds(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(10_000))
	stocked := map[string][]string{}
	for _, pid := range []string{pidKey, pidKeyManual, pidCard, pidStockTopup} {
		stocked[pid] = e.stock(pid, 10)
	}
	cases := []struct {
		name   string
		req    topupd.OrderRequest
		status topupd.OrderStatus
		codes  int // codes drawn from the pack's stock
	}{
		{"topup sim is processing", topup("T-TOPUP"), topupd.StatusProcessing, 0},
		{"topup manual is processing", topupd.OrderRequest{PID: pidTopupManual, TrxID: "T-MAN", Fields: topupd.AccountFields{UserID: userID}}, topupd.StatusProcessing, 0},
		{"subscription is processing", topupd.OrderRequest{PID: pidSub, TrxID: "T-SUB", Fields: topupd.AccountFields{UserID: "p1"}}, topupd.StatusProcessing, 0},
		{"gamekey without quantity draws one", keys(pidKey, "T-KEY1", 0), topupd.StatusCompleted, 1},
		{"gamekey quantity 4", keys(pidKey, "T-KEY4", 4), topupd.StatusCompleted, 4},
		{"giftcard quantity 3", keys(pidCard, "T-CARD3", 3), topupd.StatusCompleted, 3},
		{"stock-based topup", topupd.OrderRequest{PID: pidStockTopup, TrxID: "T-VOUCH", Quantity: 2, Fields: topupd.AccountFields{UserID: userID}}, topupd.StatusCompleted, 2},
		{"gamekey manual still draws stock", keys(pidKeyManual, "T-KEYMAN", 2), topupd.StatusCompleted, 2},
	}
	delivered := map[string]string{} // code → trxid
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.in(t)
			levels := e.stockLevels()
			bal := e.balance(a.ID)
			o := e.place(a.ID, c.req, t0)
			qty := max(c.req.Quantity, 1)
			if o.Status != c.status || o.Quantity != qty {
				t.Errorf("status %s quantity %d, want %s and %d", o.Status, o.Quantity, c.status, qty)
			}
			if want := times(priceOf(c.req.PID), qty); o.Amount != want || e.balance(a.ID) != bal-want {
				t.Errorf("amount %v, balance %v → %v; want amount %v charged", o.Amount, bal, e.balance(a.ID), want)
			}
			if c.status.Final() != !o.FinishedAt.IsZero() || (c.status.Final() && !o.FinishedAt.Equal(t0)) {
				t.Errorf("FinishedAt = %v for a %s order placed at %v", o.FinishedAt, o.Status, t0)
			}
			if len(o.Codes) != c.codes || o.CodeCount != c.codes {
				t.Fatalf("%d codes (count %d), want %d: %q", len(o.Codes), o.CodeCount, c.codes, o.Codes)
			}
			for _, code := range o.Codes {
				if !contains(stocked[c.req.PID], code) {
					t.Errorf("code %q was never in the stock of %s", code, c.req.PID)
				}
				if prev, ok := delivered[code]; ok {
					t.Errorf("code %q delivered twice: to %s and %s", code, prev, c.req.TrxID)
				}
				delivered[code] = c.req.TrxID
			}
			wantLevels := levels
			if c.codes > 0 {
				wantLevels[c.req.PID] -= c.codes
			}
			if diff := cmp.Diff(wantLevels, e.stockLevels()); diff != "" {
				t.Errorf("StockLevels (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(o, e.order(o.ID), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Order(id) differs from what PlaceOrder returned (-placed +read):\n%s", diff)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// testReplay places with a realistic clock (sub-millisecond, not UTC) and
// repeats the request: the replay is the very order, and moves nothing, even
// when the pack is gone from sale and the balance could not pay again.
func testReplay(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", priceTopup)
	now := t0.Add(123_456_789 * time.Nanosecond).In(time.FixedZone("UTC+7", 7*3600))
	req := topup("T-REPLAY")
	first, replay, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: req, Now: now, Deadline: deadline})
	if err != nil || replay {
		t.Fatalf("first PlaceOrder: replay %v, err %v", replay, err)
	}
	if b := e.balance(a.ID); b != 0 {
		t.Fatalf("balance after the first order = %v, want 0", b)
	}
	disabled := packs[0]
	disabled.Status = topupd.StatusDisabled
	if err := e.s.PutPack(e.ctx, nil, disabled); err != nil {
		t.Fatalf("PutPack: %v", err)
	}
	before := e.snapshot(a.ID)
	for i := range 3 {
		again, replay, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: req, Now: now.Add(time.Duration(i+1) * time.Minute), Deadline: time.Hour})
		if err != nil {
			t.Fatalf("replay %d: %v", i, err)
		}
		if !replay {
			t.Errorf("replay %d: replay = false", i)
		}
		if diff := cmp.Diff(first, again, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("replay %d returned another order (-first +replay):\n%s", i, diff)
		}
	}
	e.unchanged(before, "a replay")
}

func testReplayStock(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	e.stock(pidKey, 5)
	first := e.place(a.ID, keys(pidKey, "T-KEYS", 2), t0)
	before := e.snapshot(a.ID)
	again, replay, err := e.try(a.ID, keys(pidKey, "T-KEYS", 2))
	if err != nil || !replay {
		t.Fatalf("replay: replay %v, err %v", replay, err)
	}
	if diff := cmp.Diff(first, again, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("replay returned another order (-first +replay):\n%s", diff)
	}
	e.unchanged(before, "a replay of a stock order")
}

func testReplayIdempotencyKey(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	req := topup("T-IK")
	req.IdempotencyKey = "IK-1"
	first := e.place(a.ID, req, t0)
	if first.IdempotencyKey != "IK-1" {
		t.Errorf("IdempotencyKey = %q, want IK-1", first.IdempotencyKey)
	}
	before := e.snapshot(a.ID)
	again, replay, err := e.try(a.ID, req)
	if err != nil || !replay {
		t.Fatalf("replay: replay %v, err %v", replay, err)
	}
	if diff := cmp.Diff(first, again, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("replay returned another order (-first +replay):\n%s", diff)
	}
	e.unchanged(before, "a replay by idempotency key")

	// The key names the request whatever trxid a repeat carries: the replay
	// is the first order, with the first order's own trxid.
	other := req
	other.TrxID = "T-IK-OTHER"
	again, replay, err = e.try(a.ID, other)
	if err != nil || !replay || again.ID != first.ID || again.TrxID != "T-IK" {
		t.Errorf("repeat under another trxid: %s %q, replay %v, err %v; want a replay of %s with trxid T-IK", again.ID, again.TrxID, replay, err, first.ID)
	}
	// A trxid already held, under a new key, is that order's repeat.
	newKey := req
	newKey.IdempotencyKey = "IK-2"
	again, replay, err = e.try(a.ID, newKey)
	if err != nil || !replay || again.ID != first.ID {
		t.Errorf("repeat of the trxid under a new key: %s, replay %v, err %v; want a replay of %s", again.ID, replay, err, first.ID)
	}
	e.unchanged(before, "replays under another trxid or key")
	// The other trxid was never taken: it is free for a new purchase.
	if o := e.place(a.ID, topup("T-IK-OTHER"), t0); o.ID == first.ID {
		t.Errorf("a new order under the unused trxid replayed %s", first.ID)
	}
}

func testIdempotencyKeyPerAccount(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(100))
	b := e.account("b", topupd.USD(100))
	ra := topup("T-A")
	ra.IdempotencyKey = "shared-key"
	rb := topup("T-B")
	rb.IdempotencyKey = "shared-key"
	oa := e.place(a.ID, ra, t0)
	ob := e.place(b.ID, rb, t0)
	if oa.ID == ob.ID {
		t.Errorf("two accounts' orders share the id %s", oa.ID)
	}
	if ba, bb := e.balance(a.ID), e.balance(b.ID); ba != topupd.USD(100)-priceTopup || bb != topupd.USD(100)-priceTopup {
		t.Errorf("balances %v and %v, want each charged once", ba, bb)
	}
}

// testLeaseAtPlacement: an order placed with a lease is the placer's until
// the lease runs out.
func testLeaseAtPlacement(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	o, _, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: topup("T-L"), Now: t0, Deadline: deadline,
		LeaseOwner: "api-1", LeaseUntil: t0.Add(time.Minute)})
	if err != nil {
		t.Fatalf("PlaceOrder: %v", err)
	}
	if got := claimIDs(t, e, "engine", t0.Add(30*time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue during the placer's lease = %v, want none", got)
	}
	if err := e.s.MarkSubmitting(e.ctx, o.Seq, "api-1"); err != nil {
		t.Errorf("MarkSubmitting by the placer: %v", err)
	}
	if got := claimIDs(t, e, "engine", t0.Add(time.Minute), 10); !cmp.Equal(got, []string{o.ID}) {
		t.Errorf("ClaimDue after the lease = %v, want [%s]", got, o.ID)
	}
	if got := e.order(o.ID); got.Supplier != topupd.SupplierSubmitting {
		t.Errorf("Supplier = %s, want %s", got.Supplier, topupd.SupplierSubmitting)
	}
}

// testHintHeld: with HintHeld (the request found its in-flight hint held),
// a repeat of an order whose first supplier call has not ended is
// DUPLICATE_IN_FLIGHT, and writes nothing; without it, the same repeat is
// a replay. Once the call has ended (the order settled, even still
// processing), the repeat is a replay either way. FORBIDDEN and
// IDEMPOTENCY_KEY_REUSED come first, as always, and a request that repeats
// no order is placed.
func testHintHeld(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	other := e.account("other", topupd.USD(100))
	place := func(account string, req topupd.OrderRequest, held bool) (topupd.Order, bool, error) {
		return e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: account, Request: req, Now: t0, Deadline: deadline,
			LeaseOwner: "api-1", LeaseUntil: t0.Add(time.Minute), HintHeld: held})
	}
	req := topup("T-HELD")
	first, _, err := place(a.ID, req, false)
	if err != nil || !first.FirstCallRunning() {
		t.Fatalf("PlaceOrder: %+v, %v; want an order in its first call", first, err)
	}
	before := e.snapshot(a.ID)
	if _, _, err := place(a.ID, req, true); topupd.CodeOf(err) != topupd.EDuplicateInFlight {
		t.Errorf("a held repeat during the first call: %v, want DUPLICATE_IN_FLIGHT", err)
	}
	e.unchanged(before, "a held repeat")
	if again, replay, err := place(a.ID, req, false); err != nil || !replay || again.ID != first.ID {
		t.Errorf("the same repeat, its hint lapsed: %v, %v, want a replay", replay, err)
	}
	if _, _, err := place(other.ID, req, true); topupd.CodeOf(err) != topupd.EForbidden {
		t.Errorf("another account's held repeat: %v, want FORBIDDEN", err)
	}
	reused := req
	reused.Fields.UserID = "999"
	if _, _, err := place(a.ID, reused, true); topupd.CodeOf(err) != topupd.EIdempotencyReused {
		t.Errorf("a held repeat of another purchase: %v, want IDEMPOTENCY_KEY_REUSED", err)
	}
	settled, err := e.s.Settle(e.ctx, nil, first.Seq, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: t0.Add(time.Minute), Now: t0,
		LeaseOwner: "api-1", Supplier: topupd.SupplierAccepted, Note: "the supplier says pending"})
	if err != nil || settled.FirstCallRunning() {
		t.Fatalf("Settle: %+v, %v", settled, err)
	}
	if again, replay, err := place(a.ID, req, true); err != nil || !replay || again.ID != first.ID {
		t.Errorf("a held repeat after the first call: %v, %v, want a replay", replay, err)
	}
	if o, replay, err := place(a.ID, topup("T-HELD-NEW"), true); err != nil || replay || o.ID == first.ID {
		t.Errorf("a held request that repeats no order: %v, %v, want it placed", replay, err)
	}
}
