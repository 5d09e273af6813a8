package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
)

var raceTests = []test{
	{"Overdraft", testOverdraftRace},
	{"Stock", testStockRace},
	{"IdempotencyStorm", testIdempotencyStorm},
	{"CreditReference", testCreditRace},
	{"DoubleRefund", testRefundRace},
	{"ClaimOnce", testClaimRace},
	{"AbortingCallers", testAbortingCallers},
}

// Placed is what one racing PlaceOrder got.
type Placed struct {
	Order  topupd.Order
	Replay bool
	Err    error
}

// placeAll races n PlaceOrder calls of one account.
func placeAll(e *env, accountID string, n int, req func(i int) topupd.OrderRequest) []Placed {
	return racer.Run(n, func(i int) Placed {
		o, replay, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: accountID, Request: req(i), Now: t0, Deadline: deadline})
		return Placed{o, replay, err}
	})
}

// Tally splits racing placements into accepted orders and refusals by
// code; a replay of distinct requests, an internal error, or a refusal that
// names an order fails the test.
func Tally(t *testing.T, results []Placed) (accepted []topupd.Order, codes map[topupd.ErrorCode]int) {
	t.Helper()
	codes = map[topupd.ErrorCode]int{}
	for _, r := range results {
		switch {
		case r.Err != nil:
			codes[topupd.CodeOf(r.Err)]++
			if r.Order.ID != "" {
				t.Errorf("a refused order came back with the id %s of an order that does not exist", r.Order.ID)
			}
			if topupd.CodeOf(r.Err) == topupd.EInternal {
				t.Errorf("unexpected error: %v", r.Err)
			}
		case r.Replay:
			t.Errorf("distinct requests answered as a replay: %+v", r.Order)
		default:
			accepted = append(accepted, r.Order)
		}
	}
	return accepted, codes
}

// CheckStockRace checks the accepted orders of a race for qty codes each
// out of stocked: exactly len(stocked)/qty were accepted and the rest
// refused INSUFFICIENT_STOCK; each is completed with qty codes; no code
// was sold twice or came from outside the stock. It returns the accepted
// orders.
func CheckStockRace(t *testing.T, results []Placed, stocked []string, qty int) []topupd.Order {
	t.Helper()
	accepted, codes := Tally(t, results)
	want := len(stocked) / qty
	if len(accepted) != want {
		t.Errorf("%d orders accepted, want %d", len(accepted), want)
	}
	if diff := cmp.Diff(map[topupd.ErrorCode]int{topupd.EInsufficientStock: len(results) - want}, codes); diff != "" {
		t.Errorf("refusals by code (-want +got):\n%s", diff)
	}
	seen := map[string]string{}
	for _, o := range accepted {
		if o.Status != topupd.StatusCompleted || len(o.Codes) != qty {
			t.Errorf("order %s: %s with %d codes, want completed with %d", o.ID, o.Status, len(o.Codes), qty)
		}
		for _, c := range o.Codes {
			if prev, dup := seen[c]; dup {
				t.Errorf("code %q delivered to %s and %s", c, prev, o.ID)
			}
			seen[c] = o.ID
			if !slices.Contains(stocked, c) {
				t.Errorf("code %q was never in stock", c)
			}
		}
	}
	if len(seen) != want*qty {
		t.Errorf("%d distinct codes delivered, want %d", len(seen), want*qty)
	}
	return accepted
}

// checkLedger checks that the balance is the sum of the entries, that each
// entry continues the one before, and returns the charges.
func checkLedger(t *testing.T, e *env, accountID string) []topupd.LedgerEntry {
	t.Helper()
	entries := e.ledger(accountID)
	if s, b := sum(entries), e.balance(accountID); s != b {
		t.Errorf("sum of ledger amounts %v, balance %v", s, b)
	}
	var running topupd.Money
	for i := len(entries) - 1; i >= 0; i-- {
		running += entries[i].Amount
		if entries[i].BalanceAfter != running || running < 0 {
			t.Errorf("entry %d: balance after %v, running sum %v", entries[i].ID, entries[i].BalanceAfter, running)
		}
	}
	return ofKind(entries, topupd.EntryCharge)
}

