package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// upstreamNow reads an upstream as stored.
func upstreamNow(t *testing.T, h *topupdtest.T, name string) topupd.Upstream {
	t.Helper()
	u, err := h.Store.Upstream(context.Background(), name)
	if err != nil {
		t.Fatalf("reading upstream %s: %v", name, err)
	}
	return u
}

// depositsNow reads an upstream's deposits as stored, newest first.
func depositsNow(t *testing.T, h *topupdtest.T, name string) []topupd.UpstreamDeposit {
	t.Helper()
	list, err := h.Store.UpstreamDeposits(context.Background(), topupd.UpstreamDepositsQuery{Upstream: name, Limit: 100})
	if err != nil {
		t.Fatalf("reading the deposits of %s: %v", name, err)
	}
	return list
}

// TestUpstreamAlertsOnTheDashboard: on a server with no other alert, the
// dashboard says "No alerts" until an upstream runs dry; then it lists
// that upstream as critical with its balance, and says "No alerts" again
// once a read shows money there. An upstream whose last call failed is
// listed as failing; one never checked is never listed.
func TestUpstreamAlertsOnTheDashboard(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.Settings(map[string]any{"upstreamBalancePollMinutes": 0}) // only the test's reads
	for _, name := range []string{"solo", "quiet"} {
		b.h.AdminCall("PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-" + name, "check": false}, nil)
	}
	b.signIn(b.setUp("vic", "viewer"))
	ctx := context.Background()

	b.open("/console/")
	if !b.has("#no-alerts") || b.has("#upstream-alerts") {
		t.Fatalf("no upstream alerting, but the dashboard says: %q", b.page())
	}

	if err := b.h.Store.RecordSupplierDry(ctx, "solo", b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if u := upstreamNow(t, b.h, "solo"); u.BalanceAlert != topupd.BalanceAlertCritical {
		t.Fatalf("a dry upstream's balance alert is %q, want critical", u.BalanceAlert)
	}
	b.open("/console/")
	if b.has("#no-alerts") {
		t.Errorf("a dry upstream, and the dashboard says %q", b.text("#no-alerts"))
	}
	got := b.text("#upstream-alerts")
	if want := "solo: balance alert critical, state ok; our balance there 0.00, runway —"; got != want {
		t.Errorf("the upstream alerts: %q, want %q", got, want)
	}
	if strings.Contains(got, "quiet") {
		t.Errorf("an upstream never checked is listed: %q", got)
	}

	// A top-up: the level falls to what the read calls for (none: no burn).
	if _, err := b.h.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: "solo", Balance: topupd.USD(100), At: b.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	b.open("/console/")
	if !b.has("#no-alerts") || b.has("#upstream-alerts") {
		t.Errorf("after a top-up the dashboard says: %q", b.page())
	}

	if err := b.h.Store.RecordSupplierCall(ctx, "solo", false, b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	b.open("/console/")
	if !b.has("#upstream-alert-solo") {
		t.Fatalf("a failing upstream is not listed: %q", b.page())
	}
	if want, got := "solo: balance alert none, state failing; our balance there 100.00, runway —", b.text("#upstream-alert-solo"); got != want {
		t.Errorf("a failing upstream: %q, want %q", got, want)
	}
	if b.has("#no-alerts") {
		t.Errorf("a failing upstream, and the dashboard says %q", b.text("#no-alerts"))
	}
}

// TestSuppliersMoneyInTheConsole: an upstream whose orders cost $2.40 in
// the last 24 hours burns $0.10 an hour; with $1.00 there its runway is
// 10.0 hours and its balance alert warn, which the suppliers page shows
// and the dashboard lists, with a dry upstream as critical and the order
// waiting for its funds (linked to its page). The owner changes the
// thresholds and records deposits through the page's forms; refused
// values show the form again, in plain words, and store nothing.
func TestSuppliersMoneyInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.h.Settings(map[string]any{"upstreamBalancePollMinutes": 0}) // only the test's reads
	up := topupdtest.New(t)
	up.LoadCatalog()
	ours := up.NewAccount("10", nil)
	b.h.Logs.Secret(ours.Key, "our key at the upstream")
	b.h.AdminCall("PUT", "/admin/upstreams/real", map[string]any{"baseUrl": up.API.URL, "apiKey": ours.Key}, nil)
	b.h.AdminCall("PUT", "/admin/upstreams/dry", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-dry", "check": false}, nil)
	b.h.AdminCall("PUT", "/admin/upstreams/quiet", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-quiet", "check": false}, nil)
	for _, p := range []struct{ pid, upstream, upstreamPid string }{{"via-real", "real", topupdtest.PIDPubg}, {"via-dry", "dry", "x"}} {
		b.h.PutPack(p.pid, map[string]any{"slug": "pubg", "name": "60 UC, " + p.upstream, "priceUsd": topupdtest.USD("1.5"), "status": "active",
			"suppliers": []any{map[string]any{"provider": "upstream", "upstream": p.upstream, "upstreamPid": p.upstreamPid, "costUsd": topupdtest.USD("0.8")}}})
	}
	a := b.h.NewAccount("20", nil)
	for range 3 {
		id := b.h.Place(a, map[string]any{"pid": "via-real", "userId": "5123456", "trxid": b.h.Trx()}).Str("orderId")
		if r := b.h.WaitOrder(a, id); r.Str("status") != "completed" {
			t.Fatalf("an order at the real upstream: %v", r)
		}
	}
	ctx := context.Background()
	if _, err := b.h.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: "real", Balance: topupd.USD(1), At: b.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := b.h.Store.RecordSupplierDry(ctx, "dry", b.clock.Now()); err != nil {
		t.Fatal(err)
	}
	parked := b.h.Place(a, map[string]any{"pid": "via-dry", "userId": "5123456", "trxid": b.h.Trx()}).Str("orderId")
	waitForAlert(t, b.h, a.ID, parked, topupd.AlertWaitingFunds)
	if u := upstreamNow(t, b.h, "real"); u.BalanceAlert != topupd.BalanceAlertWarn || u.Day != money(t, "2.40") {
		t.Fatalf("the real upstream: alert %q, day %s; want warn and 2.40", u.BalanceAlert, u.Day.Dollars())
	}
	b.signIn(b.setUp("own", "owner"))

	t.Run("figures", func(t *testing.T) {
		b.t = t
		b.open("/console/suppliers")
		for sel, want := range map[string]string{
			"#funds-balance-real": "1.00", "#burn-real": "0.10", "#runway-real": "10.0 h", "#balance-alert-real": "warn", "#funds-state-real": "ok",
			"#warn-hours-real": "24 h", "#critical-hours-real": "4 h",
			"#funds-balance-dry": "0.00", "#burn-dry": "0.00", "#runway-dry": "—", "#balance-alert-dry": "critical", "#funds-state-dry": "ok",
			"#funds-balance-quiet": "—", "#funds-at-quiet": "—", "#runway-quiet": "—", "#balance-alert-quiet": "none", "#funds-state-quiet": "unchecked",
		} {
			if got := b.text(sel); got != want {
				t.Errorf("%s: %q, want %q", sel, got, want)
			}
		}
		if got := b.text("#funds-at-real"); got == "—" || !strings.Contains(got, b.clock.Now().UTC().Format(time.DateOnly)) {
			t.Errorf("when real's balance was learned: %q", got)
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		b.t = t
		b.open("/console/")
		for sel, want := range map[string]string{
			"#upstream-alert-real": "real: balance alert warn, state ok; our balance there 1.00, runway 10.0 h",
			"#upstream-alert-dry":  "dry: balance alert critical, state ok; our balance there 0.00, runway —",
		} {
			if got := b.text(sel); got != want {
				t.Errorf("%s: %q, want %q", sel, got, want)
			}
		}
		if b.has("#upstream-alert-quiet") {
			t.Errorf("an upstream that needs nothing is listed: %q", b.text("#upstream-alerts"))
		}
		if got := b.text("#waiting-funds"); strings.Count(got, "placed") != 1 || !strings.Contains(got, parked) {
			t.Errorf("the orders waiting for funds: %q, want %s alone", got, parked)
		}
		b.click(`#waiting-funds a[href="/console/orders/` + parked + `"]`)
		if got := b.path(); got != "/console/orders/"+parked {
			t.Errorf("the waiting order's link goes to %s", got)
		}
	})

	t.Run("thresholds", func(t *testing.T) {
		b.t = t
		for _, c := range []struct{ warn, critical, field string }{{"8", "9", "critical"}, {"12", "soon", "critical"}, {"-1", "2", "warn"}} {
			b.open("/console/suppliers")
			b.fill(map[string]string{"#warn-real": c.warn, "#critical-real": c.critical})
			b.click("#save-thresholds-real")
			plain(t, "thresholds "+c.warn+" and "+c.critical, b.fieldError(c.field+"-real"))
			if got := b.value("#critical-real"); got != c.critical {
				t.Errorf("the critical field after the refusal: %q, want %q", got, c.critical)
			}
			if got := b.value("#warn-dry"); got != "24" {
				t.Errorf("another upstream's warning field after the refusal: %q", got)
			}
			if u := upstreamNow(t, b.h, "real"); u.WarnHours != 24 || u.CriticalHours != 4 {
				t.Errorf("refused thresholds stored: %v and %v", u.WarnHours, u.CriticalHours)
			}
		}
		b.open("/console/suppliers")
		b.fill(map[string]string{"#warn-real": "12", "#critical-real": "2.5"})
		b.click("#save-thresholds-real")
		plain(t, "thresholds saved", b.text("#flash"))
		if u := upstreamNow(t, b.h, "real"); u.WarnHours != 12 || u.CriticalHours != 2.5 {
			t.Errorf("thresholds stored: %v and %v, want 12 and 2.5", u.WarnHours, u.CriticalHours)
		}
		if got, crit := b.text("#warn-hours-real"), b.value("#critical-real"); got != "12 h" || crit != "2.5" {
			t.Errorf("the page shows %q and a critical field of %q", got, crit)
		}
		if u := upstreamNow(t, b.h, "dry"); u.WarnHours != 24 || u.CriticalHours != 4 {
			t.Errorf("another upstream's thresholds changed: %v and %v", u.WarnHours, u.CriticalHours)
		}
	})

	t.Run("deposits", func(t *testing.T) {
		b.t = t
		now := b.clock.Now().UTC()
		b.open("/console/suppliers")
		if got := b.text("#deposits-real tbody"); got != "No deposit recorded." {
			t.Errorf("before any deposit: %q", got)
		}
		for _, c := range []struct{ amount, at, field string }{{"12.345", "", "deposit-amount"}, {"0", "", "deposit-amount"},
			{"50", now.AddDate(0, 0, 1).Format(time.DateOnly), "deposit-at"}} {
			b.open("/console/suppliers")
			b.fill(map[string]string{"#deposit-amount-real": c.amount, "#deposit-reference-real": "WIRE-X", "#deposit-at-real": c.at})
			b.click("#record-deposit-real")
			plain(t, "a deposit of "+c.amount+" on "+c.at, b.fieldError(c.field+"-real"))
			if got := b.value("#deposit-amount-real"); got != c.amount {
				t.Errorf("the amount field after the refusal: %q, want %q", got, c.amount)
			}
		}
		if got := depositsNow(t, b.h, "real"); len(got) != 0 {
			t.Fatalf("refused deposits stored: %+v", got)
		}
		earlier := now.AddDate(0, 0, -3).Truncate(24 * time.Hour)
		for _, d := range []struct{ amount, ref, at string }{{"1,250.50", "WIRE-1", ""}, {"40", "WIRE-0", earlier.Format(time.DateOnly)}} {
			b.open("/console/suppliers")
			b.fill(map[string]string{"#deposit-amount-real": d.amount, "#deposit-reference-real": d.ref, "#deposit-at-real": d.at})
			b.click("#record-deposit-real")
			plain(t, "deposit "+d.ref, b.text("#flash"))
		}
		b.fill(map[string]string{"#deposit-amount-real": "99", "#deposit-reference-real": "WIRE-1"})
		b.click("#record-deposit-real")
		if got := b.text("#flash"); !strings.Contains(got, "nothing was recorded again") {
			t.Errorf("a reference recorded before: %q", got)
		}
		got := depositsNow(t, b.h, "real")
		if len(got) != 2 {
			t.Fatalf("deposits stored: %+v, want 2", got)
		}
		if d := got[0]; d.Amount != money(t, "1250.50") || d.Reference != "WIRE-1" || d.Operator != "own" || !d.At.Equal(now.Truncate(time.Millisecond)) {
			t.Errorf("the first deposit: %+v", d)
		}
		if d := got[1]; d.Amount != topupd.USD(40) || d.Reference != "WIRE-0" || !d.At.Equal(earlier) {
			t.Errorf("the dated deposit: %+v, want sent at %s", d, earlier)
		}
		rows := b.text("#deposits-real tbody")
		if i, j := strings.Index(rows, "WIRE-1"), strings.Index(rows, "WIRE-0"); i < 0 || j < i || !strings.Contains(rows, "$1,250.50") ||
			!strings.Contains(rows, "$40.00") || strings.Contains(rows, "99") {
			t.Errorf("the deposits listed: %q, want WIRE-1 ($1,250.50) above WIRE-0 ($40.00)", rows)
		}
		if got := b.text("#deposits-dry tbody"); got != "No deposit recorded." {
			t.Errorf("another upstream's deposits: %q", got)
		}
		b.shots("console-supplier-money")
		b.open("/console/")
		b.shots("console-dashboard-funds")
	})
}

// money is an amount in dollars.
func money(t *testing.T, dollars string) topupd.Money {
	t.Helper()
	m, err := topupd.ParseMoney(dollars)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// waitForAlert waits until an order of account carries alert (read from
// the store).
func waitForAlert(t *testing.T, h *topupdtest.T, account, id, alert string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		o, err := h.Store.Order(context.Background(), account, id)
		if err == nil && o.Alert == alert {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s: %+v, %v; want the alert %q", id, o, err, alert)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSupplierMoneyRoles: finance records deposits but may not change an
// upstream's thresholds; support may do neither; each refusal is a 403
// that changes nothing.
func TestSupplierMoneyRoles(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.AdminCall("PUT", "/admin/upstreams/up", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-up", "check": false}, nil)
	fin, sup := consoleAs(t, h, "fin", "finance"), consoleAs(t, h, "sup", "support")
	deposit := url.Values{"amountUsd": {"10"}, "reference": {"R-1"}, "upstream": {"up"}}
	thresholds := url.Values{"warnHours": {"10"}, "criticalHours": {"1"}, "upstream": {"up"}}
	if status, page := sup("POST", "/console/suppliers/upstreams/up/deposits", deposit); status != http.StatusForbidden {
		t.Errorf("support recording a deposit: %d %s", status, page)
	}
	for name, call := range map[string]func(string, string, url.Values) (int, string){"finance": fin, "support": sup} {
		if status, page := call("POST", "/console/suppliers/upstreams/up/thresholds", thresholds); status != http.StatusForbidden {
			t.Errorf("%s changing thresholds: %d %s", name, status, page)
		}
	}
	if u := upstreamNow(t, h, "up"); u.WarnHours != 24 || u.CriticalHours != 4 {
		t.Errorf("thresholds after the refusals: %v and %v", u.WarnHours, u.CriticalHours)
	}
	if got := depositsNow(t, h, "up"); len(got) != 0 {
		t.Errorf("deposits after support's refusal: %+v", got)
	}
	if status, page := fin("POST", "/console/suppliers/upstreams/up/deposits", deposit); status != http.StatusSeeOther {
		t.Errorf("finance recording a deposit: %d %s", status, page)
	}
	if got := depositsNow(t, h, "up"); len(got) != 1 || got[0].Operator != "fin" || got[0].Amount != topupd.USD(10) {
		t.Errorf("finance's deposit: %+v", got)
	}
	if status, page := fin("POST", "/console/suppliers/upstreams/nobody/deposits", deposit); status != http.StatusNotFound {
		t.Errorf("a deposit to an unknown upstream: %d %s", status, page)
	}
	status, page := fin("GET", "/console/suppliers", nil)
	if status != http.StatusOK || !strings.Contains(page, "R-1") || strings.Contains(page, `id="thresholds-form-up"`) || !strings.Contains(page, `id="deposit-form-up"`) {
		t.Errorf("the suppliers page for finance: %d, a deposit form and no thresholds form wanted", status)
	}
}
