package telegram

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Upstreams and WaitingFunds give the fake store's upstreams and parked
// orders to the supplier alerts.
func (f *fakeStore) Upstreams(context.Context) ([]topupd.Upstream, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]topupd.Upstream(nil), f.upstreams...), nil
}

func (f *fakeStore) WaitingFunds(context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting, nil
}

// TestSupplierAlerts: a balance alert is keyed by its level (warn and
// critical are two alerts, so a rise tells the new level), a failing
// upstream raises the same alert as this node's health does, orders
// waiting for funds raise one alert, and nothing else raises any.
func TestSupplierAlerts(t *testing.T) {
	money := func(usd int64) *topupd.Money { m := topupd.USD(usd); return &m }
	tests := []struct {
		name      string
		upstreams []topupd.Upstream
		waiting   int
		want      map[string]string
	}{
		{"quiet", []topupd.Upstream{{Name: "b", State: topupd.UpstreamOK, Balance: money(5), BalanceAlert: topupd.BalanceAlertNone},
			{Name: "c", State: topupd.UpstreamUnchecked}}, 0, map[string]string{}},
		{"warn", []topupd.Upstream{{Name: "b", State: topupd.UpstreamOK, BalanceAlert: topupd.BalanceAlertWarn}}, 0, map[string]string{
			"supplier-balance:b:warn": "supplier upstream b's balance is low (warn): see /suppliers."}},
		{"critical", []topupd.Upstream{{Name: "b", State: topupd.UpstreamOK, BalanceAlert: topupd.BalanceAlertCritical}}, 0, map[string]string{
			"supplier-balance:b:critical": "supplier upstream b's balance is low (critical): see /suppliers."}},
		{"failing", []topupd.Upstream{{Name: "b", State: topupd.UpstreamFailing, BalanceAlert: topupd.BalanceAlertNone}}, 0, map[string]string{
			supplierAlertKey(topupd.ProviderUpstream, "b"): "supplier upstream (b) is failing or needs you (see /stuck)."}},
		{"waiting", nil, 2, map[string]string{"waiting-funds": "orders are waiting for supplier funds (see /stuck)."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnitBot(t)
			u.store.upstreams, u.store.waiting = tt.upstreams, tt.waiting
			got := map[string]string{}
			if err := (&watcher{b: u.bot}).supplierAlerts(t.Context(), service.RootActor("test"), got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("supplier alerts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSupplierLine: a known balance with a burn shows its runway; an
// unknown one shows neither.
func TestSupplierLine(t *testing.T) {
	bal := topupd.USD(10)
	for _, tt := range []struct {
		u    topupd.Upstream
		want string
	}{
		{topupd.Upstream{Name: "b", Balance: &bal, Day: topupd.USD(48), BalanceAlert: topupd.BalanceAlertWarn, State: topupd.UpstreamOK},
			"b: balance 10.00 USD, runway 5.0 h, balanceAlert warn, state ok"},
		{topupd.Upstream{Name: "c", State: topupd.UpstreamUnchecked}, "c: balance unknown, runway —, balanceAlert none, state unchecked"},
	} {
		if got := supplierLine(&tt.u); got != tt.want {
			t.Errorf("supplierLine(%s) = %q, want %q", tt.u.Name, got, tt.want)
		}
	}
}