func testOverdraftRace(t *testing.T, e *env) {
	e.catalog()
	const funded, racers = 100, 200
	a := e.account("racer", times(priceTopup, funded))
	results := placeAll(e, a.ID, racers, func(i int) topupd.OrderRequest { return topup(fmt.Sprintf("T-%03d", i)) })
	accepted, codes := Tally(t, results)
	if len(accepted) != funded {
		t.Errorf("%d orders accepted, want %d", len(accepted), funded)
	}
	if diff := cmp.Diff(map[topupd.ErrorCode]int{topupd.EInsufficientBalance: racers - funded}, codes); diff != "" {
		t.Errorf("refusals by code (-want +got):\n%s", diff)
	}
	if b := e.balance(a.ID); b != 0 {
		t.Errorf("final balance %v, want 0", b)
	}
	charges := checkLedger(t, e, a.ID)
	if len(charges) != funded {
		t.Errorf("%d charge entries, want %d", len(charges), funded)
	}
	byOrder := map[string]bool{}
	for _, c := range charges {
		if c.Amount != -priceTopup {
			t.Errorf("charge %d of %v, want %v", c.ID, c.Amount, -priceTopup)
		}
		byOrder[c.OrderID] = true
	}
	for _, o := range accepted {
		if !byOrder[o.ID] {
			t.Errorf("accepted order %s has no charge entry", o.ID)
		}
	}
	if _, total := e.history(a.ID); total != funded {
		t.Errorf("History total %d, want %d", total, funded)
	}
}

func testStockRace(t *testing.T, e *env) {
	e.catalog()
	const racers, qty, codesIn = 50, 3, 100
	start := topupd.USD(10_000)
	a := e.account("racer", start)
	stocked := e.stock(pidKey, codesIn)
	results := placeAll(e, a.ID, racers, func(i int) topupd.OrderRequest { return keys(pidKey, fmt.Sprintf("T-%03d", i), qty) })
	accepted := CheckStockRace(t, results, stocked, qty)
	want := codesIn / qty
	for _, o := range accepted {
		if diff := cmp.Diff(o.Codes, e.order(o.ID).Codes); diff != "" {
			t.Errorf("order %s codes read back (-placed +read):\n%s", o.ID, diff)
		}
	}
	if diff := cmp.Diff(map[string]int{pidKey: codesIn - want*qty}, e.stockLevels()); diff != "" {
		t.Errorf("StockLevels (-want +got):\n%s", diff)
	}
	charges := checkLedger(t, e, a.ID)
	if s, w := -sum(charges), times(priceKey, want*qty); s != w || len(charges) != want {
		t.Errorf("%d charges totalling %v, want %d totalling %v", len(charges), s, want, w)
	}
	if b, w := e.balance(a.ID), start-times(priceKey, want*qty); b != w {
		t.Errorf("balance %v, want %v", b, w)
	}
}

func testIdempotencyStorm(t *testing.T, e *env) {
	e.catalog()
	a := e.account("racer", topupd.USD(100))
	req := topup("T-STORM")
	req.IdempotencyKey = "storm"
	results := placeAll(e, a.ID, 50, func(int) topupd.OrderRequest { return req })
	fresh, replays := 0, 0
	seenIDs := map[string]int{}
	for _, r := range results {
		if r.Err != nil {
			t.Errorf("PlaceOrder: %v", r.Err)
			continue
		}
		seenIDs[r.Order.ID]++
		if r.Replay {
			replays++
		} else {
			fresh++
		}
	}
	if fresh != 1 || replays != 49 || len(seenIDs) != 1 {
		t.Errorf("%d new, %d replays, order ids %v; want 1 new, 49 replays of one order", fresh, replays, seenIDs)
	}
	if charges := checkLedger(t, e, a.ID); len(charges) != 1 {
		t.Errorf("%d charge entries, want 1", len(charges))
	}
	if b := e.balance(a.ID); b != topupd.USD(100)-priceTopup {
		t.Errorf("balance %v, want %v", b, topupd.USD(100)-priceTopup)
	}
	if _, total := e.history(a.ID); total != 1 {
		t.Errorf("History total %d, want 1", total)
	}
}

