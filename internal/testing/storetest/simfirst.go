package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

// testSimFirstAnswer: a top-up the sim rules fulfil gets the sim's first
// answer in its placement (topupd.PlaceOrder.Sim), when the sim answers
// at once and the caller would make the first call. With a delay it is
// placed pending: accepted by the supplier, one attempt made, the pending
// line in its history, charged, and under no lease, so any engine claims
// it when it falls due (the delay, or the deadline when that comes
// first), and not before; a player the sim refuses is pending too. With
// no delay it completes; a refused player, a pack with a supplier list, a
// sim whose calls take time, and a caller that makes no call get no
// answer: placed as any other.
func testSimFirstAnswer(t *testing.T, e *env) {
	e.listedPack()
	a := e.account("buyer", topupd.USD(100))
	n := 0
	place := func(pid, user string, sim topupd.SimTerms, owner string) topupd.Order {
		t.Helper()
		n++
		req := topup("SIM-FIRST-" + string(rune('A'+n)))
		req.PID, req.Fields.UserID = pid, user
		o, _, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: a.ID, Request: req, Now: t0, Deadline: deadline,
			LeaseOwner: owner, LeaseUntil: t0.Add(time.Minute), Sim: sim})
		if err != nil {
			t.Fatalf("PlaceOrder %s: %v", req.TrxID, err)
		}
		return o
	}
	delayed := topupd.SimTerms{AtOnce: true, Delay: 20 * time.Second}
	before := e.balance(a.ID)
	pending := place(pidTopup, "5000001", delayed, "api-1")
	refused := place(pidTopup, topupd.SimInvalidPlayerPrefix+"1", delayed, "api-1")
	late := place(pidTopup, "5000002", topupd.SimTerms{AtOnce: true, Delay: deadline + time.Hour}, "api-1")
	for _, o := range []topupd.Order{pending, refused, late, e.order(pending.ID), e.order(late.ID)} {
		if o.Status != topupd.StatusProcessing || o.Supplier != topupd.SupplierAccepted || o.Attempts != 1 || o.FirstCallRunning() {
			t.Errorf("order placed pending: status %s, supplier %s, %d attempts; want processing, accepted, 1", o.Status, o.Supplier, o.Attempts)
		}
	}
	if got, want := e.balance(a.ID), before-3*priceTopup; got != want {
		t.Errorf("balance after three pending orders = %v, want %v (each charged once)", got, want)
	}
	events, err := e.s.OrderEvents(e.ctx, pending.Seq)
	want := []topupd.OrderEvent{{At: t0, Kind: topupd.EventRetry, Note: topupd.NoteSupplierPending}}
	if err != nil || !cmp.Equal(events, want, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })) {
		t.Errorf("history of an order placed pending = %+v, %v; want %+v", events, err, want)
	}
	if next, ok, err := e.s.NextDue(e.ctx, t0); err != nil || !ok || !next.Equal(t0.Add(20*time.Second)) {
		t.Errorf("NextDue at placement = %v, %v, %v; want the delay after placement (no lease held)", next, ok, err)
	}
	if got := claimIDs(t, e, "engine", t0.Add(19*time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue before the delay = %v, want none", got)
	}
	if got := claimIDs(t, e, "engine", t0.Add(20*time.Second), 10); !cmp.Equal(got, sorted(pending.ID, refused.ID)) {
		t.Errorf("ClaimDue at the delay = %v, want [%s %s]", got, pending.ID, refused.ID)
	}
	// The two claimed above are due again when their leases run out.
	if got := claimIDs(t, e, "engine", t0.Add(deadline-time.Second), 10); slices.Contains(got, late.ID) {
		t.Errorf("ClaimDue before the deadline = %v, want no %s", got, late.ID)
	}
	if got := claimIDs(t, e, "engine", t0.Add(deadline), 10); !cmp.Equal(got, []string{late.ID}) {
		t.Errorf("ClaimDue at the deadline = %v, want [%s]: due no later than it", got, late.ID)
	}

	atOnce := topupd.SimTerms{AtOnce: true}
	if o := place(pidTopup, "5000003", atOnce, "api-1"); o.Status != topupd.StatusCompleted || o.Supplier != topupd.SupplierAccepted {
		t.Errorf("no delay: %s, supplier %s; want completed in its placement", o.Status, o.Supplier)
	}
	for _, tc := range []struct {
		what, pid, user, owner string
		sim                    topupd.SimTerms
	}{
		{"a refused player, no delay", pidTopup, topupd.SimInvalidPlayerPrefix + "2", "api-1", atOnce},
		{"a pack with a supplier list", pidListed, "5000004", "api-1", delayed},
		{"calls that take time", pidTopup, "5000005", "api-1", topupd.SimTerms{Delay: 20 * time.Second}},
		{"no first call by the caller", pidTopup, "5000006", "", delayed},
	} {
		o := place(tc.pid, tc.user, tc.sim, tc.owner)
		if o.Status != topupd.StatusProcessing || o.Supplier == topupd.SupplierAccepted || o.Attempts != 0 {
			t.Errorf("%s: %s, supplier %s, %d attempts; want placed as any other", tc.what, o.Status, o.Supplier, o.Attempts)
		}
	}
}
