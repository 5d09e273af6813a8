package main

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// freeAddr finds a loopback port to give a server that must come back on
// the same address after a restart.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// chain is two topupd servers on loopback: A resells what it buys from B.
type chain struct {
	a, b            *proc
	aAcct, aKey     string // a reseller's account at A
	bAcct, bKey     string // A's account at B
	bDB, bAddr, aDB string
}

// newChain starts B with a top-up and a key pack, and A selling both
// through B as upstream "b".
func newChain(t *testing.T, aFlags ...string) *chain {
	dir := t.TempDir()
	c := &chain{bDB: dir + "/b.db", aDB: dir + "/a.db", bAddr: freeAddr(t)}
	c.b = startProc(t, c.bDB, "--addr", c.bAddr, "--log-level", "debug")
	c.bAcct, c.bKey = c.b.setup("500") // B: line pubg, pack uc60 at 1.25
	c.b.must("PUT", "/admin/services/gamekeypubg", map[string]any{"productName": "PUBG UC codes", "gameName": "PUBG Mobile",
		"game": "gamekey", "kind": "gamekey", "status": "active", "required": []any{}})
	c.b.must("PUT", "/admin/products/key60", map[string]any{"slug": "gamekeypubg", "name": "60 UC code", "priceUsd": json.Number("0.5"), "status": "active"})
	var codes []string
	for i := range 30 {
		codes = append(codes, fmt.Sprintf("B-CODE-%03d", i))
	}
	c.b.must("POST", "/admin/products/key60/stock", map[string]any{"codes": codes})

	c.a = startProc(t, c.aDB, append([]string{"--retry-base", "50ms", "--retry-max", "400ms", "--log-level", "debug"}, aFlags...)...)
	c.a.must("PUT", "/admin/upstreams/b", map[string]any{"baseUrl": c.b.api, "apiKey": c.bKey})
	c.a.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	c.a.must("PUT", "/admin/products/a-uc60", map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": json.Number("1.5"),
		"status": "active", "provider": "upstream", "upstream": "b", "upstreamPid": "uc60"})
	c.a.must("PUT", "/admin/services/gamekeypubg", map[string]any{"productName": "PUBG UC codes", "gameName": "PUBG Mobile",
		"game": "gamekey", "kind": "gamekey", "status": "active", "required": []any{}})
	c.a.must("PUT", "/admin/products/a-key60", map[string]any{"slug": "gamekeypubg", "name": "60 UC code", "priceUsd": json.Number("0.6"),
		"status": "active", "provider": "upstream", "upstream": "b", "upstreamPid": "key60"})
	acct := c.a.must("POST", "/admin/accounts", map[string]any{"name": "shop at A"})
	c.aAcct = acct["id"].(string)
	c.aKey = c.a.must("POST", "/admin/accounts/"+c.aAcct+"/keys", nil)["apiKey"].(string)
	c.a.must("POST", "/admin/accounts/"+c.aAcct+"/credits", map[string]any{"amountUsd": 300, "reference": "opening"})
	// No server's log, every line of it, may hold a key, the upstream key,
	// the admin token or a code (each proc checks its own as it ends).
	keepSecret(t, c.bKey, "A's key at B (the upstream key)")
	keepSecret(t, c.aKey, "the reseller's key at A")
	for _, code := range codes {
		keepSecret(t, code, "a code")
	}
	return c
}

// order places an order at A and returns the answer.
func (c *chain) order(t *testing.T, trx string, body map[string]any) map[string]any {
	t.Helper()
	body["trxid"] = trx
	status, m := call(t, "POST", c.a.api+"/orders", c.aKey, body)
	if status != 200 {
		t.Fatalf("order %s at A: %d %v", trx, status, m)
	}
	return m
}