func testCreditRace(t *testing.T, e *env) {
	a := e.account("racer", 0)
	type credit struct {
		entry    topupd.LedgerEntry
		repeated bool
		err      error
	}
	results := racer.Run(30, func(i int) credit {
		ref := "wire-1"
		if i%3 == 0 {
			ref = fmt.Sprintf("wire-x-%d", i) // distinct references interleaved
		}
		en, rep, err := e.s.Credit(e.ctx, nil, a.ID, topupd.USD(1), ref, t0)
		return credit{en, rep, err}
	})
	fresh, ids := 0, map[int64]bool{}
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("Credit: %v", r.err)
		}
		if i%3 != 0 {
			ids[r.entry.ID] = true
			if !r.repeated {
				fresh++
			}
		}
	}
	if fresh != 1 || len(ids) != 1 {
		t.Errorf("shared reference: %d new entries, %d distinct ids; want 1 and 1", fresh, len(ids))
	}
	if b := e.balance(a.ID); b != topupd.USD(11) {
		t.Errorf("balance %v, want 11 (10 distinct references + 1 shared)", b)
	}
	checkLedger(t, e, a.ID)
}

func testRefundRace(t *testing.T, e *env) {
	e.catalog()
	a := e.account("racer", topupd.USD(100))
	o := e.place(a.ID, topup("T-1"), t0)
	errs := racer.Run(20, func(i int) error {
		st := topupd.Settlement{Status: topupd.StatusCancelled, Error: "x", Refund: true, Now: t0.Add(time.Second)}
		if i%2 == 1 {
			st = topupd.Settlement{Status: topupd.StatusCompleted, Codes: []string{fmt.Sprintf("C-%d", i)}, Now: t0.Add(time.Second)}
		}
		_, err := e.s.Settle(e.ctx, nil, o.Seq, st)
		return err
	})
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if topupd.CodeOf(err) != topupd.EOrderFinal {
			t.Errorf("Settle: %v, want ORDER_FINAL for the losers", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d settlements succeeded, want exactly 1", ok)
	}
	final := e.order(o.ID)
	refunds := len(ofKind(e.ledger(a.ID), topupd.EntryRefund))
	switch final.Status {
	case topupd.StatusCancelled:
		if refunds != 1 || e.balance(a.ID) != topupd.USD(100) || len(final.Codes) != 0 {
			t.Errorf("cancelled: %d refunds, balance %v, codes %v; want 1, 100, none", refunds, e.balance(a.ID), final.Codes)
		}
	case topupd.StatusCompleted:
		if refunds != 0 || e.balance(a.ID) != topupd.USD(100)-priceTopup || len(final.Codes) != 1 {
			t.Errorf("completed: %d refunds, balance %v, codes %v; want 0, charged, one code", refunds, e.balance(a.ID), final.Codes)
		}
	default:
		t.Errorf("final status %s", final.Status)
	}
	checkLedger(t, e, a.ID)
}

func testClaimRace(t *testing.T, e *env) {
	e.catalog()
	a := e.account("racer", topupd.USD(1000))
	const orders, workers = 30, 8
	for i := range orders {
		e.place(a.ID, topup(fmt.Sprintf("T-%02d", i)), t0)
	}
	claims := racer.Run(workers, func(i int) []string {
		var got []string
		for range orders + 1 { // bounded: a store that claims leased orders again must fail, not hang
			os, err := e.s.ClaimDue(e.ctx, fmt.Sprintf("w%d", i), t0, t0.Add(time.Minute), 3)
			if err != nil {
				t.Errorf("ClaimDue: %v", err)
				return got
			}
			if len(os) == 0 {
				return got
			}
			got = append(got, ids(os)...)
		}
		t.Errorf("worker %d still claiming after %d rounds", i, orders+1)
		return got
	})
	CheckClaimedOnce(t, claims, orders)
}

// CheckClaimedOnce checks that racing workers' claims (the order ids each
// claimed) hold every one of orders orders exactly once.
func CheckClaimedOnce(t *testing.T, claims [][]string, orders int) {
	t.Helper()
	seen := map[string]int{}
	for _, c := range claims {
		for _, id := range c {
			seen[id]++
		}
	}
	if len(seen) != orders {
		t.Errorf("%d orders claimed, want %d", len(seen), orders)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("order %s claimed %d times", id, n)
		}
	}
}
