package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestUpstreamLoop: a server whose upstream is itself (a typo in a base
// URL) refuses the order it sends itself, because the call names its own
// instance: the reseller's order is cancelled and refunded once, and the
// account whose key the upstream uses places nothing and pays nothing.
// Without the guard each order set off another, and drained that account.
// Every answer names the instance, the same after a restart.
func TestUpstreamLoop(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/a.db"
	a := startProc(t, db, "--retry-base", "50ms", "--retry-max", "400ms")
	shop, shopKey := a.setup("20")
	upAcct := a.must("POST", "/admin/accounts", map[string]any{"name": "ourselves, by mistake"})["id"].(string)
	upKey := a.must("POST", "/admin/accounts/"+upAcct+"/keys", nil)["apiKey"].(string)
	a.must("POST", "/admin/accounts/"+upAcct+"/credits", map[string]any{"amountUsd": 50, "reference": "opening"})
	// Saved with its check, the upstream is refused: its answer is ours.
	if status, m := call(t, "PUT", a.admin+"/admin/upstreams/self", testAdminToken, map[string]any{"baseUrl": a.api, "apiKey": upKey}); status != 400 ||
		m["code"] != "UPSTREAM_LOOP" {
		t.Errorf("saving an upstream that is this server: %d %v; want 400 UPSTREAM_LOOP", status, m)
	}
	// Saved unchecked, as an operator may, it is refused order by order.
	a.must("PUT", "/admin/upstreams/self", map[string]any{"baseUrl": a.api, "apiKey": upKey, "check": false})
	a.must("PUT", "/admin/products/loop60", map[string]any{"slug": "pubg", "name": "60 UC, bought from ourselves",
		"priceUsd": json.Number("1.5"), "status": "active", "provider": "upstream", "upstream": "self", "upstreamPid": "loop60"})

	instance := instanceOf(t, a.api) // from a 401: every answer names it
	if !topupd.ValidInstanceID(instance) {
		t.Fatalf("Topupd-Instance %q on a 401", instance)
	}

	status, m := call(t, "POST", a.api+"/orders", shopKey, map[string]any{"pid": "loop60", "trxid": "LOOP-1", "userId": "5551234"})
	if status != 200 {
		t.Fatalf("the order: %d %v", status, m)
	}
	a.waitFinal(shopKey, 20*time.Second)
	_, o := call(t, "GET", a.api+"/orders/"+m["orderId"].(string), shopKey, nil)
	if o["status"] != "cancelled" || o["refunded"] != true {
		t.Errorf("the looping order: %v; want cancelled and refunded", o)
	}
	if byStatus := a.books(shop, shopKey); byStatus["cancelled"] != 1 || len(byStatus) != 1 {
		t.Errorf("the shop's orders: %v", byStatus)
	}
	if byStatus := a.books(upAcct, upKey); len(byStatus) != 0 {
		t.Errorf("the upstream's account placed orders: %v", byStatus)
	}
	if bal := a.must("GET", "/admin/accounts/"+upAcct, nil)["balanceUsd"]; bal != float64(50) {
		t.Errorf("the upstream's account has %v, want 50", bal)
	}
	if bal := a.must("GET", "/admin/accounts/"+shop, nil)["balanceUsd"]; bal != float64(20) {
		t.Errorf("the shop has %v after its refund, want 20", bal)
	}

	// A player check loops the same way, and is refused at once inside:
	// the outer check answers, not after a cascade of nested checks.
	status, m = call(t, "POST", a.api+"/players/check", shopKey, map[string]any{"pid": "loop60", "userId": "5551234"})
	if status != 503 || m["code"] != "SUPPLIER_UNAVAILABLE" {
		t.Errorf("a looping player check: %d %v; want 503 SUPPLIER_UNAVAILABLE", status, m)
	}

	a.stop()
	a = startProc(t, db)
	if got := instanceOf(t, a.api); got != instance {
		t.Errorf("after a restart the instance is %q, was %q", got, instance)
	}
}

// TestChainSendsTheRoute: A's calls to its upstream B name A and count one
// hop, so that B, itself a reseller of A, would refuse the order back: an
// order at B naming B's own instance is refused, and B places nothing.
func TestChainSendsTheRoute(t *testing.T) {
	c := newChain(t)
	aID, bID := instanceOf(t, c.a.api), instanceOf(t, c.b.api)
	if !topupd.ValidInstanceID(aID) || !topupd.ValidInstanceID(bID) || aID == bID {
		t.Fatalf("instances A %q, B %q: two deployments, two ids", aID, bID)
	}
	// B refuses a call that has been through B already, whatever else it says.
	req, _ := http.NewRequest("POST", c.b.api+"/orders", strings.NewReader(`{"pid":"uc60","trxid":"BACK-1","userId":"5551234"}`))
	req.Header.Set("X-API-Key", c.bKey)
	req.Header.Set(topupd.HeaderInstance, aID+","+bID)
	req.Header.Set(topupd.HeaderHops, "2")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if resp.StatusCode != 400 || got["code"] != "UPSTREAM_LOOP" || got["error"] != "UPSTREAM_LOOP" || got["retryable"] != false {
		t.Errorf("an order back at B: %d %v", resp.StatusCode, got)
	}
	// An order through A reaches B, which keeps A as its route.
	m := c.order(t, "ROUTE-1", map[string]any{"pid": "a-uc60", "userId": "5551234"})
	c.final(t, m["orderId"].(string), 20*time.Second)
	byB := c.checkBooks(t)
	if byB["completed"] != 1 {
		t.Errorf("A's orders: %v; want the one completed through B", byB)
	}
}

// instanceOf is the Topupd-Instance of a reseller API's answer to a call
// without a key.
func instanceOf(t *testing.T, api string) string {
	t.Helper()
	resp, err := http.Get(api + "/balance")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get(topupd.HeaderInstance)
}
