package upstream_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/provider/upstream"
)

// The provider is a topupd.Provider.
var _ topupd.Provider = (*upstream.Provider)(nil)

func TestTopupCompletes(t *testing.T) {
	f := newFixture(t)
	o := topupOrder("5123456789")
	out, err := f.p.Submit(ctx(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if out.State != topupd.OutcomeCompleted || out.SupplierRef == "" || len(out.Codes) != 0 {
		t.Fatalf("Submit = %+v, want completed with a SupplierRef and no codes", out)
	}
	bo := f.b.order(f.acct, out.SupplierRef)
	if bo.TrxID != topupd.UpstreamTrxID(o) || bo.Status != client.StatusCompleted || bo.UserID != "5123456789" {
		t.Errorf("B's order = %+v, want trxid %s, completed, userId 5123456789", bo, topupd.UpstreamTrxID(o))
	}
	if ch := f.b.charges(f.acct); len(ch) != 1 || ch[0].OrderID != out.SupplierRef {
		t.Errorf("B's charges = %+v, want one for %s", ch, out.SupplierRef)
	}
	// Status by ref says the same.
	o.SupplierRef = out.SupplierRef
	st, err := f.p.Status(ctx(t), o)
	if err != nil || st.State != topupd.OutcomeCompleted || st.SupplierRef != out.SupplierRef {
		t.Errorf("Status = %+v, %v; want completed %s", st, err, out.SupplierRef)
	}
}

func TestRequestShape(t *testing.T) {
	f := newFixture(t)
	if _, err := f.p.Submit(ctx(t), topupOrder("5123456789")); err != nil {
		t.Fatal(err)
	}
	k := keyOrder(1)
	if _, err := f.p.Submit(ctx(t), k); err != nil {
		t.Fatal(err)
	}
	bodies := f.b.posted()
	if len(bodies) != 2 {
		t.Fatalf("B received %d POST /orders, want 2", len(bodies))
	}
	top, key := bodies[0], bodies[1]
	if top["pid"] != pidTopup || top["userId"] != "5123456789" || !strings.HasPrefix(top["trxid"].(string), "topupd-ord_test") {
		t.Errorf("top-up body = %v", top)
	}
	for _, name := range []string{"quantity", "idempotencyKey", "idempotency", "zoneId", "serverId", "region", "moreId"} {
		if _, ok := top[name]; ok {
			t.Errorf("top-up body carries %s: %v", name, top)
		}
	}
	if key["quantity"] != 1.0 || key["trxid"] != topupd.UpstreamTrxID(k) || key["pid"] != pidKey {
		t.Errorf("key body = %v, want quantity 1 and trxid %s", key, topupd.UpstreamTrxID(k))
	}
	if _, ok := key["idempotencyKey"]; ok {
		t.Errorf("key body carries an idempotencyKey: %v", key)
	}
}

func TestKeysDeliverTheUpstreamCodes(t *testing.T) {
	f := newFixture(t)
	o := keyOrder(3)
	out, err := f.p.Submit(ctx(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if out.State != topupd.OutcomeCompleted || len(out.Codes) != 3 {
		t.Fatalf("Submit = %+v, want completed with 3 codes", out)
	}
	bo := f.b.order(f.acct, out.SupplierRef)
	if !slices.Equal(out.Codes, bo.Codes) {
		t.Errorf("codes %v, B delivered %v", out.Codes, bo.Codes)
	}
	for _, c := range out.Codes {
		if !slices.Contains(f.b.Codes[pidKey], c) {
			t.Errorf("code %q is not of B's stock", c)
		}
	}
}

func TestInvalidPlayerFails(t *testing.T) {
	f := newFixture(t)
	out, err := f.p.Submit(ctx(t), topupOrder("99990001"))
	if err != nil {
		t.Fatal(err)
	}
	if out.State != topupd.OutcomeFailed || out.Message != "INVALID PLAYER" || out.SupplierRef == "" {
		t.Fatalf("Submit = %+v, want failed INVALID PLAYER with a SupplierRef", out)
	}
	if bo := f.b.order(f.acct, out.SupplierRef); bo.Status != client.StatusCancelled || !bo.Refunded {
		t.Errorf("B's order = %+v, want cancelled and refunded", bo)
	}
}

func TestPendingThenCompleted(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	f := newFixture(t, upstream.WithPollInterval(2*time.Second), upstream.WithNow(func() time.Time { return now }))
	f.b.Settings(map[string]any{"simDelayMs": 300})
	o := topupOrder("5123456789")
	out, err := f.p.Submit(ctx(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if out.State != topupd.OutcomePending || out.SupplierRef == "" || !out.RetryAt.Equal(now.Add(2*time.Second)) {
		t.Fatalf("Submit = %+v, want pending with a SupplierRef, RetryAt %v", out, now.Add(2*time.Second))
	}
	o.SupplierRef, o.Supplier = out.SupplierRef, topupd.SupplierAccepted
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := f.p.Status(ctx(t), o)
		if err != nil {
			t.Fatal(err)
		}
		if st.SupplierRef != out.SupplierRef {
			t.Fatalf("Status SupplierRef = %q, want %q", st.SupplierRef, out.SupplierRef)
		}
		if st.State == topupd.OutcomeCompleted {
			break
		}
		if st.State != topupd.OutcomePending || time.Now().After(deadline) {
			t.Fatalf("Status = %+v, want pending then completed", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(f.b.charges(f.acct)); n != 1 {
		t.Errorf("B charged %d times, want 1", n)
	}
}

func TestLostAnswerIsTheSameOrder(t *testing.T) {
	f := newFixture(t)
	o := topupOrder("5123456789")
	first, err := f.p.Submit(ctx(t), o)
	if err != nil || first.State != topupd.OutcomeCompleted {
		t.Fatalf("Submit = %+v, %v", first, err)
	}
	// The answer was lost: no SupplierRef, and the engine asks before it submits again.
	o.Supplier = topupd.SupplierSubmitting
	st, err := f.p.Status(ctx(t), o)
	if err != nil || st.State != topupd.OutcomeCompleted || st.SupplierRef != first.SupplierRef {
		t.Fatalf("Status without ref = %+v, %v; want completed %s", st, err, first.SupplierRef)
	}
	again, err := f.p.Submit(ctx(t), o)
	if err != nil || again.SupplierRef != first.SupplierRef {
		t.Fatalf("second Submit = %+v, %v; want %s", again, err, first.SupplierRef)
	}
	if n := len(f.b.orders(f.acct)); n != 1 {
		t.Errorf("B has %d orders, want 1", n)
	}
	if n := len(f.b.charges(f.acct)); n != 1 {
		t.Errorf("B charged %d times, want 1", n)
	}
}

func TestLostAnswerWhilePending(t *testing.T) {
	f := newFixture(t)
	f.b.Settings(map[string]any{"simDelayMs": 60_000})
	o := topupOrder("5123456789")
	first, err := f.p.Submit(ctx(t), o)
	if err != nil || first.State != topupd.OutcomePending {
		t.Fatalf("Submit = %+v, %v", first, err)
	}
	st, err := f.p.Status(ctx(t), o)
	if err != nil || st.State != topupd.OutcomePending || st.SupplierRef != first.SupplierRef {
		t.Fatalf("Status without ref = %+v, %v; want pending %s", st, err, first.SupplierRef)
	}
	if n := len(f.b.orders(f.acct)); n != 1 {
		t.Errorf("B has %d orders, want 1", n)
	}
}

func TestStatusOfAnOrderNeverReceived(t *testing.T) {
	f := newFixture(t)
	// No ref, never sent: B takes the order now, as a submit would have.
	o := topupOrder("5123456789")
	o.Supplier = topupd.SupplierSubmitting
	st, err := f.p.Status(ctx(t), o)
	if err != nil || st.State != topupd.OutcomeCompleted || st.SupplierRef == "" {
		t.Fatalf("Status = %+v, %v; want completed with a SupplierRef", st, err)
	}
	if orders := f.b.orders(f.acct); len(orders) != 1 || orders[0].OrderID != st.SupplierRef {
		t.Errorf("B's orders = %+v, want just %s", orders, st.SupplierRef)
	}
	// A ref B does not know.
	o2 := topupOrder("5123456789")
	o2.SupplierRef = "ord_unknown_at_b"
	st, err = f.p.Status(ctx(t), o2)
	if err != nil || st.State != topupd.OutcomeNotFound {
		t.Fatalf("Status of an unknown ref = %+v, %v; want not found", st, err)
	}
	if n := len(f.b.orders(f.acct)); n != 1 {
		t.Errorf("B has %d orders, want 1", n)
	}
}

func TestStatusPastTheDeadlineNeverPlaces(t *testing.T) {
	f := newFixture(t)
	never := topupOrder("5123456789")
	never.DeadlineAt = time.Now().Add(-time.Second)
	st, err := f.p.Status(ctx(t), never)
	if err != nil || st.State != topupd.OutcomeNotFound {
		t.Fatalf("Status past the deadline = %+v, %v; want not found", st, err)
	}
	if n := len(f.b.orders(f.acct)); n != 0 {
		t.Fatalf("B has %d orders, want none", n)
	}
	// An order B did receive is found by its trxid.
	got := topupOrder("5123456789")
	first, err := f.p.Submit(ctx(t), got)
	if err != nil {
		t.Fatal(err)
	}
	got.DeadlineAt = time.Now().Add(-time.Second)
	st, err = f.p.Status(ctx(t), got)
	if err != nil || st.State != topupd.OutcomeCompleted || st.SupplierRef != first.SupplierRef {
		t.Fatalf("Status past the deadline = %+v, %v; want completed %s", st, err, first.SupplierRef)
	}
	if n := len(f.b.orders(f.acct)); n != 1 {
		t.Errorf("B has %d orders, want 1", n)
	}
}

// TestStatusPastTheDeadlineBeyondTheHistory: when the upstream account has
// more orders than the history lookup reads, an order not among them may
// still be there: the answer is unknown (an error for the operator), never
// "not found", which would let the order be refunded.
func TestStatusPastTheDeadlineBeyondTheHistory(t *testing.T) {
	f := newFixture(t)
	f.b.AdminCall("POST", "/admin/accounts/"+f.acct.ID+"/credits", map[string]any{"amountUsd": 1000, "reference": "more"}, nil)
	for range 200 {
		if _, err := f.p.Submit(ctx(t), topupOrder("5123456789")); err != nil {
			t.Fatal(err)
		}
	}
	never := topupOrder("5123456789")
	never.DeadlineAt = time.Now().Add(-time.Second)
	st, err := f.p.Status(ctx(t), never)
	if err == nil || !errors.Is(err, topupd.ErrNeedsOperator) {
		t.Fatalf("Status past the deadline, beyond the history = %+v, %v; want an error for the operator", st, err)
	}
	if n := len(f.b.orders(f.acct)); n != 200 {
		t.Errorf("B has %d orders, want 200: the lookup placed one", n)
	}
}
