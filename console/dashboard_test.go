package console_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/console"
	"github.com/topupd/topupd/internal/testing/benchdata"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDashboardFigures: over 20,000 orders of the last 40 days, the
// dashboard's order counts for today, 7 and 30 days are what was written
// in those days, and each line has its times to a final state. At phone
// width no page is wider than the screen (tables scroll in their box).
// It saves the dashboard's screenshots.
func TestDashboardFigures(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	var accounts []string
	for range 5 {
		accounts = append(accounts, b.h.NewAccount("250", nil).ID)
	}
	db, err := sql.Open("sqlite", "file:"+b.h.DB+"?_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := b.clock.Now().UTC()
	if now.Add(15*time.Minute).Day() != now.Day() {
		// Signing in moves the clock on: keep the whole test in one UTC day.
		b.clock.Advance(20 * time.Minute)
		now = b.clock.Now().UTC()
	}
	seed := benchdata.Orders{N: 20_000, From: now.AddDate(0, 0, -40), To: now, Accounts: accounts}
	if err := benchdata.Seed(context.Background(), db, seed); err != nil {
		t.Fatal(err)
	}
	today := now.Truncate(24 * time.Hour)
	want, margin := map[string]int{}, map[string]topupd.Money{}
	step := seed.To.Sub(seed.From) / time.Duration(seed.N)
	for i := range seed.N {
		at := seed.From.Add(time.Duration(i) * step)
		for _, p := range []struct {
			label string
			days  int
		}{{"Today", 1}, {"7 days", 7}, {"30 days", 30}} {
			if !at.Before(today.AddDate(0, 0, 1-p.days)) {
				want[p.label]++
				if i%20 > 2 { // completed: charged 10,000 + 100·pack, cost 8,000 + 80·pack
					margin[p.label] += topupd.Money(2_000 + 20*(i%20))
				}
			}
		}
	}
	own := b.setUp("own", "owner")
	b.signIn(own)
	b.open("/console/")
	for label, n := range want {
		got := b.text(`#periods section[aria-label="` + label + `"] dd`)
		if got != strconv.Itoa(n) {
			t.Errorf("%s: %s orders, want %d", label, got, n)
		}
		if got := b.text(`#periods section[aria-label="` + label + `"] dd.margin`); got != console.USDText(margin[label]) {
			t.Errorf("%s: margin %s, want %s", label, got, console.USDText(margin[label]))
		}
	}
	if got := b.text("#durations tbody"); strings.Count(got, "line-") != 4 || !strings.Contains(got, "min") {
		t.Errorf("times to a final state: %q", got)
	}
	topupdtest.Screenshot(t, b.ctx, "console-dashboard.png")

	b.do(chromedp.EmulateViewport(390, 844))
	for _, path := range []string{"/console/", "/console/orders", "/console/accounts", "/console/accounts/" + accounts[0], "/console/disputes", "/console/catalog",
		"/console/stock", "/console/suppliers", "/console/reports", "/console/operators", "/console/actions", "/console/settings"} {
		b.open(path)
		// Wide until its style sheet has loaded: a page still wide once
		// everything it loads has loaded is wider than the screen.
		wide, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`new Promise(done => {
			const check = () => done(document.documentElement.scrollWidth > window.innerWidth);
			document.readyState === "complete" ? check() : window.addEventListener("load", check);
		})`, chromedp.EvalAwaitPromise))
		if err != nil || wide {
			t.Errorf("%s at phone width: wider than the screen (%v)", path, err)
		}
	}
	b.open("/console/")
	topupdtest.Screenshot(t, b.ctx, "console-phone.png")
}
