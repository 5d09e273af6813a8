package service_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/service"
	"github.com/topupd/topupd/sqlite"
)

// fixture is a store with one manual top-up pack and a funded account
// (upstreamOrder adds the same pack bought from an upstream).
type fixture struct {
	t     *testing.T
	store topupd.Store
	svc   *service.Service
	woken int
	acct  string
	n     int
}

var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "svc.db"), storetest.NewVault(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f := &fixture{t: t, store: s}
	f.svc, err = service.New(service.Deps{Store: s, Now: func() time.Time { return t0 }, Deadline: time.Hour, Wake: func() { f.woken++ }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.PutLine(ctx, nil, topupd.Line{Slug: "pubg", ProductName: "PUBG UC", GameName: "PUBG", Game: "pubg", Kind: topupd.KindTopup,
		Status: topupd.StatusActive, Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "Player ID"}}}))
	must(s.PutPack(ctx, nil, topupd.Pack{PID: "uc", Slug: "pubg", Name: "60 UC", Price: topupd.USD(1), Status: topupd.StatusActive, Provider: topupd.ProviderManual}))
	a, err := s.CreateAccount(ctx, nil, topupd.Account{ID: "acc_shop", Name: "shop", APIEnabled: true, CreatedAt: t0})
	must(err)
	f.acct = a.ID
	_, _, err = s.Credit(ctx, nil, a.ID, topupd.USD(100), "opening", t0)
	must(err)
	return f
}

// order places a processing manual top-up order and returns it.
func (f *fixture) order() topupd.Order { return f.orderOf("uc") }

// upstreamOrder places a processing order of the same pack bought from an
// upstream (added on the first call), which an operator may complete with
// codes, and returns it.
func (f *fixture) upstreamOrder() topupd.Order {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := f.store.Upstream(ctx, "up"); topupd.CodeOf(err) == topupd.ENotFound {
		err := f.store.PutUpstream(ctx, nil, topupd.Upstream{Name: "up", BaseURL: "https://up.example", APIKey: "tpd_x", UpdatedAt: t0})
		if err == nil {
			err = f.store.PutPack(ctx, nil, topupd.Pack{PID: "uc-up", Slug: "pubg", Name: "60 UC", Price: topupd.USD(1), Status: topupd.StatusActive,
				Provider: topupd.ProviderUpstream, Upstream: "up", UpstreamPID: "UC60"})
		}
		if err != nil {
			f.t.Fatal(err)
		}
	}
	return f.orderOf("uc-up")
}

// orderOf places a processing order of a pack and returns it.
func (f *fixture) orderOf(pid string) topupd.Order {
	f.t.Helper()
	f.n++
	o, _, err := f.store.PlaceOrder(f.t.Context(), topupd.PlaceOrder{AccountID: f.acct, Now: t0, Deadline: time.Hour,
		Request: topupd.OrderRequest{PID: pid, TrxID: "t-" + string(rune('a'+f.n)), Fields: topupd.AccountFields{UserID: "5123"}}})
	if err != nil {
		f.t.Fatal(err)
	}
	return o
}

// actions lists the action log, newest first.
func (f *fixture) actions() []topupd.Action {
	f.t.Helper()
	acts, err := f.store.Actions(f.t.Context(), topupd.ActionsQuery{Limit: 100})
	if err != nil {
		f.t.Fatal(err)
	}
	return acts
}

func as(name string, role topupd.Role) service.Actor {
	return service.Actor{Operator: name, Role: role, IP: "198.51.100.7", RequestID: "req-1"}
}

