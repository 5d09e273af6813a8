package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// firstCalls records what PlaceOrder asked of the fulfilment engine, and
// of the player checker.
type firstCalls struct {
	attempts, answered []topupd.Order
	waits              []time.Duration
	asked              [][]topupd.Supplier
}

func (f *firstCalls) Owner() string                      { return "node-1" }
func (f *firstCalls) LeaseUntil(now time.Time) time.Time { return now.Add(time.Minute) }
func (f *firstCalls) Attempt(_ context.Context, o topupd.Order, wait time.Duration) topupd.Order {
	f.attempts, f.waits = append(f.attempts, o), append(f.waits, wait)
	o.Status = topupd.StatusCompleted // as a supplier that answers at once
	return o
}
func (f *firstCalls) Answered(_ context.Context, o topupd.Order) { f.answered = append(f.answered, o) }
func (f *firstCalls) CheckPlayer(_ context.Context, s []topupd.Supplier, _ topupd.AccountFields) (topupd.PlayerCheck, error) {
	f.asked = append(f.asked, s)
	return topupd.PlayerCheck{Supported: true, Valid: true}, nil
}

// placing is the fixture with a service that places orders.
func placing(t *testing.T) (*fixture, *service.Service, *firstCalls) {
	t.Helper()
	f := newFixture(t)
	calls := &firstCalls{}
	svc, err := service.New(service.Deps{Store: f.store, Now: func() time.Time { return t0 }, Deadline: time.Hour,
		Fulfiller: calls, Players: calls, InlineWait: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return f, svc, calls
}

// TestPlaceOrder: one call places an order and makes its first supplier
// call within the inline wait; a repeat is its replay, charged once and
// never sent again; closed orders and a refused order charge nothing and
// call no supplier.
func TestPlaceOrder(t *testing.T) {
	f, svc, calls := placing(t)
	ctx := t.Context()
	acct, err := f.store.Account(ctx, f.acct)
	if err != nil {
		t.Fatal(err)
	}
	call := func(st topupd.Settings, trxid, pid string) service.OrderCall {
		return service.OrderCall{Caller: service.Caller{Account: acct}, Settings: st,
			Request: topupd.OrderRequest{PID: pid, TrxID: trxid, Fields: topupd.AccountFields{UserID: "5123"}}}
	}
	balance := func() topupd.Money {
		b, err := svc.CallerBalance(ctx, service.Caller{Account: acct})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		st   topupd.Settings
		code topupd.ErrorCode
	}{{topupd.Settings{Maintenance: true, OrdersDisabled: true}, topupd.EMaintenance}, {topupd.Settings{OrdersDisabled: true}, topupd.EOrdersDisabled}} {
		if _, _, err := svc.PlaceOrder(ctx, call(c.st, "closed", "uc")); topupd.CodeOf(err) != c.code {
			t.Errorf("placing under %+v: %v, want %s", c.st, err, c.code)
		}
	}
	if _, _, err := svc.PlaceOrder(ctx, call(topupd.Settings{}, "unknown", "no-such-pack")); err == nil {
		t.Error("an order of no pack was placed")
	}
	if len(calls.attempts) != 0 || balance() != topupd.USD(100) {
		t.Fatalf("refused orders: %d supplier calls, balance %s", len(calls.attempts), balance())
	}
	o, replay, err := svc.PlaceOrder(ctx, call(topupd.Settings{}, "first", "uc"))
	if err != nil || replay || o.Status != topupd.StatusCompleted {
		t.Fatalf("a new order: %+v replay=%v %v", o, replay, err)
	}
	if len(calls.attempts) != 1 || calls.attempts[0].ID != o.ID || calls.attempts[0].Status != topupd.StatusProcessing || calls.waits[0] != 3*time.Second {
		t.Fatalf("first calls: %+v, waits %v", calls.attempts, calls.waits)
	}
	again, replay, err := svc.PlaceOrder(ctx, call(topupd.Settings{}, "first", "uc"))
	if err != nil || !replay || again.ID != o.ID {
		t.Fatalf("a repeat: %+v replay=%v %v", again, replay, err)
	}
	if len(calls.attempts) != 1 || balance() != topupd.USD(99) {
		t.Errorf("after the repeat: %d supplier calls, balance %s (one charge of 1)", len(calls.attempts), balance())
	}
}

// TestPlaceOrderSimAnswered: an order the sim rules answer in its
// placement is recorded as answered, with no supplier call of its own.
func TestPlaceOrderSimAnswered(t *testing.T) {
	f, svc, calls := placing(t)
	ctx := t.Context()
	if err := f.store.PutPack(ctx, nil, topupd.Pack{PID: "uc-sim", Slug: "pubg", Name: "60 UC", Price: topupd.USD(1), Status: topupd.StatusActive,
		Provider: topupd.ProviderSim}); err != nil {
		t.Fatal(err)
	}
	acct, err := f.store.Account(ctx, f.acct)
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := svc.PlaceOrder(ctx, service.OrderCall{Caller: service.Caller{Account: acct},
		Request: topupd.OrderRequest{PID: "uc-sim", TrxID: "sim-1", Fields: topupd.AccountFields{UserID: "5123"}}})
	if err != nil || o.Status != topupd.StatusCompleted {
		t.Fatalf("a sim order: %+v %v", o, err)
	}
	if len(calls.attempts) != 0 || len(calls.answered) != 1 || calls.answered[0].ID != o.ID {
		t.Errorf("a sim order: %d supplier calls, answered %+v", len(calls.attempts), calls.answered)
	}
}

// TestCheckPlayer: a top-up's suppliers are asked, a sandbox's check
// follows the sim rules, and a bad request asks nobody.
func TestCheckPlayer(t *testing.T) {
	f, svc, calls := placing(t)
	ctx := t.Context()
	acct, err := f.store.Account(ctx, f.acct)
	if err != nil {
		t.Fatal(err)
	}
	req := topupd.OrderRequest{PID: "uc", Fields: topupd.AccountFields{UserID: "5123"}}
	if res, err := svc.CheckPlayer(ctx, service.Caller{Account: acct}, req); err != nil || !res.Valid {
		t.Fatalf("a check: %+v %v", res, err)
	}
	sandbox := acct
	sandbox.Sandbox = true
	if _, err := svc.CheckPlayer(ctx, service.Caller{Account: sandbox}, req); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CheckPlayer(ctx, service.Caller{Account: acct}, topupd.OrderRequest{PID: "no-such-pack"}); err == nil {
		t.Error("a check of no pack was asked")
	}
	if len(calls.asked) != 2 || calls.asked[0][0].Provider != topupd.ProviderManual || calls.asked[1][0].Provider != topupd.ProviderSandbox {
		t.Errorf("suppliers asked: %+v", calls.asked)
	}
}
