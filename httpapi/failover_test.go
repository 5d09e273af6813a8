package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// failover is our server A selling through two upstream servers, B and C
// (each a whole topupd in-process, on SQLite), with an account of ours at
// each, and a shop buying at A.
type failover struct {
	a, b, c  *topupdtest.T
	atB, atC topupdtest.Account
	shop     topupdtest.Account
	postedB  *trxLog // the trxids of every POST /orders B received
	postedC  *trxLog
}

// trxLog records the trxid of each POST /orders an upstream receives.
type trxLog struct {
	mu   sync.Mutex
	seen map[string]int
}

// The packs at A: both list B then C, the first by a PID B does not have.
const (
	pidListed  = "listed-60"
	pidRefused = "refused-60"
)

// newFailover starts B and C with the test catalog, then A, on db, selling
// pidListed and pidRefused through them.
func newFailover(t *testing.T, db ...topupdtest.Option) *failover {
	f := &failover{postedB: &trxLog{seen: map[string]int{}}, postedC: &trxLog{seen: map[string]int{}}}
	f.b = topupdtest.New(t, topupdtest.WithWrap(f.postedB.record))
	f.c = topupdtest.New(t, topupdtest.WithWrap(f.postedC.record))
	for _, up := range []*topupdtest.T{f.b, f.c} {
		up.LoadCatalog()
	}
	f.atB, f.atC = f.b.NewAccount("100", nil), f.c.NewAccount("100", nil)
	f.a = topupdtest.New(t, db...)
	f.a.LoadCatalog()
	f.a.Logs.Secret(f.atB.Key, "our key at B")
	f.a.Logs.Secret(f.atC.Key, "our key at C")
	f.a.AdminCall("PUT", "/admin/upstreams/b", map[string]any{"baseUrl": f.b.API.URL, "apiKey": f.atB.Key}, nil)
	f.a.AdminCall("PUT", "/admin/upstreams/c", map[string]any{"baseUrl": f.c.API.URL, "apiKey": f.atC.Key}, nil)
	supplier := func(up, pid, cost string) map[string]any {
		s := map[string]any{"provider": "upstream", "upstream": up, "upstreamPid": pid}
		if cost != "" {
			s["costUsd"] = topupdtest.USD(cost)
		}
		return s
	}
	f.a.PutPack(pidListed, map[string]any{"slug": "pubg", "name": "60 UC, two suppliers", "priceUsd": topupdtest.USD("1.5"),
		"costUsd": topupdtest.USD("0.7"), "status": "active",
		"suppliers": []any{supplier("b", topupdtest.PIDPubg, "0.8"), supplier("c", topupdtest.PIDPubg, "")}})
	f.a.PutPack(pidRefused, map[string]any{"slug": "pubg", "name": "60 UC, first supplier wrong", "priceUsd": topupdtest.USD("1.5"),
		"costUsd": topupdtest.USD("0.7"), "status": "active",
		"suppliers": []any{supplier("b", "no-such-pack", "0.8"), supplier("c", topupdtest.PIDPubg, "0.85")}})
	f.shop = f.a.NewAccount("50", nil)
	return f
}

// record counts the trxids of the POST /orders an upstream receives.
func (l *trxLog) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/orders" {
			var body struct {
				TrxID string `json:"trxid"`
			}
			raw, _ := io.ReadAll(r.Body)
			json.Unmarshal(raw, &body)
			r.Body = io.NopCloser(bytes.NewReader(raw))
			l.mu.Lock()
			l.seen[body.TrxID]++
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// posts counts the POST /orders an upstream received for one of A's orders.
func (l *trxLog) posts(orderID string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen["topupd-"+orderID]
}

// buy places an order of pid at A and returns its id and the admin view
// of it once final.
func (f *failover) buy(t *testing.T, pid string) (string, topupdtest.Reply) {
	t.Helper()
	r := f.a.Place(f.shop, order{"pid": pid, "trxid": f.a.Trx(), "userId": "5123456"})
	id := r.Str("orderId")
	f.a.WaitOrder(f.shop, id)
	return id, f.a.AdminOK(http.StatusOK, "GET", "/admin/orders/"+id, nil)
}

// attempts reads an admin order view's supplierAttempts as
// "upstream:outcome".
func attempts(t *testing.T, r topupdtest.Reply) []string {
	t.Helper()
	list, ok := r.Body["supplierAttempts"].([]any)
	if !ok {
		t.Fatalf("no supplierAttempts in %v", r)
	}
	var out []string
	for _, a := range list {
		m := a.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", m["upstream"], m["outcome"]))
	}
	return out
}

