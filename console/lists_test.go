package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOrderPaging: the orders of one account, 50 a page, newest first; the
// link to the next page keeps the filter, and the two pages hold each of
// the account's orders once and no other account's.
func TestOrderPaging(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	v := b.setUp("vic", "viewer")
	b.signIn(v)
	b.h.AddStock(topupdtest.PIDKey, 60)
	a, other := b.h.NewAccount("100", nil), b.h.NewAccount("100", nil)
	want := map[string]bool{}
	for i := range 62 {
		who := a
		if i%10 == 9 {
			who = other
		}
		r := b.h.Place(who, map[string]any{"pid": topupdtest.PIDKey, "trxid": b.h.Trx()})
		if who == a {
			want[r.Str("orderId")] = true
		}
	}
	b.open("/console/orders")
	b.fill(map[string]string{"[name=account]": a.ID})
	b.click("form[role=search] button")
	seen := map[string]bool{}
	read := func() int {
		rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.orders tbody tr")].map(r => r.cells[1].innerText + " " + r.cells[3].querySelector(".acc-id").innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			id, acc, _ := strings.Cut(r, " ")
			if acc != a.ID || !want[id] || seen[id] {
				t.Errorf("row %q: another account's, unknown or seen before", r)
			}
			seen[id] = true
		}
		return len(rows)
	}
	if n := read(); n != 50 {
		t.Errorf("the first page: %d rows", n)
	}
	b.click("#next-page")
	if n := read(); n != len(want)-50 {
		t.Errorf("the second page: %d rows, want %d", n, len(want)-50)
	}
	if b.has("#next-page") || len(seen) != len(want) {
		t.Errorf("after the last page: a next link %v; %d of %d orders seen", b.has("#next-page"), len(seen), len(want))
	}
}

// TestKeyboard: the first Tab reaches the skip link, and a credit is made
// with the keyboard alone (typing, then Enter in the form).
func TestKeyboard(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	f := b.setUp("fin", "finance")
	b.signIn(f)
	a := b.h.NewAccount("", nil)
	b.open("/console/accounts/" + a.ID)
	b.do(chromedp.KeyEvent("\t"))
	focused, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement.textContent`))
	if err != nil || focused != "Skip to the page" {
		t.Errorf("the first Tab focuses %q (%v)", focused, err)
	}
	b.do(chromedp.Focus(chromedp.CSS("[name=amount]")), chromedp.KeyEvent("12.5\t"), chromedp.KeyEvent("kb-1"))
	ctx := b.ctx
	if _, err := chromedp.RunResponse(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	if got := b.text("#flash"); got != "Credited $12.50; the balance is $12.50." {
		t.Errorf("a credit by keyboard: %q", got)
	}
}
