package console_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOneMarginInTheConsole (back-office.md 4 (f)): yesterday two orders
// of a pack costing 4.00 (margin 0.90); today three top-ups of a pack
// without a cost, gift cards of codes without one (the operators' "Cost
// 0.00, Margin 20.40"), one of a batch at 9.50 (margin 0.70), and a
// refunded refusal. The console shows one margin everywhere:
//   - the dashboard's Today is 0.70 and its 30 days 1.60, each saying how
//     much revenue has no cost;
//   - the reports page, by every grouping, totals 1.60 (its rows' margins
//     add up to it), with the revenue without cost beside, and its CSV
//     download holds the page's rows and their total, last;
//   - today alone, the report's total is the dashboard's Today;
//   - the order page of the gift cards without a cost says "no cost" and
//     shows no margin; the one of the batch shows 9.50 and 0.70.
func TestOneMarginInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.LoadCatalog()
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubgBig, map[string]any{"costUsd": topupdtest.USD("4")})
	a := h.NewAccount("500", nil)
	place := func(body map[string]any, want string) string {
		t.Helper()
		body["trxid"] = h.Trx()
		r := h.Place(a, body)
		if got := r.Str("status"); got != want {
			t.Fatalf("an order of %v is %s, want %s: %v", body, got, want, r)
		}
		b.clock.Advance(time.Minute)
		return r.Str("orderId")
	}
	for range 2 {
		place(map[string]any{"pid": topupdtest.PIDPubgBig, "userId": "5123"}, "completed")
	}
	b.clock.Advance(24 * time.Hour)
	for range 3 {
		place(map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123"}, "completed")
	}
	place(map[string]any{"pid": topupdtest.PIDPubg, "userId": "99990001"}, "cancelled")
	gifts := place(map[string]any{"pid": topupdtest.PIDGift, "quantity": 2}, "completed") // 20.40, codes of no cost
	place(map[string]any{"pid": topupdtest.PIDGift, "quantity": 3}, "completed")          // 30.60, the last of them
	cost := topupdtest.ParseClientUSD(t, "9.5")
	if _, err := h.AdminClient.AddStockBatch(t.Context(), topupdtest.PIDGift, []string{"MARGIN-GIFT-1"}, client.StockUpload{CostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	batched := place(map[string]any{"pid": topupdtest.PIDGift, "quantity": 1}, "completed") // 10.20 at 9.50
	b.signIn(b.setUp("own", "owner"))

	t.Run("dashboard", func(t *testing.T) {
		b.open("/console/")
		for label, want := range map[string]string{"Today": "$0.70", "30 days": "$1.60"} {
			period := `#periods section[aria-label="` + label + `"] `
			if got := b.text(period + "dd.margin"); got != want {
				t.Errorf("%s: margin %q, want %q", label, got, want)
			}
			if got := b.text(period + ".costless .without-cost"); got != "$53.67" {
				t.Errorf("%s: revenue without cost %q, want $53.67", label, got)
			}
		}
	})

	t.Run("reports", func(t *testing.T) {
		for _, by := range []string{"day", "line", "pack", "account", "provider"} {
			b.open("/console/reports?groupBy=" + by)
			if got := b.text("#total-margin"); got != "$1.60" {
				t.Errorf("by %s: the total margin %q, want $1.60", by, got)
			}
			if got := b.text("#total-without-cost"); got != "$53.67" {
				t.Errorf("by %s: the total without cost %q, want $53.67", by, got)
			}
			margins, err := run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#report tbody td.margin")].map(e => e.innerText.trim())`))
			if err != nil || len(margins) == 0 {
				t.Fatalf("by %s: the rows' margins: %v %v", by, margins, err)
			}
			var sum topupd.Money
			for _, m := range margins {
				sum += dollarsOf(t, m)
			}
			if sum != topupd.USD(1)+6_000 {
				t.Errorf("by %s: the rows' margins %v add up to %s, not the total's 1.60", by, margins, sum.Dollars())
			}
			body, err := run(b, chromedp.Evaluate[string](`fetch(document.querySelector("#report-csv").href).then(r => r.text())`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
			if err != nil || len(rows) != len(margins)+2 {
				t.Fatalf("by %s: the CSV has %d lines (%v), want a header, %d rows and the total:\n%s", by, len(rows), err, len(margins), body)
			}
			col := map[string]int{}
			for i, name := range rows[0] {
				col[name] = i
			}
			for i, m := range margins {
				if got := topupdtest.ParseUSD(t, rows[i+1][col["marginUsd"]]); got != dollarsOf(t, m) {
					t.Errorf("by %s, row %d: the CSV's margin %s, the page's %s", by, i+1, got.Dollars(), m)
				}
			}
			last := rows[len(rows)-1]
			if last[col["key"]] != "total" || last[col["marginUsd"]] != "1.6" || last[col["revenueWithoutCostUsd"]] != "53.67" {
				t.Errorf("by %s: the CSV's last row %v, want the total: margin 1.6, without cost 53.67", by, last)
			}
		}
		today := b.clock.Now().UTC().Format(time.DateOnly)
		b.open("/console/reports?from=" + today + "&to=" + today)
		if got := b.text("#total-margin"); got != "$0.70" {
			t.Errorf("today's report: the total margin %q, want the dashboard's $0.70", got)
		}
	})

	t.Run("order", func(t *testing.T) {
		b.open("/console/orders/" + gifts)
		if got := b.text("#order-cost"); got != "no cost" {
			t.Errorf("the gift cards without a cost: cost %q, want \"no cost\"", got)
		}
		if b.has("#order-margin") {
			t.Errorf("the gift cards without a cost show a margin: %q", b.text("#order-margin"))
		}
		b.open("/console/orders/" + batched)
		if got, m := strings.TrimPrefix(b.text("#order-cost"), "$"), strings.TrimPrefix(b.text("#order-margin"), "$"); got != "9.50" || m != "0.70" {
			t.Errorf("the gift card of the batch: cost %q, margin %q; want 9.50, 0.70", got, m)
		}
	})
}

// dollarsOf reads an amount as the console writes it ("$1,234.56",
// "-$0.50").
func dollarsOf(t *testing.T, s string) topupd.Money {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	m := topupdtest.ParseUSD(t, strings.NewReplacer("-", "", "$", "", ",", "").Replace(s))
	if neg {
		return -m
	}
	return m
}
