package postgres_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/storetest"
	"github.com/topupd/topupd/postgres"
)

// twoNodes opens two stores, each with its own pool, on one fresh schema:
// two nodes of one deployment.
func twoNodes(t *testing.T) (nodes [2]*postgres.Store, dbURL string) {
	t.Helper()
	dbURL = newDB(t)
	v := storetest.NewVault(t) // the nodes share the secret key, as a deployment must
	return [2]*postgres.Store{openStore(t, dbURL, v), openStore(t, dbURL, v)}, dbURL
}

// checkLedger checks, on both nodes, that the balance is the sum of the
// entries and that each entry continues the one before; it returns the
// account's charges by order id.
func checkLedger(t *testing.T, nodes [2]*postgres.Store, accountID string, wantBalance topupd.Money) map[string]topupd.LedgerEntry {
	t.Helper()
	entries, err := nodes[0].Ledger(t.Context(), accountID, 100_000)
	must(t, err)
	var running topupd.Money
	charges := map[string]topupd.LedgerEntry{}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		running += e.Amount
		if e.BalanceAfter != running || running < 0 {
			t.Errorf("entry %d: balance after %v, running sum %v", e.ID, e.BalanceAfter, running)
		}
		if e.Kind == topupd.EntryCharge {
			if _, dup := charges[e.OrderID]; dup {
				t.Errorf("order %s charged twice", e.OrderID)
			}
			charges[e.OrderID] = e
		}
	}
	for i, n := range nodes {
		if b, err := n.Balance(t.Context(), accountID); err != nil || b != wantBalance || b != running {
			t.Errorf("node %d: balance %v, %v; want %v, the sum of the entries %v", i, b, err, wantBalance, running)
		}
	}
	return charges
}

// TestTwoNodesOverdraft races 200 orders over two nodes on an account funded
// for 100: exactly 100 are accepted and charged, and the balance ends at 0.
func TestTwoNodesOverdraft(t *testing.T) {
	t.Parallel()
	nodes, _ := twoNodes(t)
	catalog(t, nodes[0])
	const funded, racers = 100, 200
	a := account(t, nodes[1], "acc_racer", price*funded)
	results := racer.Run(racers, func(i int) storetest.Placed {
		o, replay, err := place(nodes[i%2], t.Context(), a, topupd.OrderRequest{PID: pidTopup, TrxID: fmt.Sprintf("T-%03d", i)})
		return storetest.Placed{Order: o, Replay: replay, Err: err}
	})
	accepted, codes := storetest.Tally(t, results)
	if len(accepted) != funded {
		t.Errorf("%d orders accepted, want %d", len(accepted), funded)
	}
	if diff := cmp.Diff(map[topupd.ErrorCode]int{topupd.EInsufficientBalance: racers - funded}, codes); diff != "" {
		t.Errorf("refusals by code (-want +got):\n%s", diff)
	}
	charges := checkLedger(t, nodes, a, 0)
	if len(charges) != funded {
		t.Errorf("%d charges, want %d", len(charges), funded)
	}
	for _, o := range accepted {
		if c, ok := charges[o.ID]; !ok || c.Amount != -price {
			t.Errorf("accepted order %s: charge %+v", o.ID, c)
		}
	}
	if _, total, err := nodes[1].History(t.Context(), a, topupd.HistoryQuery{Limit: 1}); err != nil || total != funded {
		t.Errorf("History total %d, %v; want %d", total, err, funded)
	}
}

// TestTwoNodesStock races 50 orders of 3 codes, from five accounts over two
// nodes, for 100 codes: 33 orders get 99 distinct codes, one code is left.
func TestTwoNodesStock(t *testing.T) {
	t.Parallel()
	nodes, dbURL := twoNodes(t)
	catalog(t, nodes[0])
	const racers, qty, codesIn, buyers = 50, 3, 100, 5
	stocked := make([]string, codesIn)
	for i := range stocked {
		stocked[i] = fmt.Sprintf("CODE-%03d", i)
	}
	if r, err := nodes[0].AddStock(t.Context(), pidKey, stocked, t0); err != nil || r.Added != codesIn {
		t.Fatalf("AddStock: %+v, %v", r, err)
	}
	funds := price * qty * racers
	for b := range buyers {
		account(t, nodes[b%2], fmt.Sprintf("acc_%d", b), funds)
	}
	results := racer.Run(racers, func(i int) storetest.Placed {
		o, replay, err := place(nodes[i%2], t.Context(), fmt.Sprintf("acc_%d", i%buyers), topupd.OrderRequest{PID: pidKey, TrxID: fmt.Sprintf("T-%03d", i), Quantity: qty})
		return storetest.Placed{Order: o, Replay: replay, Err: err}
	})
	accepted := storetest.CheckStockRace(t, results, stocked, qty)
	want := codesIn / qty
	for _, o := range accepted {
		if read, err := nodes[(o.Seq+1)%2].Order(t.Context(), "", o.ID); err != nil || !slices.Equal(read.Codes, o.Codes) {
			t.Errorf("order %s read on the other node: codes %v, %v; want %v", o.ID, read.Codes, err, o.Codes)
		}
	}
	var delivered, distinct, orders int
	must(t, rawDB(t, dbURL).QueryRow(`SELECT count(*), count(DISTINCT id), count(DISTINCT order_seq) FROM codes WHERE order_seq IS NOT NULL`).Scan(&delivered, &distinct, &orders))
	if delivered != want*qty || distinct != delivered || orders != want {
		t.Errorf("the codes table holds %d delivered codes (%d distinct) in %d orders; want %d in %d", delivered, distinct, orders, want*qty, want)
	}
	for i, n := range nodes {
		if levels, err := n.StockLevels(t.Context()); err != nil || levels[pidKey] != codesIn-want*qty {
			t.Errorf("node %d: StockLevels %v, %v; want %d left", i, levels, err, codesIn-want*qty)
		}
	}
	spent := topupd.Money(0)
	for b := range buyers {
		charges := checkLedger(t, nodes, fmt.Sprintf("acc_%d", b), funds-price*qty*topupd.Money(countOf(accepted, fmt.Sprintf("acc_%d", b))))
		for _, c := range charges {
			spent -= c.Amount
		}
	}
	if spent != price*qty*topupd.Money(want) {
		t.Errorf("charges total %v, want %v", spent, price*qty*topupd.Money(want))
	}
}

