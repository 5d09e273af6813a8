package dbcount_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/testing/dbcount"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// countHeader names the tag a request's work is counted under.
const countHeader = "X-Count-Tag"

// orderCost is what one order kind cost: its request's work (Request) and
// what ran without a tag while it went on (Background: the engine's
// settlement, inline or later, its claims, its idle polls, the event
// stream's dispatcher).
type orderCost struct {
	Request, Background dbcount.Counts
}

// cost is what the order cost: its request's statements, transactions and
// commits, the background's transactions that settled it (each changing its
// row, a claim aside) and their statements, and every Redis round trip.
// claims counts the background's claims apart: one claims every order due
// at once.
func (c orderCost) cost() (n dbcount.Counts, claims int) {
	n = c.Request
	n.Queries = nil
	for _, tx := range dbcount.Transactions(c.Request.Queries) {
		// A key's last use, written once a minute whatever the request:
		// a request that crosses into a new minute writes it.
		if len(tx.Statements) == 1 && strings.HasPrefix(tx.Statements[0], "UPDATE api_keys SET last_used_at") {
			n.Transactions--
			n.Statements--
			n.InTx--
			if tx.Committed {
				n.Commits--
			}
		}
	}
	n.Redis += c.Background.Redis
	for _, tx := range dbcount.Transactions(c.Background.Queries) {
		settles, claim := false, false
		for _, q := range tx.Statements {
			if strings.HasPrefix(q, "UPDATE orders SET lease_owner = $1") {
				claim = true
			} else if strings.HasPrefix(q, "UPDATE orders SET") {
				settles = true
			}
		}
		switch {
		case settles:
			n.Transactions++
			n.Statements += len(tx.Statements)
			n.InTx += len(tx.Statements)
			if tx.Committed {
				n.Commits++
			}
		case claim && tx.Committed:
			claims++
		}
	}
	return n, claims
}

// The most each order kind may cost, as counted on 2026-11-27 (BENCHMARKS.md,
// "Issue 24: counts per order"). Lower them as the order path gets cheaper;
// a change that raises one fails TestOrderCounts.
var maxCosts = map[string]map[string]dbcount.Counts{
	"sqlite": {
		"instant": {Statements: 9 + authReads, Transactions: 1, Commits: 1},
		"key":     {Statements: 11 + authReads, Transactions: 1, Commits: 1},
		"later":   {Statements: 16 + authReads, Transactions: 2, Commits: 2},
		"waited":  {Statements: 17 + authReads, Transactions: 2, Commits: 2},
		"replay":  {Statements: 2 + authReads, Transactions: 1, Commits: 1},
		"late":    {Statements: 6 + authReads, Transactions: 2, Commits: 2},
		"idem":    {Statements: 9 + authReads, Transactions: 1, Commits: 1},
	},
	"postgres": { // with Redis, as several nodes run: one round trip an order (issue 24)
		"instant": {Statements: 9 + authReads, Transactions: 1, Commits: 1, Redis: 1},
		"key":     {Statements: 11 + authReads, Transactions: 1, Commits: 1, Redis: 1},
		"later":   {Statements: 16 + authReads, Transactions: 2, Commits: 2, Redis: 1},
		"waited":  {Statements: 17 + authReads, Transactions: 2, Commits: 2, Redis: 1},
		"replay":  {Statements: 2 + authReads, Transactions: 1, Commits: 1, Redis: 1},
		"late":    {Statements: 6 + authReads, Transactions: 2, Commits: 1, Redis: 1},
		"idem":    {Statements: 9 + authReads, Transactions: 1, Commits: 1, Redis: 1},
	},
}

// authReads are the reads of the key's account and of the settings, which
// a request makes when the auth cache (one second) has lapsed: on a slow
// run, any of the orders.
const authReads = 2

