package fulfil_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// balanceChecker is a scripted topupd.SupplierChecker.
type balanceChecker struct {
	mu    sync.Mutex
	calls int
	bal   topupd.Money
	err   error
}

func (c *balanceChecker) CheckBalance(context.Context, topupd.Upstream) (topupd.Money, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return c.bal, c.err
}

func (c *balanceChecker) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// watchFixture is a store with upstream b, and two nodes' watches on a
// clock the test moves.
func watchFixture(t *testing.T) (*fixture, *balanceChecker, [2]*fulfil.Watch) {
	t.Helper()
	f := newFixture(t, topupd.USD(100))
	f.clock = fakeclock.New(time.Now().Truncate(time.Millisecond))
	if err := f.store.PutUpstream(context.Background(), nil, topupd.Upstream{Name: "b", BaseURL: "https://b.example", APIKey: "k", UpdatedAt: f.now()}); err != nil {
		t.Fatal(err)
	}
	c := &balanceChecker{bal: topupd.USD(10)}
	var w [2]*fulfil.Watch
	for i := range w {
		w[i] = &fulfil.Watch{Store: f.store, Checker: c, Now: f.clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	return f, c, w
}

// upstreamB reads upstream b.
func upstreamB(t *testing.T, f *fixture) topupd.Upstream {
	t.Helper()
	u, err := f.store.Upstream(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestWatchPolls: an upstream's balance is polled every
// upstreamBalancePollMinutes by one node of the two; a failed poll makes
// an upstream that answered before failing; 0 polls never.
func TestWatchPolls(t *testing.T) {
	f, c, w := watchFixture(t)
	ctx := context.Background()
	w[0].Look(ctx)
	if c.count() != 0 {
		t.Fatalf("polled as soon as it was saved")
	}
	f.clock.Advance(5 * time.Minute)
	w[0].Look(ctx)
	w[1].Look(ctx)
	if c.count() != 1 {
		t.Fatalf("two nodes looked at once: %d polls, want 1", c.count())
	}
	if u := upstreamB(t, f); u.Balance == nil || *u.Balance != topupd.USD(10) || u.State != topupd.UpstreamOK {
		t.Fatalf("after a poll: %+v", u)
	}
	f.clock.Advance(4 * time.Minute)
	w[1].Look(ctx)
	if c.count() != 1 {
		t.Errorf("polled again after 4 of 5 minutes")
	}
	f.clock.Advance(time.Minute)
	c.bal = topupd.USD(7)
	w[1].Look(ctx)
	if u := upstreamB(t, f); c.count() != 2 || *u.Balance != topupd.USD(7) {
		t.Errorf("after 5 minutes: %d polls, balance %v", c.count(), u.Balance)
	}
	f.clock.Advance(5 * time.Minute)
	c.err = errors.New("no answer")
	w[0].Look(ctx)
	if u := upstreamB(t, f); u.State != topupd.UpstreamFailing || *u.Balance != topupd.USD(7) {
		t.Errorf("after a failed poll: state %s, balance %v", u.State, u.Balance)
	}
	off := 0
	if _, err := f.store.UpdateSettings(ctx, nil, topupd.SettingsPatch{UpstreamBalancePollMinutes: &off}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	w[0].Look(ctx)
	if c.count() != 3 {
		t.Errorf("polled with upstreamBalancePollMinutes 0: %d polls", c.count())
	}
}

// TestWatchObserves: a call's outcome sets the state (failing only once
// the upstream has answered), and a balance in an answer is a read.
func TestWatchObserves(t *testing.T) {
	f, _, w := watchFixture(t)
	w[0].SupplierCall("b", false)
	if u := upstreamB(t, f); u.State != topupd.UpstreamUnchecked {
		t.Errorf("a failed first call: %s, want unchecked", u.State)
	}
	w[0].SupplierCall("b", true)
	w[0].SupplierCall("b", false)
	if u := upstreamB(t, f); u.State != topupd.UpstreamFailing {
		t.Errorf("a failed call after a good one: %s, want failing", u.State)
	}
	w[0].SupplierRead("b", topupd.USD(3))
	if u := upstreamB(t, f); u.State != topupd.UpstreamOK || *u.Balance != topupd.USD(3) {
		t.Errorf("a read: %s, balance %v", u.State, u.Balance)
	}
}

// TestWatchAlertsMoveWithTheBurn: an order's cost comes off the known
// balance as its upstream accepts it (critical below 0), a top-up falls
// to the raw level (warn: 12 hours at the day's burn), and once the day's
// costs leave the 24 hours the watch clears it: each change one operator
// event.
func TestWatchAlertsMoveWithTheBurn(t *testing.T) {
	f, _, w := watchFixture(t)
	ctx := context.Background()
	off := 0
	if _, err := f.store.UpdateSettings(ctx, nil, topupd.SettingsPatch{UpstreamBalancePollMinutes: &off}); err != nil {
		t.Fatal(err)
	}
	pack := topupd.Pack{PID: "b60", Slug: "pubg", Name: "60 UC at b", Price: topupd.USD(25), Cost: topupd.USD(20), Status: "active",
		Provider: topupd.ProviderUpstream, Upstream: "b", UpstreamPID: "uc60"}
	if err := f.store.PutPack(ctx, nil, pack); err != nil {
		t.Fatal(err)
	}
	w[0].SupplierRead("b", topupd.USD(10))
	o, _, err := f.store.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: f.account, Now: f.now(), Deadline: time.Hour,
		Request: topupd.OrderRequest{PID: "b60", TrxID: "BURN-1", Fields: topupd.AccountFields{UserID: "5000001"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.ClaimDue(ctx, "w", f.now(), f.now().Add(time.Minute), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Settle(ctx, nil, o.Seq, topupd.Settlement{Status: topupd.StatusCompleted, Supplier: topupd.SupplierAccepted,
		SupplierRef: "up-1", Now: f.now(), LeaseOwner: "w"}); err != nil {
		t.Fatal(err)
	}
	if u := upstreamB(t, f); *u.Balance != -topupd.USD(10) || u.BalanceAlert != topupd.BalanceAlertCritical || u.Day != topupd.USD(20) {
		t.Fatalf("after an order of 20 on 10: balance %v, alert %s, day %v", u.Balance, u.BalanceAlert, u.Day)
	}
	w[0].SupplierRead("b", topupd.USD(10)) // a top-up: 12 hours at 20 a day
	if u := upstreamB(t, f); u.BalanceAlert != topupd.BalanceAlertWarn {
		t.Errorf("after a top-up to 12 hours: %s, want warn", u.BalanceAlert)
	}
	f.clock.Advance(23 * time.Hour)
	w[1].Look(ctx)
	if u := upstreamB(t, f); u.BalanceAlert != topupd.BalanceAlertWarn {
		t.Errorf("23 hours on: %s, want warn still", u.BalanceAlert)
	}
	f.clock.Advance(2 * time.Hour)
	w[1].Look(ctx)
	w[0].Look(ctx)
	if u := upstreamB(t, f); u.BalanceAlert != topupd.BalanceAlertNone {
		t.Errorf("the day's costs gone: %s, want none", u.BalanceAlert)
	}
	events, _, err := f.store.OperatorEvents(ctx, "", 100, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var got []topupd.EventType
	for _, e := range events {
		got = append(got, e.Type)
	}
	want := []topupd.EventType{topupd.SupplierBalanceCritical, topupd.SupplierBalanceWarn, topupd.SupplierBalanceRecovered}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("operator events %v, want %v", got, want)
	}
}

// TestWatchNightly: once reconcileAt has passed, each upstream's previous
// UTC day is reconciled once, by one node of two; a failure is told as
// reconciliation.failed; no reconcileAt, no run.
func TestWatchNightly(t *testing.T) {
	f, _, w := watchFixture(t)
	ctx := context.Background()
	var mu sync.Mutex
	var runs []string
	fail := false
	for _, x := range w {
		x.Nightly = func(_ context.Context, upstream string, p topupd.ReconPeriod) error {
			mu.Lock()
			defer mu.Unlock()
			runs = append(runs, upstream+" "+p.From.Format(time.DateOnly)+" "+p.To.Format(time.DateOnly))
			if fail {
				return errors.New("UPSTREAM_UNREACHABLE: no answer")
			}
			return nil
		}
	}
	now := f.clock.Now().UTC()
	next := now.Truncate(24 * time.Hour).Add(24*time.Hour + 2*time.Hour + 59*time.Minute) // 02:59 tomorrow
	f.clock.Advance(next.Sub(now))
	w[0].Look(ctx)
	if len(runs) != 0 {
		t.Fatalf("ran before 03:00: %v", runs)
	}
	f.clock.Advance(time.Minute)
	w[0].Look(ctx)
	w[1].Look(ctx)
	w[1].Look(ctx)
	yesterday := next.Truncate(24*time.Hour).AddDate(0, 0, -1).Format(time.DateOnly)
	if want := []string{"b " + yesterday + " " + yesterday}; fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("runs %v, want %v", runs, want)
	}
	fail = true
	f.clock.Advance(24 * time.Hour)
	w[1].Look(ctx)
	events, _, err := f.store.OperatorEvents(ctx, "", 100, time.Time{})
	if err != nil || len(events) != 1 || events[0].Type != topupd.ReconciliationFailed ||
		events[0].Data.(*topupd.ReconciliationFailedData).Supplier != "b" {
		t.Errorf("after a failed run: %d events (%v)", len(events), err)
	}
	never := ""
	if _, err := f.store.UpdateSettings(ctx, nil, topupd.SettingsPatch{ReconcileAt: &never}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(24 * time.Hour)
	w[0].Look(ctx)
	if len(runs) != 2 {
		t.Errorf("ran with reconcileAt null: %v", runs)
	}
}
