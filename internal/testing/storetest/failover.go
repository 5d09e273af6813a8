package storetest

import (
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
)

var failoverTests = []test{
	{"SnapshotAtPlacement", testSnapshotAtPlacement},
	{"MoveSupplier", testMoveSupplier},
	{"MoveSupplierRefusals", testMoveSupplierRefusals},
	{"MoveSupplierOnce", testMoveSupplierOnce},
	{"SettleEndsTheAttempt", testSettleEndsTheAttempt},
	{"SettleByALeftSupplier", testSettleByALeftSupplier},
	{"MoveSupplierAccepted", testMoveSupplierAccepted},
}

// pidListed is a top-up pack sold through two upstreams and then the
// manual supplier: the suite's supplier list.
const pidListed = "ff-listed"

// listed are the suppliers of pidListed.
var listed = []topupd.Supplier{
	{Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "b-100", Cost: 9_000},
	{Provider: topupd.ProviderUpstream, Upstream: "c", UpstreamPID: "c-100"},
	{Provider: topupd.ProviderManual, Cost: 11_000},
}

// listedPack stores pidListed, costing 1.00 USD a unit unless its
// supplier says otherwise.
func (e *env) listedPack() {
	e.t.Helper()
	e.catalog()
	p := topupd.Pack{PID: pidListed, Slug: "freefire", Name: "100 Diamonds (listed)", Price: priceTopup, Status: topupd.StatusActive,
		Cost: 10_000, Provider: listed[0].Provider, Upstream: listed[0].Upstream, UpstreamPID: listed[0].UpstreamPID,
		Suppliers: append([]topupd.Supplier(nil), listed...)}
	if err := e.s.PutPack(e.ctx, nil, p); err != nil {
		e.t.Fatalf("PutPack %s: %v", p.PID, err)
	}
}