// final waits for an order at A to end.
func (c *chain) final(t *testing.T, id string, limit time.Duration) map[string]any {
	t.Helper()
	end := time.Now().Add(limit)
	for {
		_, m := call(t, "GET", c.a.api+"/orders/"+id, c.aKey, nil)
		if m != nil && (m["status"] == "completed" || m["status"] == "cancelled") {
			return m
		}
		if time.Now().After(end) {
			t.Fatalf("order %s at A still %v after %v", id, m["status"], limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkBooks checks both ledgers and that B holds exactly one order for
// each order of A, and returns A's orders by status.
func (c *chain) checkBooks(t *testing.T) map[string]int {
	t.Helper()
	c.a.waitFinal(c.aKey, 20*time.Second)
	c.b.waitFinal(c.bKey, 20*time.Second)
	byA := c.a.books(c.aAcct, c.aKey)
	byB := c.b.books(c.bAcct, c.bKey)
	total := func(m map[string]int) int { return m["completed"] + m["cancelled"] + m["processing"] }
	if total(byA) != total(byB) || byA["completed"] != byB["completed"] {
		t.Errorf("A's orders %v, B's orders %v: every order of A must be exactly one order at B", byA, byB)
	}
	return byA
}

// TestChainReselling: A sells B's top-ups and keys end to end; B's codes are
// the codes A's client receives; B's failures cancel and refund at A; a slow
// B, a B answering 503 for a while and a B that is down for a while all end
// with every order finished once.
func TestChainReselling(t *testing.T) {
	t.Parallel()
	c := newChain(t)

	topup := c.order(t, "chain-1", map[string]any{"pid": "a-uc60", "userId": "5123456"})
	if topup["status"] != "completed" {
		t.Errorf("top-up through B: %v", topup)
	}
	keys := c.order(t, "chain-2", map[string]any{"pid": "a-key60", "quantity": 3})
	if keys["status"] != "completed" {
		t.Fatalf("keys through B: %v", keys)
	}
	adminView := c.a.must("GET", "/admin/orders/"+keys["orderId"].(string), nil)
	atB := c.b.must("GET", "/admin/orders/"+adminView["supplierRef"].(string)+"/codes", nil) // the owner's full view
	if got, want := fmt.Sprint(keys["codes"]), fmt.Sprint(atB["codes"]); got != want || len(keys["codes"].([]any)) != 3 {
		t.Errorf("A delivered %s, B delivered %s", got, want)
	}
	refused := c.order(t, "chain-3", map[string]any{"pid": "a-uc60", "userId": "99990042"})
	if refused["status"] != "cancelled" || refused["refunded"] != true || refused["error"] != "INVALID PLAYER" {
		t.Errorf("B's refused player at A: %v", refused)
	}

	// A slow B: each call to B's supplier takes 700 ms.
	c.b.must("PATCH", "/admin/settings", map[string]any{"simCallMs": 700})
	start := time.Now()
	slow := c.order(t, "chain-4", map[string]any{"pid": "a-uc60", "userId": "5123457"})
	if m := c.final(t, slow["orderId"].(string), 10*time.Second); m["status"] != "completed" || time.Since(start) < 700*time.Millisecond {
		t.Errorf("slow B: %v after %v", m["status"], time.Since(start))
	}
	c.b.must("PATCH", "/admin/settings", map[string]any{"simCallMs": 0})

	// B answers 503 for a while.
	c.b.must("PATCH", "/admin/settings", map[string]any{"maintenance": true})
	during := c.order(t, "chain-5", map[string]any{"pid": "a-uc60", "userId": "5123458"})
	if during["status"] != "processing" {
		t.Errorf("while B answers 503, A's order is %v", during["status"])
	}
	time.Sleep(600 * time.Millisecond)
	c.b.must("PATCH", "/admin/settings", map[string]any{"maintenance": false})
	if m := c.final(t, during["orderId"].(string), 10*time.Second); m["status"] != "completed" {
		t.Errorf("after B's maintenance: %v", m)
	}
	health := c.a.must("GET", "/admin/upstreams", nil)["upstreams"].([]any)[0].(map[string]any)
	if health["lastError"] == nil || health["lastSuccess"] == nil {
		t.Errorf("upstream health after B's 503s: %v", health)
	}

	// B is down for a while, then comes back on the same address.
	c.b.kill()
	var down []string
	for i := range 3 {
		m := c.order(t, fmt.Sprintf("chain-down-%d", i), map[string]any{"pid": "a-uc60", "userId": "5123459"})
		down = append(down, m["orderId"].(string))
	}
	time.Sleep(800 * time.Millisecond)
	c.b = startProc(t, c.bDB, "--addr", c.bAddr, "--log-level", "debug")
	for _, id := range down {
		if m := c.final(t, id, 15*time.Second); m["status"] != "completed" {
			t.Errorf("order %s after B came back: %v", id, m["status"])
		}
	}
	// A's money at B runs out: our problem, not the client's. A keeps the
	// order processing, waiting for funds, raises an alert, and finishes it
	// once a read shows B topped up.
	bal := c.b.must("GET", "/admin/accounts/"+c.bAcct, nil)["balanceUsd"].(float64)
	c.b.must("POST", "/admin/accounts/"+c.bAcct+"/credits", map[string]any{
		"amountUsd": json.Number(strconv.FormatFloat(-bal, 'f', -1, 64)), "reference": "drain"})
	broke := c.order(t, "chain-broke", map[string]any{"pid": "a-uc60", "userId": "5123460"})
	if broke["status"] != "processing" {
		t.Errorf("with no money at B, A's order is %v", broke)
	}
	alert := c.a.must("GET", "/admin/upstreams", nil)["upstreams"].([]any)[0].(map[string]any)
	if alert["alert"] != true || alert["balanceAlert"] != "critical" || alert["balanceUsd"] != 0.0 {
		t.Errorf("no operator alert for our balance at B: %v", alert)
	}
	if m := c.a.must("GET", "/admin/orders/"+broke["orderId"].(string), nil); m["alert"] != "WAITING FOR SUPPLIER FUNDS" {
		t.Errorf("with no money at B, A's order has alert %v", m["alert"])
	}
	c.b.must("POST", "/admin/accounts/"+c.bAcct+"/credits", map[string]any{"amountUsd": 50, "reference": "top up again"})
	c.a.must("POST", "/admin/upstreams/b/check", nil)
	if m := c.final(t, broke["orderId"].(string), 10*time.Second); m["status"] != "completed" {
		t.Errorf("after B was topped up: %v", m)
	}
	byA := c.checkBooks(t)
	t.Logf("A's orders: %v", byA)
}

// TestChainCrashA kills A while orders are in flight to a slow B, restarts
// it, and checks that every order ends exactly once at B and both sets of
// books add up.
func TestChainCrashA(t *testing.T) {
	t.Parallel()
	// The restarted A is another node (a port of 0 names it anew), which
	// takes the killed one's orders over once their leases run out: a
	// short lease (above the supplier timeout, as serve requires) keeps
	// the wait to seconds.
	leases := []string{"--lease", "6s", "--supplier-timeout", "4s"}
	c := newChain(t, leases...)
	c.b.must("PATCH", "/admin/settings", map[string]any{"simDelayMs": 1200})
	var ids []string
	for i := range 12 {
		user := "5000100"
		if i%4 == 0 {
			user = "99990100"
		}
		m := c.order(t, fmt.Sprintf("crash-a-%d", i), map[string]any{"pid": "a-uc60", "userId": user})
		ids = append(ids, m["orderId"].(string))
	}
	storm := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		defer close(storm)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			call(t, "POST", c.a.api+"/orders", c.aKey, map[string]any{"pid": "a-uc60", "trxid": fmt.Sprintf("crash-storm-%d", i), "userId": "5000101"})
		}
	}()
	time.Sleep(300 * time.Millisecond)
	c.a.cmd.Process.Signal(syscall.SIGKILL)
	<-c.a.done
	close(stop)
	<-storm

	c.a = startProc(t, c.aDB, append([]string{"--retry-base", "50ms", "--retry-max", "400ms"}, leases...)...)
	for _, id := range ids {
		c.final(t, id, 20*time.Second)
	}
	byA := c.checkBooks(t)
	if byA["cancelled"] < 3 || byA["completed"] < 9 {
		t.Errorf("A's orders after the crash: %v", byA)
	}
	t.Logf("A's orders after the crash: %v", byA)
}
