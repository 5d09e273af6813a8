package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// post is a POST /orders safe to call from any goroutine.
func post(h *topupdtest.T, a topupdtest.Account, body order) (topupdtest.Reply, error) {
	return h.Call(h.API.URL, "POST", "/orders", topupdtest.Headers{"X-API-Key": a.Key}, body)
}

// failOnErrors fails the test on any transport error.
func failOnErrors(t *testing.T, errs []error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRaceOverdraft: 200 concurrent orders against a balance for exactly
// 100 leave exactly 100 orders, a zero balance, and a ledger adding up.
func TestRaceOverdraft(t *testing.T) {
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("89", nil) // 100 × 0.89
	replies, errs := racer.Run2(200, func(i int) (topupdtest.Reply, error) {
		return post(h, a, order{"pid": topupdtest.PIDPubg, "trxid": fmt.Sprintf("over-%03d", i), "userId": "5123"})
	})
	failOnErrors(t, errs)

	type outcome struct {
		Status       int
		OrderCreated any
		Error        string
	}
	tally := map[outcome]int{}
	ids := map[string]bool{}
	for _, r := range replies {
		o := outcome{r.Status, r.Body["orderCreated"], r.Str("error")}
		tally[o]++
		if r.Status == 200 {
			ids[r.Str("orderId")] = true
		}
	}
	want := map[outcome]int{
		{200, true, ""}:                      100,
		{400, false, "INSUFFICIENT BALANCE"}: 100,
	}
	if diff := cmp.Diff(want, tally); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if len(ids) != 100 {
		t.Errorf("%d distinct order ids, want 100", len(ids))
	}
	if got := h.Balance(a); got != "0" {
		t.Errorf("balance = %s, want 0", got)
	}
	entries := h.Ledger(a)
	if sum := ledgerSum(t, entries); sum != 0 {
		t.Errorf("ledger sums to %v, want the balance 0", sum)
	}
	charges := 0
	for _, e := range entries {
		if e.Kind == "charge" {
			charges++
			if e.AmountUsd != "-0.89" || !ids[e.OrderID] {
				t.Errorf("charge %+v", e)
			}
		}
	}
	if charges != 100 || len(entries) != 101 {
		t.Errorf("%d charges in %d entries, want 100 in 101", charges, len(entries))
	}
	if n := h.HistoryCount(a); n != 100 {
		t.Errorf("history holds %d orders, want 100", n)
	}
	for id := range ids {
		if r := h.WaitOrder(a, id); r.Str("status") != "completed" {
			t.Errorf("order %s ended %s", id, r.Raw)
		}
	}
	for _, r := range replies {
		if r.Status == 400 && (r.Str("status") != "cancelled" || r.Str("game") != "pubg") {
			t.Errorf("rejected submit: %s", r.Raw)
		}
	}
}

// TestRaceStock: 50 concurrent orders of 3 keys against 100 keys: 33 are
// served with 99 distinct codes, 1 key is left, and the ledger charged 33.
func TestRaceStock(t *testing.T) {
	h := topupdtest.New(t)
	h.LoadCatalog()
	const pid = "gamekey-race"
	h.PutPack(pid, map[string]any{"slug": "gamekey", "name": "Race key", "priceUsd": topupdtest.USD(topupdtest.PriceKey), "status": "active"})
	stocked := map[string]bool{}
	for _, c := range h.AddStock(pid, 100) {
		stocked[c] = true
	}
	a := h.NewAccount("1000", nil)
	replies, errs := racer.Run2(50, func(i int) (topupdtest.Reply, error) {
		return post(h, a, order{"pid": pid, "trxid": fmt.Sprintf("stock-%02d", i), "quantity": 3})
	})
	failOnErrors(t, errs)

	served, refused := 0, 0
	codes := map[string]bool{}
	for _, r := range replies {
		switch {
		case r.Status == 200 && r.Str("status") == "completed":
			served++
			got := stringsOf(r.Body["codes"])
			if len(got) != 3 {
				t.Errorf("served order with %d codes: %s", len(got), r.Raw)
			}
			for _, c := range got {
				if codes[c] {
					t.Errorf("code %s delivered twice", c)
				}
				if !stocked[c] {
					t.Errorf("code %s was never stocked", c)
				}
				codes[c] = true
			}
		case r.Status == 400 && r.Body["orderCreated"] == false && r.Str("error") == "INSUFFICIENT STOCK":
			refused++
		default:
			t.Errorf("unexpected answer: %v", r)
		}
	}
	if served != 33 || refused != 17 || len(codes) != 99 {
		t.Errorf("served %d, refused %d, %d distinct codes; want 33, 17, 99", served, refused, len(codes))
	}
	var charged int
	for _, e := range h.Ledger(a) {
		if e.Kind == "charge" {
			charged++
			if e.AmountUsd != "-3.6" {
				t.Errorf("charge %+v, want -3.6", e)
			}
		}
	}
	if charged != 33 {
		t.Errorf("%d charges, want 33", charged)
	}
	if sum := ledgerSum(t, h.Ledger(a)); sum != topupdtest.ParseUSD(t, "1000")-33*topupdtest.ParseUSD(t, "3.6") {
		t.Errorf("ledger sum %v, want %v", sum, topupdtest.ParseUSD(t, "1000")-33*topupdtest.ParseUSD(t, "3.6"))
	}
	if got, want := h.Balance(a), (topupdtest.ParseUSD(t, "1000") - 33*topupdtest.ParseUSD(t, "3.6")).String(); got != want {
		t.Errorf("balance %s, want %s", got, want)
	}
	row := viewRow(h.Products(a)[pid])
	if got := [4]any{row.Quantity, row.QuantityMin, row.QuantityMax, row.InStock}; got != [4]any{"1", "1", "1", true} {
		t.Errorf("catalog quantity/min/max/inStock = %v, want [1 1 1 true]", got)
	}
}

// TestRaceIdempotencyStorm: 50 concurrent identical orders make one order
// and one charge; every other answer is a replay of it or 429
// DUPLICATE_IN_FLIGHT with Retry-After.
func TestRaceIdempotencyStorm(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]any
		body     order
	}{
		{"instant key order", nil, order{"pid": topupdtest.PIDKey, "trxid": "storm-1", "quantity": 2}},
		{"slow sim top-up", map[string]any{"simCallMs": 150}, order{"pid": topupdtest.PIDPubg, "trxid": "storm-2", "userId": "5123"}},
		{"with idempotencyKey", nil, order{"pid": topupdtest.PIDPubg, "trxid": "storm-3", "idempotencyKey": "storm-key", "userId": "5123"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := topupdtest.New(t)
			h.LoadCatalog()
			if tc.settings != nil {
				h.Settings(tc.settings)
			}
			a := h.NewAccount("100", nil)
			replies, errs := racer.Run2(50, func(int) (topupdtest.Reply, error) { return post(h, a, tc.body) })
			failOnErrors(t, errs)

			fresh, replays, inFlight := 0, 0, 0
			orderIDs := map[string]bool{}
			for _, r := range replies {
				switch {
				case r.Status == 200 && r.Body["idempotentReplay"] == false:
					fresh++
					orderIDs[r.Str("orderId")] = true
				case r.Status == 200 && r.Body["idempotentReplay"] == true:
					replays++
					orderIDs[r.Str("orderId")] = true
				case r.Status == 429:
					inFlight++
					wantFailure(t, r, 429, "DUPLICATE_IN_FLIGHT", "DUPLICATE_IN_FLIGHT")
					if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
						t.Errorf("429 Retry-After = %q", ra)
					}
				default:
					t.Errorf("unexpected answer: %v", r)
				}
			}
			t.Logf("fresh %d, replays %d, in flight %d", fresh, replays, inFlight)
			if fresh != 1 || len(orderIDs) != 1 || fresh+replays+inFlight != 50 {
				t.Errorf("fresh %d, replays %d, in flight %d, order ids %v; want one order", fresh, replays, inFlight, orderIDs)
			}
			if n := h.HistoryCount(a); n != 1 {
				t.Errorf("%d orders, want 1", n)
			}
			charges := 0
			for _, e := range h.Ledger(a) {
				if e.Kind == "charge" {
					charges++
				}
			}
			if charges != 1 {
				t.Errorf("%d charges, want 1", charges)
			}
			// Once the storm is over, a repeat is a plain replay.
			r := h.Do("POST", "/orders", a.Key, tc.body)
			if r.Status != 200 || r.Body["idempotentReplay"] != true || !orderIDs[r.Str("orderId")] {
				t.Errorf("replay after the storm: %v", r)
			}
		})
	}
}
