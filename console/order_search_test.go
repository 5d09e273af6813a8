package console_test

import (
	"encoding/csv"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOrderSearch: the orders list finds orders by the player's id, by a
// trxid's start in any case, and by an account's name (several matches
// offer a choice); it shows account names; and its CSV export holds the
// filtered list with money as exact decimals and a formula-like cell quoted.
func TestOrderSearch(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.signIn(b.setUp("sup", "support"))
	acme, two := b.h.NewAccount("100", nil), b.h.NewAccount("100", nil)
	b.h.PatchAccount(acme, map[string]any{"name": "=Acme Games"})
	b.h.PatchAccount(two, map[string]any{"name": "Acme Games Two"})
	place := func(a topupdtest.Account, trx, player string) string {
		return b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": player, "trxid": trx}).Str("orderId")
	}
	o1 := place(acme, "Shop-ABC-1", "51231")
	o2 := place(acme, "shop-abc-2", "51232")
	o3 := place(two, "Other-1", "51231")

	search := func(fields map[string]string) []string {
		t.Helper()
		b.open("/console/orders")
		b.fill(fields)
		b.click("form[role=search] button")
		got, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.orders tbody tr")].filter(r => r.cells.length > 1).map(r => r.cells[1].innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got
	}
	want := func(ids ...string) []string { slices.Sort(ids); return ids }

	t.Run("ByPlayer", func(t *testing.T) {
		if got := search(map[string]string{"#player": "51231"}); !slices.Equal(got, want(o1, o3)) {
			t.Errorf("player 51231: %v, want %v", got, want(o1, o3))
		}
	})
	t.Run("ByTrxidPrefixAnyCase", func(t *testing.T) {
		if got := search(map[string]string{"#find": "SHOP-abc"}); !slices.Equal(got, want(o1, o2)) {
			t.Errorf("trxid SHOP-abc: %v, want %v", got, want(o1, o2))
		}
		if got := search(map[string]string{"#find": "SHOP-ABC-2"}); !slices.Equal(got, want(o2)) {
			t.Errorf("trxid SHOP-ABC-2: %v, want %v", got, want(o2))
		}
	})
	t.Run("ByAccountName", func(t *testing.T) {
		if got := search(map[string]string{"[name=account]": "acme games two"}); !slices.Equal(got, want(o3)) {
			t.Errorf("account acme games two: %v, want %v", got, want(o3))
		}
		search(map[string]string{"[name=account]": "acme"})
		choices, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#account-choices a")].map(a => a.innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(choices)
		if !slices.Equal(choices, []string{"=Acme Games", "Acme Games Two"}) {
			t.Errorf("account acme: choices %q, want both accounts", choices)
		}
	})
	t.Run("NamesShown", func(t *testing.T) {
		b.open("/console/orders")
		topupdtest.Screenshot(t, b.ctx, "console-orders-search.png")
		names, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.orders tbody tr")].map(r => r.cells[1].innerText + " " + r.cells[3].innerText)`))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			id, _, _ := strings.Cut(n, " ")
			if wantName := map[string]string{o1: "=Acme Games", o2: "=Acme Games", o3: "Acme Games Two"}[id]; !strings.Contains(n, wantName) {
				t.Errorf("row %q does not name its account %q", n, wantName)
			}
		}
	})
	t.Run("CSV", func(t *testing.T) {
		b.open("/console/orders?account=" + acme.ID)
		if !b.has("#orders-csv") {
			t.Fatal("no CSV link on the orders list")
		}
		body, err := run(b, chromedp.Evaluate[string](`fetch(document.querySelector("#orders-csv").href).then(r => r.text())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("the CSV (%v): %q, want a header and acme's 2 orders", err, body)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		for _, r := range rows[1:] {
			if r[col["accountId"]] != acme.ID || r[col["accountName"]] != "'=Acme Games" {
				t.Errorf("row %q: want acme's, its name quoted as '=Acme Games", r)
			}
			if !regexp.MustCompile(`^[0-9]+\.[0-9]{2}$`).MatchString(r[col["amountUsd"]]) {
				t.Errorf("row %q: amount %q is not an exact decimal", r, r[col["amountUsd"]])
			}
		}
	})
}
