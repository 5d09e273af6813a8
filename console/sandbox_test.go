package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestSandboxInConsole: a support operator makes a sandbox key on the
// account's page and sees it marked in the key list; the order list holds
// live orders alone and its Sandbox tab the sandbox ones alone (a trxid
// used in both books finds the tab's own), each marked; a sandbox order's
// page says so, offers no codes to deliver, and cancelling it refunds the
// sandbox balance while the live one stays as it was.
func TestSandboxInConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.h.Settings(map[string]any{"simDelayMs": 86_400_000}) // a sandbox top-up waits for the operator
	sup := b.setUp("sup", "support")
	b.signIn(sup)
	a := b.h.NewAccount("10", nil)

	b.open("/console/accounts/" + a.ID)
	b.fill(map[string]string{"[name=label]": "ci"})
	b.do(chromedp.Click(chromedp.CSS("#key-sandbox")))
	b.click("#create-key")
	key := b.text("#api-key")
	b.h.Logs.Secret(key, "the sandbox key made in the console")
	if !strings.HasPrefix(key, "tpd_test_") || !strings.Contains(b.text("#new-key"), "a sandbox key") {
		t.Fatalf("the new key: %q, want a tpd_test_ key said to be a sandbox key", b.text("#new-key"))
	}
	keyRows, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#keys tbody tr")].map(r => r.cells[0].innerText + "|" + r.cells[1].innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, r := range keyRows {
		if strings.Contains(r, "sandbox") != strings.HasSuffix(r, "|ci") {
			t.Errorf("key row %q: only the ci key is a sandbox key", r)
		}
		if strings.Contains(r, "sandbox") {
			marked++
		}
	}
	if marked != 1 {
		t.Errorf("key rows %q: want the one sandbox key marked", keyRows)
	}

	sb := topupdtest.Account{ID: a.ID, Key: key}
	trx := b.h.Trx()
	pubg := map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123", "trxid": trx}
	liveID, sbID := b.h.Place(a, pubg).Str("orderId"), b.h.Place(sb, pubg).Str("orderId")

	rows := func() []string {
		t.Helper()
		got, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.orders tbody tr")].map(r => r.cells[1].innerText + " " + r.cells[3].querySelector(".acc-id").innerText + (r.cells[3].querySelector(".badge.sandbox") ? " sandbox" : ""))`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	b.open("/console/orders")
	if got := rows(); len(got) != 1 || got[0] != liveID+" "+a.ID {
		t.Errorf("the live order list: %q, want the live order alone", got)
	}
	b.click("#tab-sandbox")
	if got := rows(); len(got) != 1 || got[0] != sbID+" "+a.ID+" sandbox" {
		t.Errorf("the Sandbox tab: %q, want the sandbox order alone, marked", got)
	}
	b.fill(map[string]string{"#find": trx, "[name=account]": a.ID})
	b.click("form[role=search] button")
	if got := rows(); len(got) != 1 || !strings.HasPrefix(got[0], sbID) || !strings.Contains(b.url(), "sandbox=true") {
		t.Errorf("the trxid searched on the Sandbox tab (%s): %q, want the sandbox order", b.path(), got)
	}

	b.click("table.orders a[href^='/console/orders/']")
	if !b.has("#order-sandbox") || !b.has("#sandbox-note") || b.has("[name=codes]") {
		t.Errorf("a sandbox order's page: %q, want it marked sandbox, with no codes to deliver", b.text("main"))
	}
	b.confirm("#cancel")
	if got := b.text("#flash"); got != "The sandbox order is cancelled and 0.89 refunded to the sandbox balance." {
		t.Errorf("after cancelling: %q", got)
	}
	if got, live := b.h.Balance(sb), b.h.Balance(a); got != "1000" || live != "9.11" {
		t.Errorf("balances after the refund: sandbox %s, live %s; want 1000 and 9.11", got, live)
	}
	b.open("/console/orders/" + liveID)
	if b.has("#order-sandbox") {
		t.Errorf("the live order's page is marked sandbox")
	}
}
