package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

// testRepeatBeforeChecks repeats an order after each change that would
// refuse it as a new one (its pack off sale, its account's limit, the
// balance, the price guard, the stock) and each time wants the earlier
// order replayed and nothing moved, both when the store looks for the
// repeat first (an in-flight hint held) and when it places first and finds
// the repeat by the unique indexes or after a refusal (sqlstore's
// placeOrder). A repeat under another account's trxid is FORBIDDEN either
// way.
func testRepeatBeforeChecks(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(100))
	e.stock(pidKey, 2)
	topupOrder := e.place(a.ID, topup("T-REP-TOPUP"), t0)
	keyOrder := e.place(a.ID, keys(pidKey, "T-REP-KEY", 2), t0)
	repeat := func(what string, first topupd.Order, req topupd.OrderRequest) {
		t.Helper()
		before := e.snapshot(a.ID)
		for _, held := range []bool{false, true} {
			again, replay, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: req, Now: t0, Deadline: deadline, HintHeld: held})
			if err != nil || !replay {
				t.Errorf("%s, hint held %v: replay %v, err %v; want a replay", what, held, replay, err)
				continue
			}
			if diff := cmp.Diff(first, again, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s, hint held %v: another order (-first +replay):\n%s", what, held, diff)
			}
		}
		e.unchanged(before, what)
	}
	repeat("a repeat", topupOrder, topup("T-REP-TOPUP"))
	repeat("a repeat of a key order, the stock gone", keyOrder, keys(pidKey, "T-REP-KEY", 2))
	guarded := topup("T-REP-TOPUP")
	low := topupOrder.Amount - 1
	guarded.MaxPrice = &low
	repeat("a repeat under a maxPrice below its price", topupOrder, guarded)

	limit := topupOrder.Amount - 1
	limitp := &limit
	if _, err := e.s.UpdateAccount(e.ctx, nil, a.ID, topupd.AccountPatch{Limits: topupd.LimitsPatch{"maxOrderUsd": limitp}}); err != nil {
		t.Fatalf("UpdateAccount: %v", err)
	}
	repeat("a repeat over the account's new limit", topupOrder, topup("T-REP-TOPUP"))
	var none *topupd.Money
	if _, err := e.s.UpdateAccount(e.ctx, nil, a.ID, topupd.AccountPatch{Limits: topupd.LimitsPatch{"maxOrderUsd": none}}); err != nil {
		t.Fatalf("UpdateAccount: %v", err)
	}

	poor := e.account("poor", 0)
	if _, _, err := e.try(poor.ID, topup("T-REP-TOPUP")); topupd.CodeOf(err) != topupd.EForbidden {
		t.Errorf("another account's trxid, no balance: err %v, want FORBIDDEN", err)
	}
	rich := e.account("rich", topupd.USD(100))
	for _, held := range []bool{false, true} {
		before := e.snapshot(rich.ID)
		_, _, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: rich.ID, Request: topup("T-REP-TOPUP"), Now: t0, Deadline: deadline, HintHeld: held})
		if topupd.CodeOf(err) != topupd.EForbidden {
			t.Errorf("another account's trxid, hint held %v: err %v, want FORBIDDEN", held, err)
		}
		e.unchanged(before, "another account's trxid")
	}

	disabled := packs[0]
	disabled.Status = topupd.StatusDisabled
	if err := e.s.PutPack(e.ctx, nil, disabled); err != nil {
		t.Fatalf("PutPack: %v", err)
	}
	repeat("a repeat of a pack taken off sale", topupOrder, topup("T-REP-TOPUP"))
}