// TestOrderCounts counts the statements, transactions, commits and Redis
// round trips of each order kind through the reseller API, on SQLite
// (limits in memory, as one topupd serve) and on PostgreSQL with Redis (as
// several nodes), prints them, and fails if any is above maxCosts. The
// orders run one at a time, after a warm-up order, so that each commit is
// the order's own; the once-a-minute write of a key's last use, which any
// request may make, is not counted. Redis round trips are counted whatever their tag, so one made
// after the request, on a context of its own, would count too. "idem" is an
// instant top-up sent with an idempotencyKey: two in-flight hints. "replay"
// repeats the instant order while its in-flight hint is held, and looks for
// the repeat first; "late" repeats it once the hint has lapsed, so it is
// placed, trips the unique index, and runs again looking first (the first
// run's group commit on SQLite counts as a commit, with nothing in it).
// "later" is a sim top-up that stays processing for simDelayMs, as the sim
// rules ask: it is placed with that pending answer (PlaceOrder.Sim),
// and settled when due. "waited" is a top-up from an
// upstream (another topupd, whose own work is not counted) that answers
// "processing" at first and is asked again, in memory, within the request
// (fulfil/wait.go): two commits, its placement and its completion.
func TestOrderCounts(t *testing.T) {
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		store := "sqlite"
		if len(db) > 0 {
			store = "postgres"
			redis := os.Getenv("TOPUPD_TEST_REDIS")
			if redis == "" {
				t.Skip("TOPUPD_TEST_REDIS not set: the PostgreSQL counts need Redis")
			}
			db = append(db, topupdtest.WithRedis(redis))
		}
		c := dbcount.New()
		tag := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if v := r.Header.Get(countHeader); v != "" {
					r = r.WithContext(dbcount.WithTag(r.Context(), v))
				}
				next.ServeHTTP(w, r)
			})
		}
		h := topupdtest.New(t, append(db, topupdtest.WithCounter(c), topupdtest.WithWrap(tag), topupdtest.WithAuthCache(),
			topupdtest.WithWebhookPoll(time.Hour))...)
		h.LoadCatalog()
		h.Settings(map[string]any{"simDelayMs": 0})
		a := h.NewAccount("1000", nil)
		up := topupdtest.New(t)
		up.LoadCatalog()
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/up", map[string]any{"baseUrl": up.API.URL, "apiKey": up.NewAccount("100", nil).Key})
		h.PutPack("up-60", map[string]any{"slug": "pubg", "name": "60 UC from up", "priceUsd": topupdtest.USD("0.95"), "status": "active",
			"provider": "upstream", "upstream": "up", "upstreamPid": topupdtest.PIDPubg})
		place := func(kind string, body map[string]any) orderCost {
			c.Take("")
			r := h.DoH("POST", "/orders", topupdtest.Headers{"X-API-Key": a.Key, countHeader: kind}, body)
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %v", kind, r)
			}
			if kind == "later" && r.Str("status") != "processing" {
				t.Errorf("later order answered %s, not processing for simDelayMs", r.Str("status"))
			}
			if s := r.Str("status"); s != "completed" {
				if kind == "instant" || kind == "idem" || kind == "waited" {
					t.Errorf("%s order answered %s, not completed", kind, s)
				}
				deadline := time.Now().Add(10 * time.Second)
				for ; s != "completed" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
					s = h.DoH("GET", "/orders/"+r.Str("orderId"), topupdtest.Headers{"X-API-Key": a.Key, countHeader: "poll"}, nil).Str("status")
				}
				if s != "completed" {
					t.Fatalf("%s: order %s still %s", kind, r.Str("orderId"), s)
				}
			}
			c.Take("poll")
			return orderCost{Request: c.Take(kind), Background: c.Take("")}
		}
		topup := func() map[string]any {
			return map[string]any{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5000001"}
		}
		place("warm-up", topup())
		// The first order of a pack reads the pack, its line and the
		// account's prices; later ones find them kept (termscache.go).
		place("warm-up", map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		// The upstream's first order reads its URL and key, and builds its client.
		place("warm-up", map[string]any{"pid": "up-60", "trxid": h.Trx(), "userId": "5000001"})
		got := map[string]orderCost{}
		instant := topup()
		got["instant"] = place("instant", instant)
		instantAt := time.Now() // its hint was taken before its answer
		got["key"] = place("key", map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		got["replay"] = place("replay", instant)
		idem := topup()
		idem["idempotencyKey"] = h.Trx()
		got["idem"] = place("idem", idem)
		h.Settings(map[string]any{"simDelayMs": 200})
		c.Take("")
		got["later"] = place("later", topup())
		up.Settings(map[string]any{"simDelayMs": 1000})
		got["waited"] = place("waited", map[string]any{"pid": "up-60", "trxid": h.Trx(), "userId": "5000001"})
		// A replay once the first request's in-flight hint has lapsed: it
		// is placed, trips the unique index, and runs again looking first.
		time.Sleep(time.Until(instantAt.Add(httpapi.InFlightTTL + 100*time.Millisecond)))
		got["late"] = place("late", instant)
		for _, kind := range []string{"instant", "key", "later", "waited", "replay", "late", "idem"} {
			g, limit := got[kind], maxCosts[store][kind]
			n, claims := g.cost()
			t.Logf("%s %-7s %2d statements, %d transactions, %d commits, %d Redis round trips; %d claims (request: %d statements, %d transactions, %d commits)",
				store, kind, n.Statements, n.Transactions, n.Commits, n.Redis, claims, g.Request.Statements, g.Request.Transactions, g.Request.Commits)
			for _, q := range g.Request.Queries {
				t.Logf("  request:    %s", q)
			}
			for _, q := range g.Background.Queries {
				t.Logf("  background: %s", q)
			}
			if n.Statements > limit.Statements || n.Transactions > limit.Transactions || n.Commits > limit.Commits || n.Redis > limit.Redis {
				t.Errorf("%s %s order: %d statements, %d transactions, %d commits, %d Redis round trips: above %+v",
					store, kind, n.Statements, n.Transactions, n.Commits, n.Redis, limit)
			}
			if kind == "waited" && claims != 0 {
				// No other order is due meanwhile; a claim would be the
				// engine polling at the order its own worker holds.
				t.Errorf("%s waited order: %d claims while it was leased, want 0", store, claims)
			}
			if kind == "late" && n.Transactions != 2 {
				t.Errorf("%s late replay: %d transactions, want 2 (a try rolled back at the INSERT, then the replay)", store, n.Transactions)
			}
			if n.Commits == 0 || n.Statements == 0 || (kind == "later" || kind == "waited") && n.Commits < 2 {
				t.Errorf("%s %s order: %+v: the counter is not seeing the order's work", store, kind, n)
			}
		}
	})
}
