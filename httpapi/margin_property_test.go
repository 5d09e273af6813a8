package httpapi_test

import (
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// marginPacks are the packs the random reports sell, with their prices in
// cents: sim top-ups (completed, or refused and refunded), a manual one
// (completed, cancelled with or without a refund, or left processing) and
// two that draw codes from stock.
var marginPacks = []struct {
	pid   string
	cents int
	stock bool
}{
	{topupdtest.PIDPubg, 89, false}, {topupdtest.PIDPubgBig, 445, false},
	{topupdtest.PIDPubgManual, 200, false}, {topupdtest.PIDGift, 1020, true}, {topupdtest.PIDKey, 120, true},
}

// TestMarginProperties, on SQLite and PostgreSQL: random reports. Each
// round, from its own seed, places about sixty orders of three accounts
// over several days, of packs whose cost is set, changed and cleared at
// random (so that an order's cost is known or not as it completes), of
// stock uploaded in batches with a cost or without, completed, refused and
// refunded, cancelled with and without a refund, or left processing. After
// each round, for every grouping, over the whole run, its whole days and
// random spans that start and end inside days: the total row is the sum of
// the rows in every count and amount, each row's margin is its revenue
// less its revenue without cost less its cost, the CSV equals the JSON
// (checkSales), and the rows are what a count of the orders says.
func TestMarginProperties(t *testing.T) {
	t.Parallel()
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		clock := topupdtest.NewClock()
		h := topupdtest.New(t, append(db, topupdtest.WithClock(clock))...)
		h.LoadCatalog()
		stock := map[string]int{topupdtest.PIDGift: 5, topupdtest.PIDKey: topupdtest.KeyStock}
		accounts := []topupdtest.Account{h.NewAccount("5000", nil), h.NewAccount("5000", nil), h.NewAccount("5000", nil)}
		first := clock.Now()
		for _, seed := range []uint64{1, 2, 3} {
			ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
				randomOrders(t, h, clock, mrand.New(mrand.NewPCG(seed, 42)), accounts, stock)
				checkRandomReports(t, h, mrand.New(mrand.NewPCG(seed, 43)), first, clock.Now().Add(time.Minute))
			})
			if !ok {
				return
			}
		}
	})
}

// randomOrders places one round of random orders, moving the clock on
// between them, and settles them at random; stock tells how many codes
// each stock pack has left, and is kept up to date.
func randomOrders(t *testing.T, h *topupdtest.T, clock *topupdtest.Clock, rng *mrand.Rand, accounts []topupdtest.Account, stock map[string]int) {
	cents := func(n int) string { return fmt.Sprintf("%d.%02d", n/100, n%100) }
	var waits []func()
	for range 55 + rng.IntN(10) {
		clock.Advance(time.Duration(rng.IntN(6*60)) * time.Minute)
		p := marginPacks[rng.IntN(len(marginPacks))]
		if rng.IntN(5) == 0 { // the pack's cost changes: set, or cleared (0)
			cost := "0"
			if rng.IntN(3) > 0 {
				cost = cents(p.cents * (1 + rng.IntN(9)) / 10)
			}
			h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+p.pid, map[string]any{"costUsd": topupdtest.USD(cost)})
		}
		acc := accounts[rng.IntN(len(accounts))]
		body := map[string]any{"pid": p.pid, "trxid": h.Trx()}
		switch {
		case p.stock:
			qty := 1 + rng.IntN(3)
			for stock[p.pid] < qty+rng.IntN(2) { // a batch, with a cost of its own or none
				n := 1 + rng.IntN(4)
				codes := make([]string, n)
				for i := range codes {
					codes[i] = fmt.Sprintf("PROP-%s-%d", p.pid, rng.Uint64())
				}
				u := client.StockUpload{}
				if rng.IntN(2) == 0 {
					c := topupdtest.ParseClientUSD(t, cents(p.cents*rng.IntN(10)/10))
					u.CostUSD = &c
				}
				if _, err := h.AdminClient.AddStockBatch(t.Context(), p.pid, codes, u); err != nil {
					t.Fatalf("uploading %d codes to %s: %v", n, p.pid, err)
				}
				stock[p.pid] += n
			}
			body["quantity"] = qty
			stock[p.pid] -= qty
		case p.pid == topupdtest.PIDPubgManual:
			body["userId"] = "5123"
		default:
			body["userId"] = []string{"5123", "5123", "99990001"}[rng.IntN(3)] // the last is refused, and refunded
		}
		id := h.Place(acc, body).Str("orderId")
		if p.pid == topupdtest.PIDPubgManual {
			switch rng.IntN(4) {
			case 0:
				h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/complete", map[string]any{})
			case 1:
				h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/cancel", map[string]any{"error": "x", "refund": true})
			case 2:
				h.AdminOK(http.StatusOK, "POST", "/admin/orders/"+id+"/cancel", map[string]any{"error": "x", "refund": false})
			} // else left processing
		} else if !p.stock {
			waits = append(waits, func() { h.WaitOrder(acc, id) })
		}
	}
	for _, w := range waits {
		w()
	}
}

// checkRandomReports checks the reports of the whole run [first, end), of
// its whole days and of random spans against the orders.
func checkRandomReports(t *testing.T, h *topupdtest.T, rng *mrand.Rand, first, end time.Time) {
	orders, slugs := allAdminOrders(t, h), packSlugs(t, h)
	var known, unknown int
	for _, o := range orders {
		switch {
		case o.Status != client.StatusCompleted:
		case o.CostUSD != nil:
			known++
		default:
			unknown++
		}
	}
	if known == 0 || unknown == 0 {
		t.Fatalf("%d completed orders with a known cost and %d without: want some of each", known, unknown)
	}
	day := first.UTC().Truncate(24 * time.Hour)
	spans := [][2]time.Time{{first, end}, {day, end.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)}}
	for range 3 {
		a := first.Add(time.Duration(rng.Int64N(int64(end.Sub(first)))))
		b := a.Add(time.Duration(rng.Int64N(int64(end.Sub(a)))) + time.Millisecond)
		spans = append(spans, [2]time.Time{a, b})
	}
	for _, span := range spans {
		reports := checkSales(t, h, span[0], span[1])
		for _, by := range salesGroupings {
			if diff := cmp.Diff(countAdminSales(orders, span[0], span[1], salesKeyOf(by, slugs)), reports[by].Rows); diff != "" {
				t.Errorf("report by %s of [%v, %v) (-counted +reported):\n%s", by, span[0], span[1], diff)
			}
		}
	}
}
