package storetest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var returnedTests = []test{
	{"PlacedAndSettledOrdersMatchLookups", testReturnedMatchLookups},
}

// testReturnedMatchLookups checks that the order each write returns is
// exactly what a lookup reads afterwards, field by field, for every kind
// of placement and settlement: the store may build the answer in memory
// instead of reading it back, and must then get every field right
// (times at the stored precision, codes in delivery order).
func testReturnedMatchLookups(t *testing.T, e *env) {
	e.catalog()
	a := e.account("a", topupd.USD(1000))
	e.stock(pidKey, 5)
	e.stock(pidCard, 2)
	// Not millisecond-aligned: the stored times are truncated.
	now := t0.Add(1234567 * time.Nanosecond)
	same := func(what string, got topupd.Order, err error) topupd.Order {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := cmp.Diff(e.order(got.ID), got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: the returned order differs from a lookup (-lookup +returned):\n%s", what, diff)
		}
		return got
	}
	place := func(what string, req topupd.OrderRequest, owner string) topupd.Order {
		t.Helper()
		p := topupd.PlaceOrder{AccountID: a.ID, Request: req, Now: now, Deadline: deadline}
		if owner != "" {
			p.LeaseOwner, p.LeaseUntil = owner, now.Add(time.Minute)
		}
		o, _, err := e.s.PlaceOrder(e.ctx, p)
		return same(what, o, err)
	}
	settle := func(what string, o topupd.Order, st topupd.Settlement) topupd.Order {
		t.Helper()
		st.Now = now.Add(3*time.Second + 777*time.Microsecond)
		got, err := e.s.Settle(e.ctx, nil, o.Seq, st)
		return same(what, got, err)
	}

	inline := place("a top-up submitted at once", topup(e.uniq("T")), "node-1")
	keyOrder := place("three keys", keys(pidKey, e.uniq("T"), 3), "")
	if len(keyOrder.Codes) != 3 || keyOrder.CodeCount != 3 {
		t.Fatalf("three keys: codes %v, count %d", keyOrder.Codes, keyOrder.CodeCount)
	}
	place("a gift card", keys(pidCard, e.uniq("T"), 1), "")
	place("a zone top-up", topupd.OrderRequest{PID: pidZone, TrxID: e.uniq("T"), Fields: topupd.AccountFields{UserID: "777", ZoneID: "2001"}}, "")
	place("a manual top-up", topupd.OrderRequest{PID: pidTopupManual, TrxID: e.uniq("T"), Fields: topupd.AccountFields{UserID: userID}}, "")
	replay, isReplay, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: keys(pidKey, keyOrder.TrxID, 3), Now: now.Add(time.Hour), Deadline: deadline})
	if !isReplay {
		t.Errorf("the repeated key order was not a replay")
	}
	same("a replay", replay, err)

	settle("completed with codes, a supplier reference, under the lease", inline, topupd.Settlement{
		Status: topupd.StatusCompleted, Codes: []string{"S-2", "S-1", "S-3"}, Supplier: topupd.SupplierAccepted, SupplierRef: "sup-1", LeaseOwner: "node-1"})

	retried := place("a top-up", topup(e.uniq("T")), "")
	retried = settle("rescheduled", retried, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: now.Add(time.Minute), Supplier: topupd.SupplierAccepted, SupplierRef: "sup-2"})
	retried = settle("rescheduled again", retried, topupd.Settlement{Status: topupd.StatusProcessing, RetryAt: now.Add(2 * time.Minute)})
	again, err := e.s.RetryOrder(e.ctx, nil, retried.Seq, now.Add(time.Minute+5*time.Microsecond), now.Add(time.Hour+9*time.Microsecond))
	same("retried by the operator", again, err)
	settle("cancelled and refunded", retried, topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true})

	kept := place("another top-up", topup(e.uniq("T")), "")
	settle("cancelled without a refund", kept, topupd.Settlement{Status: topupd.StatusCancelled, Error: "SUPPLIER LOST IT"})
	plain := place("a third top-up", topup(e.uniq("T")), "")
	settle("completed without codes", plain, topupd.Settlement{Status: topupd.StatusCompleted})
}
