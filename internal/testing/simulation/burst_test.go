package simulation

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/dbcount"
	"github.com/topupd/topupd/internal/testing/fakeclock"
)

// burstSeeds and burstSteps bound TestBurstSeeds: about 10 s on SQLite
// and PostgreSQL together on 2 cores.
const (
	burstSeeds = 8
	burstSteps = 150
)

// TestBurstSeeds runs seeds with concurrent bursts (Config.Bursts) on
// SQLite and, when TOPUPD_TEST_POSTGRES is set, on PostgreSQL: no
// invariant may break. A burst's interleaving is the Go scheduler's, so
// its traces are not compared, and a failing seed replays its schedule but
// not necessarily the interleaving that broke it.
func TestBurstSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("concurrent bursts: not in -short")
	}
	r := newRunner(t, burstSteps)
	r.Bursts = true
	r.Postgres = os.Getenv("TOPUPD_TEST_POSTGRES")
	for seed := uint64(1); seed <= burstSeeds; seed++ {
		res, err := r.Seed(context.Background(), seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, r := range res {
			if r.Violation != "" {
				t.Errorf("seed %d on %s with bursts: %s (a replay repeats the schedule, not necessarily the interleaving: go run ./cmd/topupd-sim -seed %d -steps %d -bursts -v)",
					seed, r.Store, r.Violation, seed, burstSteps)
			}
		}
	}
}

// TestRetryTakesALeasedOrder: an order a node has claimed, and holds the
// lease of, must not be claimed by another node before the lease runs out
// or the first lets go, whatever the operator does meanwhile. The
// operator's retry (RetryOrder, POST /admin/orders/{id}/retry) cleared the
// lease, so a second node claimed the order and worked on it while the
// first still did: for an order with a supplier list, the second could find
// no order at the first supplier the first node was submitting to, and buy
// it from the next one too. Found by the bursts (an operator's retry racing
// the engines); the retry now leaves a live lease to its node.
func TestRetryTakesALeasedOrder(t *testing.T) {
	ctx := context.Background()
	w := &World{cfg: Config{Seed: 1, Dir: t.TempDir()}, rng: rand.New(rand.NewPCG(1, 0)),
		clk: fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)), model: newModel(), db: dbcount.New()}
	if err := w.open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.store.Close()
	if err := w.setup(ctx); err != nil {
		t.Fatal(err)
	}
	sups := newBurstSups(w)
	n1 := w.burstNodeOf(&node{w: w, owner: "n1.1"}, sups)
	n2 := w.burstNodeOf(&node{w: w, owner: "n2.1"}, sups)
	// An order whose first call fails (its supplier is down): due again soon.
	w.sups["a"].down = true
	rq := w.asked(w.model.accounts[0], topupd.OrderRequest{PID: "T-FO", TrxID: "trx-1", Fields: topupd.AccountFields{UserID: "12345"}})
	if a, err := w.postTo(ctx, n1.api, rq); err != nil || a.status != http.StatusOK || a.Status != string(topupd.StatusProcessing) {
		t.Fatalf("POST /orders: %d %s %s %v", a.status, a.Status, a.Code, err)
	}
	w.sups["a"].down = false
	w.clk.Advance(5 * time.Second)
	claimed, err := n1.eng.Claim(ctx, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("n1.1 claims %d orders, %v; want the one placed", len(claimed), err)
	}
	if _, err := w.svc.RetryOrder(ctx, w.root, claimed[0].ID); err != nil {
		t.Fatalf("the operator retries: %v", err)
	}
	again, err := n2.eng.Claim(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) > 0 {
		t.Errorf("n2.1 claimed %s after the operator's retry, while n1.1 held its lease (for %v more) and worked on it", again[0].TrxID, lease-5*time.Second)
	}
}