// TestFailoverOverHTTP: on each store, A's orders go to B first and move
// to C only when B surely holds no order: B refuses an order (an unknown
// PID there), or refuses it for our balance there (which raises B's
// alert); the next order then passes B over while it is unhealthy. Each
// order is bought once, at one upstream, and costs that supplier's cost.
func TestFailoverOverHTTP(t *testing.T) {
	topupdtest.EachDB(t, func(t *testing.T, db ...topupdtest.Option) {
		f := newFailover(t, db...)

		id, view := f.buy(t, pidRefused)
		if got := attempts(t, view); fmt.Sprint(got) != "[b:refused c:completed]" {
			t.Errorf("an order B refuses: attempts %v", got)
		}
		first := view.Body["supplierAttempts"].([]any)[0].(map[string]any)
		if first["why"] != "UPSTREAM: UNKNOWN PID" || first["startedAt"] == nil || first["finishedAt"] == nil {
			t.Errorf("B's refusal as the order view shows it: %v", first)
		}
		if view.Str("status") != "completed" || view.Str("upstream") != "c" {
			t.Errorf("an order B refuses ends %s at %s", view.Str("status"), view.Str("upstream"))
		}
		f.checkCost(t, id, 8_500)
		f.checkBoughtOnce(t, id, 0, 1)

		id, view = f.buy(t, pidListed)
		if got := attempts(t, view); fmt.Sprint(got) != "[b:completed c:waiting]" || view.Str("upstream") != "b" {
			t.Errorf("an order B sells: attempts %v at %s", got, view.Str("upstream"))
		}
		f.checkCost(t, id, 8_000)
		f.checkBoughtOnce(t, id, 1, 0)

		// Our money at B runs out: B refuses, C sells, B alerts.
		bal := f.b.Balance(f.atB)
		f.b.Credit(f.atB, "-"+bal)
		id, view = f.buy(t, pidListed)
		if got := attempts(t, view); fmt.Sprint(got) != "[b:refused c:completed]" {
			t.Errorf("an order while our money at B is out: attempts %v", got)
		}
		if why := fmt.Sprint(view.Body["supplierAttempts"].([]any)[0].(map[string]any)["why"]); !strings.Contains(why, "INSUFFICIENT BALANCE") {
			t.Errorf("B's refusal says %q", why)
		}
		f.checkCost(t, id, 7_000) // C has no cost of its own: the pack's
		f.checkBoughtOnce(t, id, 0, 1)
		ups := f.a.AdminOK(http.StatusOK, "GET", "/admin/upstreams", nil).Body["upstreams"].([]any)
		for _, u := range ups {
			u := u.(map[string]any)
			if want := u["name"] == "b"; u["alert"] != want {
				t.Errorf("upstream %v alert %v, want %v", u["name"], u["alert"], want)
			}
		}

		// While B is unhealthy, orders pass it over: B never sees them.
		id, view = f.buy(t, pidListed)
		if got := attempts(t, view); fmt.Sprint(got) != "[b:skipped c:completed]" {
			t.Errorf("an order while B alerts: attempts %v", got)
		}
		if n := f.postedB.posts(id); n != 0 {
			t.Errorf("B received %d POST /orders of an order that passed it over", n)
		}
		f.checkBoughtOnce(t, id, 0, 1)

		if got, want := f.a.Balance(f.shop), "44"; got != want {
			t.Errorf("the shop's balance at A: %s, want %s", got, want)
		}
		audit := f.a.AdminOK(http.StatusOK, "GET", "/admin/audit", nil)
		if audit.Body["success"] != true {
			t.Errorf("A's audit: %v", audit)
		}
	})
}

// checkCost checks the cost fixed on a completed order at A.
func (f *failover) checkCost(t *testing.T, id string, want topupd.Money) {
	t.Helper()
	o, err := f.a.Store.Order(t.Context(), "", id)
	if err != nil {
		t.Fatal(err)
	}
	if o.Cost == nil || *o.Cost != want {
		t.Errorf("order %s costs %v, want %v", id, o.Cost, want)
	}
}

// checkBoughtOnce checks how many orders B and C hold of one of A's orders
// (each upstream names it by its trxid), and that A holds it once.
func (f *failover) checkBoughtOnce(t *testing.T, id string, atB, atC int) {
	t.Helper()
	for _, up := range []struct {
		name string
		h    *topupdtest.T
		acct topupdtest.Account
		want int
	}{{"B", f.b, f.atB, atB}, {"C", f.c, f.atC, atC}} {
		n := 0
		for _, o := range up.h.AdminOK(http.StatusOK, "GET", "/admin/orders?accountId="+up.acct.ID+"&limit=500", nil).Body["orders"].([]any) {
			o := o.(map[string]any)
			if o["trxid"] == "topupd-"+id {
				n++
				if o["status"] != "completed" {
					t.Errorf("%s's order of %s is %v", up.name, id, o["status"])
				}
			}
		}
		if n != up.want {
			t.Errorf("%s holds %d orders of %s, want %d", up.name, n, id, up.want)
		}
	}
}