// TestOrderRoles: completing, cancelling and retrying an order is for
// the roles with the orders permission (support and owner); any other is
// ROLE_FORBIDDEN, and the order, the books and the action log stay as
// they were.
func TestOrderRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for _, role := range []topupd.Role{topupd.RoleViewer, topupd.RoleFinance, topupd.RoleResellerChat} {
		o := f.order()
		a := as("kim", role)
		for what, call := range map[string]func() error{
			"complete": func() error { _, err := f.svc.CompleteOrder(ctx, a, o.ID, nil); return err },
			"cancel":   func() error { _, err := f.svc.CancelOrder(ctx, a, o.ID, "", true); return err },
			"retry":    func() error { _, err := f.svc.RetryOrder(ctx, a, o.ID); return err },
		} {
			if err := call(); topupd.CodeOf(err) != topupd.ERoleForbidden {
				t.Errorf("%s may %s: %v", role, what, err)
			}
		}
		if got, _ := f.store.Order(ctx, "", o.ID); got.Status != topupd.StatusProcessing {
			t.Errorf("a forbidden call changed the order: %s", got.Status)
		}
	}
	if acts := f.actions(); len(acts) != 0 {
		t.Errorf("forbidden calls are in the action log: %+v", acts)
	}
	for _, role := range []topupd.Role{topupd.RoleSupport, topupd.RoleOwner} {
		if _, err := f.svc.CompleteOrder(ctx, as("sam", role), f.order().ID, nil); err != nil {
			t.Errorf("%s completing: %v", role, err)
		}
	}
}

// TestOrderOperations: each operation changes the order as asked and
// records who did it, from where, in the action log; a final order is
// ORDER_FINAL, a code already sold is CODE_ALREADY_USED, and neither
// changes anything.
func TestOrderOperations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	owner := as("olga", topupd.RoleOwner)

	topup := f.order()
	if _, err := f.svc.CompleteOrder(ctx, owner, topup.ID, []string{"CODE-0"}); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("a manual top-up completed with codes: %v, want INVALID_BODY", err)
	}
	if o, err := f.store.Order(ctx, "", topup.ID); err != nil || o.Status != topupd.StatusProcessing {
		t.Errorf("the top-up after the refused completion: %+v, %v", o, err)
	}
	done, err := f.svc.CompleteOrder(ctx, owner, f.upstreamOrder().ID, []string{"CODE-1"})
	if err != nil || done.Status != topupd.StatusCompleted || len(done.Codes) != 1 {
		t.Fatalf("complete: %+v, %v", done, err)
	}
	if _, err := f.svc.CompleteOrder(ctx, owner, f.upstreamOrder().ID, []string{"CODE-1"}); topupd.CodeOf(err) != topupd.ECodeAlreadyUsed {
		t.Errorf("a code sold before: %v", err)
	}
	gone, err := f.svc.CancelOrder(ctx, owner, f.order().ID, "", true)
	if err != nil || gone.Status != topupd.StatusCancelled || !gone.Refunded || gone.Error != service.OperatorCancelled {
		t.Errorf("cancel without a reason: %+v, %v", gone, err)
	}
	if _, err := f.svc.CancelOrder(ctx, owner, done.ID, "NO", true); topupd.CodeOf(err) != topupd.EOrderFinal {
		t.Errorf("cancelling a completed order: %v", err)
	}
	long := make([]byte, 501)
	for i := range long {
		long[i] = 'x'
	}
	if _, err := f.svc.CancelOrder(ctx, owner, f.order().ID, string(long), true); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("a reason of 501 characters: %v", err)
	}
	if _, err := f.svc.CompleteOrder(ctx, owner, f.upstreamOrder().ID, []string{""}); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("an empty code: %v", err)
	}
	again, err := f.svc.RetryOrder(ctx, owner, f.order().ID)
	if err != nil || again.Status != topupd.StatusProcessing || !again.DeadlineAt.Equal(t0.Add(time.Hour)) || f.woken != 1 {
		t.Errorf("retry: %+v, %v; the engine woken %d times", again, err, f.woken)
	}
	if _, err := f.svc.RetryOrder(ctx, owner, "ord_nosuch"); topupd.CodeOf(err) != topupd.EOrderNotFound {
		t.Errorf("retrying an unknown order: %v", err)
	}

	var got []string
	for _, a := range f.actions() {
		if a.Actor.Operator != "olga" || a.Actor.IP != "198.51.100.7" || a.Actor.RequestID != "req-1" || a.AccountID != f.acct {
			t.Errorf("action %s: %+v", a.Action, a.Actor)
		}
		got = append(got, a.Action+" "+a.Target)
	}
	want := []string{"order.retry " + again.ID, "order.cancel " + gone.ID, "order.complete " + done.ID}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("the action log holds %v, want %v (refused calls leave none)", got, want)
	}
	audit, err := f.store.Audit(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range audit.Checks {
		if c.Violations > 0 && c.Name != "orders-final" { // the orders left processing
			t.Errorf("audit: %s: %v", c.Name, c.Examples)
		}
	}
}