// attempts reads an order's attempts as "upstream-or-provider:outcome".
func (e *env) attempts(o topupd.Order) []string {
	e.t.Helper()
	list, err := e.s.SupplierAttempts(e.ctx, o.Seq)
	if err != nil {
		e.t.Fatalf("SupplierAttempts %s: %v", o.ID, err)
	}
	out := []string{}
	for _, a := range list {
		out = append(out, cmpOr(a.Upstream, a.Provider)+":"+string(a.Outcome))
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// leased places a listed order and leases it to owner at t0.
func (e *env) leased(accountID, trxid, owner string) topupd.Order {
	e.t.Helper()
	o := e.place(accountID, topupd.OrderRequest{PID: pidListed, TrxID: trxid, Fields: topupd.AccountFields{UserID: userID}}, t0)
	got, err := e.s.ClaimDue(e.ctx, owner, t0, t0.Add(time.Minute), 100)
	if err != nil {
		e.t.Fatalf("ClaimDue: %v", err)
	}
	for _, c := range got {
		if c.ID == o.ID {
			return c
		}
	}
	e.t.Fatalf("order %s was not claimed by %s", o.ID, owner)
	return o
}

// listedOrder stores pidListed and an account "a", and places an order
// of the pack (T-1) leased to w1.
func (e *env) listedOrder() (topupd.Account, topupd.Order) {
	e.t.Helper()
	e.listedPack()
	a := e.account("a", topupd.USD(100))
	return a, e.leased(a.ID, "T-1", "w1")
}

// refused moves an order leased to w1 on from its first attempt, refused,
// to attempt to, which must succeed.
func (e *env) refused(o topupd.Order, to int) topupd.Order {
	e.t.Helper()
	moved, err := e.move(o, "w1", 1, to, topupd.AttemptRefused)
	if err != nil {
		e.t.Fatalf("MoveSupplier %s to %d: %v", o.ID, to, err)
	}
	return moved
}

// move moves an order from one attempt to a later one as owner.
func (e *env) move(o topupd.Order, owner string, from, to int, outcome topupd.AttemptOutcome) (topupd.Order, error) {
	return e.s.MoveSupplier(e.ctx, o.Seq, topupd.SupplierMove{LeaseOwner: owner, LeaseUntil: t0.Add(2 * time.Minute),
		From: from, Outcome: outcome, Why: "UPSTREAM: UNKNOWN PID", To: to, SkipWhy: "unhealthy", Now: t0.Add(time.Second)})
}

func testSnapshotAtPlacement(t *testing.T, e *env) {
	e.listedPack()
	a := e.account("a", topupd.USD(100))
	o := e.place(a.ID, topupd.OrderRequest{PID: pidListed, TrxID: "T-1", Fields: topupd.AccountFields{UserID: userID}}, t0)
	if o.Provider != topupd.ProviderUpstream || o.Upstream != "b" || o.UpstreamPID != "b-100" {
		t.Errorf("the order goes to %s %s %s, want the first supplier", o.Provider, o.Upstream, o.UpstreamPID)
	}
	list, err := e.s.SupplierAttempts(e.ctx, o.Seq)
	if err != nil {
		t.Fatal(err)
	}
	want := []topupd.SupplierAttempt{
		{Attempt: 1, Supplier: listed[0], Outcome: topupd.AttemptTrying, StartedAt: t0},
		{Attempt: 2, Supplier: listed[1], Outcome: topupd.AttemptWaiting},
		{Attempt: 3, Supplier: listed[2], Outcome: topupd.AttemptWaiting},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("attempts at placement (-want +got):\n%s", diff)
	}
	// A later edit of the pack does not change where the order may go.
	if _, err := e.s.UpdatePack(e.ctx, nil, pidListed, func(p *topupd.Pack) error {
		p.Suppliers = p.Suppliers[2:]
		p.Provider, p.Upstream, p.UpstreamPID = topupd.ProviderManual, "", ""
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := e.attempts(o); !cmp.Equal(got, []string{"b:trying", "c:waiting", "manual:waiting"}) {
		t.Errorf("attempts after the pack changed: %v", got)
	}
	// Packs without a list, and orders drawn from stock, have none.
	plain := e.place(a.ID, topup("T-2"), t0)
	e.stock(pidKey, 1)
	key := e.place(a.ID, keys(pidKey, "T-3", 1), t0)
	for _, o := range []topupd.Order{plain, key} {
		if got := e.attempts(o); len(got) != 0 {
			t.Errorf("order %s of %s has attempts %v", o.ID, o.PID, got)
		}
	}
}

func testMoveSupplier(t *testing.T, e *env) {
	_, o := e.listedOrder()
	moved := e.refused(o, 3)
	if moved.Provider != topupd.ProviderManual || moved.Upstream != "" || moved.UpstreamPID != "" ||
		moved.Supplier != topupd.SupplierSubmitting || moved.SupplierRef != "" || moved.Status != topupd.StatusProcessing {
		t.Errorf("the moved order: %+v", moved)
	}
	if diff := cmp.Diff(moved, e.order(o.ID)); diff != "" {
		t.Errorf("MoveSupplier's answer and a lookup differ (-answer +lookup):\n%s", diff)
	}
	if got := e.attempts(o); !cmp.Equal(got, []string{"b:refused", "c:skipped", "manual:trying"}) {
		t.Errorf("attempts after the move: %v", got)
	}
	list, _ := e.s.SupplierAttempts(e.ctx, o.Seq)
	if list[0].Why != "UPSTREAM: UNKNOWN PID" || !list[0].FinishedAt.Equal(t0.Add(time.Second)) ||
		list[1].Why != "unhealthy" || !list[2].StartedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("attempts after the move: %+v", list)
	}
	events, err := e.s.OrderEvents(e.ctx, o.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(events); n == 0 || events[n-1].Kind != topupd.EventSubmitting || !strings.Contains(events[n-1].Note, "manual") ||
		!strings.Contains(events[n-1].Note, "UNKNOWN PID") {
		t.Errorf("events after the move: %+v", events)
	}
	// The move renewed w1's lease: nobody else claims the order meanwhile.
	if got := claimIDs(t, e, "w2", t0.Add(90*time.Second), 10); len(got) != 0 {
		t.Errorf("ClaimDue during the renewed lease = %v", got)
	}
	// The day's sales count the order under its current provider.
	rows, err := e.s.SalesReport(e.ctx, t0.Add(-time.Hour), t0.Add(time.Hour), topupd.ByProvider)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Key != topupd.ProviderManual || r.Orders != 1 || r.Processing != 1 {
			t.Errorf("sales by provider after the move: %+v", rows)
		}
	}
	checkAuditClean(t, e)
}

func testMoveSupplierRefusals(t *testing.T, e *env) {
	a, o := e.listedOrder()
	for _, tc := range []struct {
		name     string
		owner    string
		from, to int
		code     topupd.ErrorCode
	}{
		{"another owner", "w2", 1, 2, topupd.EConflict},
		{"not from the current one", "w1", 2, 3, topupd.EConflict},
	} {
		if _, err := e.move(o, tc.owner, tc.from, tc.to, topupd.AttemptRefused); topupd.CodeOf(err) != tc.code {
			t.Errorf("%s: MoveSupplier = %v, want %s", tc.name, err, tc.code)
		}
	}
	if _, err := e.move(o, "w1", 1, 4, topupd.AttemptRefused); err == nil {
		t.Error("a move to a supplier the order does not list succeeded")
	}
	if _, err := e.move(o, "w1", 1, 2, topupd.AttemptCompleted); err == nil {
		t.Error("a move leaving the current supplier as completed succeeded")
	}
	if got := e.attempts(o); !cmp.Equal(got, []string{"b:trying", "c:waiting", "manual:waiting"}) {
		t.Errorf("attempts after refused moves: %v", got)
	}
	if got := e.order(o.ID); got.Upstream != "b" {
		t.Errorf("the order moved to %q", got.Upstream)
	}
	e.settle(o, topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0})
	if _, err := e.move(o, "", 1, 2, topupd.AttemptRefused); err == nil {
		t.Error("a move without a lease owner succeeded")
	}
	if _, err := e.move(o, "w1", 1, 2, topupd.AttemptRefused); topupd.CodeOf(err) != topupd.EOrderFinal {
		t.Errorf("moving a final order = %v, want ORDER_FINAL", err)
	}
	// An order without a list has no attempt to move from.
	plain := e.place(a.ID, topup("T-2"), t0)
	if _, err := e.s.ClaimDue(e.ctx, "w1", t0, t0.Add(time.Minute), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := e.move(plain, "w1", 1, 2, topupd.AttemptRefused); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("moving an order without a list = %v, want CONFLICT", err)
	}
	checkAuditClean(t, e)
}

// testMoveSupplierOnce: many workers of the lease holder (a node that
// lost track of its own calls) move the same order from its first
// supplier at once: it moves once.
func testMoveSupplierOnce(t *testing.T, e *env) {
	_, o := e.listedOrder()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, conflicts := 0, 0
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.move(o, "w1", 1, 2+i%2, topupd.AttemptRefused)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case topupd.CodeOf(err) == topupd.EConflict:
				conflicts++
			default:
				t.Errorf("MoveSupplier: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || conflicts != 7 {
		t.Errorf("%d moves succeeded and %d conflicted, want 1 and 7", won, conflicts)
	}
	got := e.attempts(o)
	if !cmp.Equal(got, []string{"b:refused", "c:trying", "manual:waiting"}) && !cmp.Equal(got, []string{"b:refused", "c:skipped", "manual:trying"}) {
		t.Errorf("attempts after racing moves: %v", got)
	}
	checkAuditClean(t, e)
}

func testSettleEndsTheAttempt(t *testing.T, e *env) {
	// Completed at the first supplier: its own cost.
	a, first := e.listedOrder()
	done := e.settle(first, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0.Add(time.Second), LeaseOwner: "w1"})
	if done.Cost == nil || *done.Cost != 9_000 {
		t.Errorf("completed at the first supplier, the order costs %v, want 0.90", done.Cost)
	}
	// Completed at the second, which has no cost of its own: the pack's.
	second := e.leased(a.ID, "T-2", "w1")
	e.refused(second, 2)
	done2 := e.settle(second, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0.Add(time.Second), LeaseOwner: "w1"})
	if done2.Cost == nil || *done2.Cost != 10_000 {
		t.Errorf("completed at the second supplier, the order costs %v, want the pack's 1.00", done2.Cost)
	}
	// Cancelled at the third.
	third := e.leased(a.ID, "T-3", "w1")
	e.refused(third, 3)
	e.settle(third, topupd.Settlement{Status: topupd.StatusCancelled, Error: "UPSTREAM: UNKNOWN PID", Refund: true, Now: t0.Add(time.Second), LeaseOwner: "w1"})
	for _, tc := range []struct {
		o    topupd.Order
		want []string
	}{
		{first, []string{"b:completed", "c:waiting", "manual:waiting"}},
		{second, []string{"b:refused", "c:completed", "manual:waiting"}},
		{third, []string{"b:refused", "c:skipped", "manual:cancelled"}},
	} {
		if got := e.attempts(tc.o); !cmp.Equal(got, tc.want) {
			t.Errorf("order %s attempts %v, want %v", tc.o.TrxID, got, tc.want)
		}
	}
	list, _ := e.s.SupplierAttempts(e.ctx, third.Seq)
	if list[2].Why != "UPSTREAM: UNKNOWN PID" || !list[2].FinishedAt.Equal(t0.Add(time.Second)) {
		t.Errorf("the cancelled attempt: %+v", list[2])
	}
	checkAuditClean(t, e)
}

