package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestAccountPageLinks: an account's page pages its ledger back past the
// newest 50 entries (every entry seen once, the first credit last), links
// to the orders list of that account alone, and shows the chat link code
// button near its header, on the first screen.
func TestAccountPageLinks(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.signIn(b.setUp("sup", "support"))
	a := b.h.NewAccount("10", nil)
	for range 60 {
		b.h.Credit(a, "1")
	}
	ledger := func() []string {
		t.Helper()
		got, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#ledger tbody tr")].map(r => r.innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t.Run("LedgerPages", func(t *testing.T) {
		b.open("/console/accounts/" + a.ID)
		first := ledger()
		if !b.has("#ledger-older") {
			t.Fatalf("the ledger's first page: %d rows and no link to older entries", len(first))
		}
		if len(first) != 50 || !b.has("#ledger-older") {
			t.Fatalf("the ledger's first page: %d rows, older link %v; want 50 and a link", len(first), b.has("#ledger-older"))
		}
		b.click("#ledger-older")
		older := ledger()
		if len(older) != 11 || b.has("#ledger-older") || !b.has("#ledger-newest") {
			t.Fatalf("the older page: %d rows, older link %v, newest link %v; want 11, none, one", len(older), b.has("#ledger-older"), b.has("#ledger-newest"))
		}
		seen := map[string]bool{}
		for _, r := range append(first, older...) {
			if seen[r] {
				t.Errorf("entry %q shown twice", r)
			}
			seen[r] = true
		}
		if last := older[len(older)-1]; !strings.Contains(last, "credit\t10.00\t10.00") {
			t.Errorf("the oldest entry %q, want the first credit of 10.00", last)
		}
		b.click("#ledger-newest")
		if got := ledger(); len(got) != 50 || got[0] != first[0] {
			t.Errorf("back to the newest: %d rows, first %q", len(got), got[0])
		}
	})

	t.Run("OrdersLink", func(t *testing.T) {
		b.open("/console/accounts/" + a.ID)
		if !b.has("#account-orders") {
			t.Fatal("no link to the account's orders")
		}
		b.click("#account-orders")
		if want := "/console/orders?account=" + a.ID; b.path() != want {
			t.Errorf("the orders link went to %s, want %s", b.path(), want)
		}
	})

	t.Run("ChatLinkOnFirstScreen", func(t *testing.T) {
		b.open("/console/accounts/" + a.ID)
		bottom, err := run(b, chromedp.Evaluate[float64](`(() => { const e = document.querySelector("#new-chat-link"); return e ? e.getBoundingClientRect().bottom : 1e9; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if bottom > 800 {
			t.Errorf("the chat link button ends %v px down, below the first screen of 800 px", bottom)
		}
		topupdtest.Screenshot(t, b.ctx, "console-account-top.png")
		b.click("#new-chat-link")
		if code := b.text("#chat-code"); code == "" {
			t.Error("no chat link code shown")
		}
	})
}