// countOf counts the orders of one account.
func countOf(orders []topupd.Order, accountID string) int {
	n := 0
	for _, o := range orders {
		if o.AccountID == accountID {
			n++
		}
	}
	return n
}

// TestTwoNodesSameTrxID sends each of 20 trxids four times at once, twice
// to each node: each becomes one order with one charge, and every other
// answer is a replay of it. The same trxids sent at once by two accounts
// become one order each; the other account is FORBIDDEN. Nothing is a 500.
func TestTwoNodesSameTrxID(t *testing.T) {
	t.Parallel()
	nodes, _ := twoNodes(t)
	catalog(t, nodes[0])
	const trxids, copies = 20, 4
	a := account(t, nodes[0], "acc_a", topupd.USD(1000))
	other := account(t, nodes[1], "acc_b", topupd.USD(1000))
	type sent struct {
		trxid, account string
		storetest.Placed
	}
	results := racer.Run(trxids*(copies+1), func(i int) sent {
		trxid, acc := fmt.Sprintf("T-%02d", i%trxids), a
		if i/trxids == copies {
			acc = other // the last copy of each comes from another account
		}
		o, replay, err := place(nodes[i%2], t.Context(), acc, topupd.OrderRequest{PID: pidTopup, TrxID: trxid})
		return sent{trxid, acc, storetest.Placed{Order: o, Replay: replay, Err: err}}
	})
	winners := map[string]topupd.Order{} // trxid → its new order
	for _, r := range results {
		if r.Err == nil && !r.Replay {
			if prev, dup := winners[r.trxid]; dup {
				t.Errorf("trxid %s became two orders: %s and %s", r.trxid, prev.ID, r.Order.ID)
			}
			winners[r.trxid] = r.Order
		}
	}
	if len(winners) != trxids {
		t.Fatalf("%d trxids became orders, want %d", len(winners), trxids)
	}
	for _, r := range results {
		w := winners[r.trxid]
		switch {
		case r.Err == nil && !r.Replay:
		case r.Err == nil: // a replay: of the very order, by its own account
			if r.Order.ID != w.ID || r.account != w.AccountID {
				t.Errorf("trxid %s: %s got a replay of %s (of %s)", r.trxid, r.account, r.Order.ID, w.ID)
			}
		case topupd.CodeOf(r.Err) == topupd.EForbidden:
			if r.account == w.AccountID {
				t.Errorf("trxid %s: its own account %s was FORBIDDEN", r.trxid, r.account)
			}
		default:
			t.Errorf("trxid %s from %s: %v", r.trxid, r.account, r.Err)
		}
	}
	for _, acc := range []string{a, other} {
		won := 0
		for _, w := range winners {
			if w.AccountID == acc {
				won++
			}
		}
		charges := checkLedger(t, nodes, acc, topupd.USD(1000)-price*topupd.Money(won))
		if len(charges) != won {
			t.Errorf("account %s: %d charges for %d orders", acc, len(charges), won)
		}
		if _, total, err := nodes[0].History(t.Context(), acc, topupd.HistoryQuery{Limit: 1}); err != nil || total != won {
			t.Errorf("account %s: History total %d, %v; want %d", acc, total, err, won)
		}
	}
}

// TestTwoNodesClaimOnce has four workers on each node claim 60 due orders:
// every order is claimed, none by two workers.
func TestTwoNodesClaimOnce(t *testing.T) {
	t.Parallel()
	nodes, _ := twoNodes(t)
	catalog(t, nodes[0])
	const orders, workers = 60, 8
	a := account(t, nodes[0], "acc_a", topupd.USD(1000))
	for i := range orders {
		if _, _, err := place(nodes[i%2], t.Context(), a, topupd.OrderRequest{PID: pidTopup, TrxID: fmt.Sprintf("T-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	claims := racer.Run(workers, func(w int) []string {
		var got []string
		for range orders + 1 { // bounded: claiming leased orders again must fail the test, not hang it
			os, err := nodes[w%2].ClaimDue(t.Context(), fmt.Sprintf("node%d-w%d", w%2, w), t0, t0.Add(time.Minute), 3)
			if err != nil {
				t.Errorf("ClaimDue: %v", err)
				return got
			}
			if len(os) == 0 {
				return got
			}
			for _, o := range os {
				got = append(got, o.ID)
			}
		}
		t.Errorf("worker %d still claiming after %d rounds", w, orders+1)
		return got
	})
	storetest.CheckClaimedOnce(t, claims, orders)
	byNode := [2]int{}
	for w, c := range claims {
		byNode[w%2] += len(c)
	}
	t.Logf("claims by node: %v", byNode)
}