// checkAuditClean fails the test on any audit violation but processing orders.
func checkAuditClean(t *testing.T, e *env) {
	t.Helper()
	au := e.auditClean()
	seen := false
	for _, c := range au.Checks {
		seen = seen || c.Name == "supplier-attempts-consistent"
	}
	if !seen {
		t.Error("the audit has no supplier-attempts-consistent check")
	}
}

// FailoverGuards shows, on a connection straight to the database behind s
// (fresh and empty), that the schema itself keeps each order on one
// supplier: an attempt never moves back, never changes supplier or cost,
// is never deleted, and an order never has two attempts holding it
// (unique is how the dialect words a unique index's refusal). Then it
// damages an order behind the store's back and the audit names it.
func FailoverGuards(t *testing.T, s topupd.Store, db *sql.DB, unique string) {
	e := &env{t: t, ctx: t.Context(), s: s, n: new(atomic.Int64)}
	e.listedPack()
	a := e.account("a", topupd.USD(100))
	moved := e.leased(a.ID, "T-MOVED", "w1")
	e.refused(moved, 2)
	done := e.leased(a.ID, "T-DONE", "w1")
	e.settle(done, topupd.Settlement{Status: topupd.StatusCompleted, Now: t0, LeaseOwner: "w1"})
	dump := []string{
		`SELECT order_seq, attempt, provider, upstream, upstream_pid, cost, outcome, why, started_at, finished_at FROM order_attempts ORDER BY order_seq, attempt`,
		`SELECT seq, status, provider, upstream, upstream_pid, cost FROM orders ORDER BY seq`,
	}
	const forward = "an attempt only moves forward"
	set := `UPDATE order_attempts SET outcome = $3 WHERE order_seq = $1 AND attempt = $2`
	guards := []Guard{
		Refused("attempts: a refused supplier current again", set, []any{moved.Seq, 1, "trying"}, forward),
		Refused("attempts: a refused supplier completing", set, []any{moved.Seq, 1, "completed"}, forward),
		Refused("attempts: a completed attempt reopened", set, []any{done.Seq, 1, "trying"}, forward),
		Refused("attempts: a waiting supplier completing unreached", set, []any{moved.Seq, 3, "completed"}, forward),
		Refused("attempts: an unknown outcome", `INSERT INTO order_attempts (order_seq, attempt, provider, outcome) VALUES ($1, 9, 'sim', 'lost')`,
			[]any{moved.Seq}, "outcome"),
		Refused("attempts: a second current supplier added", `INSERT INTO order_attempts (order_seq, attempt, provider, outcome) VALUES ($1, 9, 'sim', 'trying')`,
			[]any{moved.Seq}, unique),
		Refused("attempts: a second current supplier", set, []any{moved.Seq, 3, "trying"}, unique),
		Refused("attempts: a second supplier for a completed order", set, []any{done.Seq, 2, "trying"}, unique),
		Refused("attempts: another supplier", `UPDATE order_attempts SET upstream = 'z' WHERE order_seq = $1 AND attempt = 2`, []any{moved.Seq}, forward),
		Refused("attempts: another cost", `UPDATE order_attempts SET cost = 1 WHERE order_seq = $1 AND attempt = 1`, []any{done.Seq}, forward),
		Refused("attempts: deleting one", `DELETE FROM order_attempts WHERE order_seq = $1 AND attempt = 3`, []any{moved.Seq}, "never deleted"),
	}
	controls := []Control{
		Accepted("attempts: a waiting supplier skipped", set, []any{moved.Seq, 3, "skipped"}),
	}
	RunGuards(t, db, dump, guards, controls)

	// The order row names a supplier its attempts do not hold it at.
	if _, err := db.Exec(`UPDATE orders SET upstream = 'b' WHERE seq = $1`, moved.Seq); err != nil {
		t.Fatal(err)
	}
	au, err := s.Audit(e.ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, c := range au.Checks {
		if c.Name == "supplier-attempts-consistent" {
			named = c.Violations == 1 && len(c.Examples) == 1 && c.Examples[0] == moved.ID
			if !named {
				t.Errorf("the audit after damage: %+v, want %s named", c, moved.ID)
			}
		}
	}
	if !named {
		t.Error("the audit did not name the damaged order")
	}
}

// testSettleByALeftSupplier: the answer of a supplier the order has moved
// on from settles nothing, even under the same lease: neither a refusal
// (which would refund an order the next supplier may be selling) nor a
// sale; the answer of the current supplier does.
func testSettleByALeftSupplier(t *testing.T, e *env) {
	a, o := e.listedOrder()
	first := topupd.Supplier{Provider: o.Provider, Upstream: o.Upstream, UpstreamPID: o.UpstreamPID}
	moved := e.refused(o, 3)
	before := e.snapshot(a.ID)
	done := t0.Add(5 * time.Second)
	for _, st := range []topupd.Settlement{
		{Status: topupd.StatusCancelled, Error: "UPSTREAM: UNKNOWN PID", Refund: true},
		{Status: topupd.StatusCompleted},
		{Status: topupd.StatusProcessing, RetryAt: done},
	} {
		st.Now, st.LeaseOwner, st.By = done, "w1", &first
		if _, err := e.s.Settle(e.ctx, nil, o.Seq, st); topupd.CodeOf(err) != topupd.EConflict {
			t.Errorf("Settle %s by the supplier left: %v, want CONFLICT", st.Status, err)
		}
	}
	e.unchanged(before, "settling by a supplier the order left")
	now := topupd.Supplier{Provider: moved.Provider, Upstream: moved.Upstream, UpstreamPID: moved.UpstreamPID}
	got, err := e.s.Settle(e.ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Now: done, LeaseOwner: "w1", By: &now})
	if err != nil || got.Status != topupd.StatusCompleted {
		t.Fatalf("Settle by the current supplier: %v, %v", got.Status, err)
	}
	checkAuditClean(t, e)
}

// testMoveSupplierAccepted: an order its supplier has accepted (it gave
// its own id) never moves on, even for its lease holder: a "not found"
// from that supplier then cannot prove it holds no order.
func testMoveSupplierAccepted(t *testing.T, e *env) {
	_, o := e.listedOrder()
	e.settle(o, topupd.Settlement{Status: topupd.StatusProcessing, Supplier: topupd.SupplierAccepted,
		SupplierRef: "b-1", RetryAt: t0, Now: t0, LeaseOwner: "w1"})
	if got := claimIDs(t, e, "w1", t0.Add(time.Second), 10); len(got) != 1 {
		t.Fatalf("claimed %v, want the order again", got)
	}
	for _, outcome := range []topupd.AttemptOutcome{topupd.AttemptNotFound, topupd.AttemptRefused} {
		if _, err := e.move(o, "w1", 1, 2, outcome); topupd.CodeOf(err) != topupd.EConflict {
			t.Errorf("moving an accepted order as %s = %v, want CONFLICT", outcome, err)
		}
	}
	if got := e.attempts(o); !cmp.Equal(got, []string{"b:trying", "c:waiting", "manual:waiting"}) {
		t.Errorf("attempts after refused moves: %v", got)
	}
}
