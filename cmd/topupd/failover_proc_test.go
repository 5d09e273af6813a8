package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// trio is three topupd servers on loopback: our node A sells a pack whose
// suppliers are upstream B, then upstream C.
type trio struct {
	a, b, c          *proc
	aAcct, aKey      string // a shop's account at A
	bAcct, bKey      string // our account at B
	cAcct, cKey      string // our account at C
	listed, misnamed string // A's packs: B then C; B by a PID it lacks, then C
}

// newTrio starts B and C, each with the pubg line and pack uc60 at 1.25
// and an account of ours credited 500, then A with aFlags.
func newTrio(t *testing.T, aFlags ...string) *trio {
	dir := t.TempDir()
	return newTrioOn(t, trioDBs{a: dir + "/a.db", b: dir + "/b.db", c: dir + "/c.db", bCredit: "500", cCredit: "500"}, aFlags...)
}

// trioDBs are the databases of a trio's servers (files or PostgreSQL
// URLs), the environment they run in, and our credit at B and at C.
type trioDBs struct {
	a, b, c          string
	env              []string
	bCredit, cCredit string
}

// newTrioOn is newTrio on the databases dbs.
func newTrioOn(t *testing.T, dbs trioDBs, aFlags ...string) *trio {
	tr := &trio{listed: "a-listed", misnamed: "a-misnamed"}
	tr.b = startProcEnv(t, dbs.env, dbs.b)
	tr.bAcct, tr.bKey = tr.b.setup(dbs.bCredit)
	tr.c = startProcEnv(t, dbs.env, dbs.c)
	tr.cAcct, tr.cKey = tr.c.setup(dbs.cCredit)
	tr.a = startProcEnv(t, dbs.env, dbs.a, append([]string{"--retry-base", "50ms", "--retry-max", "400ms"}, aFlags...)...)
	tr.a.must("PUT", "/admin/upstreams/b", map[string]any{"baseUrl": tr.b.api, "apiKey": tr.bKey})
	tr.a.must("PUT", "/admin/upstreams/c", map[string]any{"baseUrl": tr.c.api, "apiKey": tr.cKey})
	tr.a.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	supplier := func(up, pid, cost string) map[string]any {
		return map[string]any{"provider": "upstream", "upstream": up, "upstreamPid": pid, "costUsd": json.Number(cost)}
	}
	tr.a.must("PUT", "/admin/products/"+tr.listed, map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": json.Number("1.5"),
		"status": "active", "suppliers": []any{supplier("b", "uc60", "1.25"), supplier("c", "uc60", "1.3")}})
	tr.a.must("PUT", "/admin/products/"+tr.misnamed, map[string]any{"slug": "pubg", "name": "60 UC (B misnamed)", "priceUsd": json.Number("1.5"),
		"status": "active", "suppliers": []any{supplier("b", "no-such-pack", "1.25"), supplier("c", "uc60", "1.3")}})
	acct := tr.a.must("POST", "/admin/accounts", map[string]any{"name": "shop at A"})
	tr.aAcct = acct["id"].(string)
	tr.aKey = tr.a.must("POST", "/admin/accounts/"+tr.aAcct+"/keys", nil)["apiKey"].(string)
	tr.a.must("POST", "/admin/accounts/"+tr.aAcct+"/credits", map[string]any{"amountUsd": 100, "reference": "opening"})
	keepSecret(t, tr.bKey, "our key at B")
	keepSecret(t, tr.cKey, "our key at C")
	keepSecret(t, tr.aKey, "the shop's key at A")
	return tr
}

// buy places an order of pid at A and returns its id.
func (tr *trio) buy(t *testing.T, pid, trx string) string {
	t.Helper()
	status, m := call(t, "POST", tr.a.api+"/orders", tr.aKey, map[string]any{"pid": pid, "trxid": trx, "userId": "5123456"})
	if status != 200 || m["orderCreated"] != true {
		t.Fatalf("order %s at A: %d %v", trx, status, m)
	}
	return m["orderId"].(string)
}

// final waits up to limit for an order at A to end and returns A's admin
// view of it.
func (tr *trio) final(t *testing.T, id string, limit time.Duration) map[string]any {
	t.Helper()
	for end := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		_, m := call(t, "GET", tr.a.admin+"/admin/orders/"+id, testAdminToken, nil)
		if m != nil && (m["status"] == "completed" || m["status"] == "cancelled") {
			return m
		}
		if time.Now().After(end) {
			t.Fatalf("order %s at A still %v after %v", id, m["status"], limit)
		}
	}
}

// outcomes reads A's admin view's supplierAttempts as "upstream:outcome".
func outcomes(m map[string]any) string {
	var out []string
	list, _ := m["supplierAttempts"].([]any)
	for _, a := range list {
		a := a.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", a["upstream"], a["outcome"]))
	}
	return strings.Join(out, " ")
}

// charged checks that exactly one upstream charged us for A's order: it
// holds one completed order under the order's trxid, charged once and not
// refunded, and the other holds none. It returns which one did.
func (tr *trio) charged(t *testing.T, id string) string {
	t.Helper()
	who := ""
	for _, up := range []struct {
		name string
		p    *proc
	}{{"b", tr.b}, {"c", tr.c}} {
		list := up.p.must("GET", "/admin/orders?trxid=topupd-"+id, nil)["orders"].([]any)
		for _, o := range list {
			o := o.(map[string]any)
			view := up.p.must("GET", "/admin/orders/"+o["id"].(string), nil)
			kinds := map[string]int{}
			for _, e := range view["ledger"].([]any) {
				kinds[e.(map[string]any)["kind"].(string)]++
			}
			if o["status"] == "completed" && kinds["charge"] == 1 && kinds["refund"] == 0 {
				if who != "" {
					t.Errorf("A's order %s was charged by %s and by %s", id, who, up.name)
				}
				who = up.name
			} else {
				t.Errorf("%s holds A's order %s as %v, ledger %v", up.name, id, o["status"], kinds)
			}
		}
	}
	if who == "" {
		t.Errorf("no upstream charged us for A's order %s", id)
	}
	return who
}

// checkAllBooks checks every server's books and audit, that each
// upstream holds only completed orders of ours, as many as given, and our
// balance there.
func (tr *trio) checkAllBooks(t *testing.T, atB, atC int, balB, balC string) {
	t.Helper()
	tr.a.books(tr.aAcct, tr.aKey)
	for _, up := range []struct {
		name, acct, key string
		p               *proc
		orders          int
		balance         string
	}{{"B", tr.bAcct, tr.bKey, tr.b, atB, balB}, {"C", tr.cAcct, tr.cKey, tr.c, atC, balC}} {
		byStatus := up.p.books(up.acct, up.key)
		if byStatus["completed"] != up.orders || byStatus["cancelled"]+byStatus["processing"] != 0 {
			t.Errorf("our orders at %s: %v, want %d completed", up.name, byStatus, up.orders)
		}
		bal := up.p.must("GET", "/admin/accounts/"+up.acct, nil)["balanceUsd"]
		if fmt.Sprint(bal) != up.balance {
			t.Errorf("our balance at %s: %v, want %s", up.name, bal, up.balance)
		}
	}
}

// TestFailoverRefusedThenBroke: three processes. B refuses an order (a
// PID it does not have): C buys it. Then our money at B runs out: B
// refuses the next order for it, with an alert in A's /admin/upstreams,
// and C buys it; while B alerts, the next order passes B over. Each
// order was bought by exactly one upstream, at that supplier's cost.
func TestFailoverRefusedThenBroke(t *testing.T) {
	t.Parallel()
	tr := newTrio(t)

	refused := tr.buy(t, tr.misnamed, "fo-refused")
	m := tr.final(t, refused, 10*time.Second)
	if m["status"] != "completed" || m["upstream"] != "c" || outcomes(m) != "b:refused c:completed" {
		t.Errorf("an order B refuses: %v at %v, attempts %q", m["status"], m["upstream"], outcomes(m))
	}
	if who := tr.charged(t, refused); who != "c" {
		t.Errorf("an order B refuses was bought at %q", who)
	}
	if m["costUsd"] != 1.3 {
		t.Errorf("an order C sold costs %v, want C's 1.3", m["costUsd"])
	}

	sold := tr.buy(t, tr.listed, "fo-sold")
	if m := tr.final(t, sold, 10*time.Second); m["upstream"] != "b" || outcomes(m) != "b:completed c:waiting" || m["costUsd"] != 1.25 {
		t.Errorf("an order B sells: at %v, attempts %q, cost %v", m["upstream"], outcomes(m), m["costUsd"])
	}
	if who := tr.charged(t, sold); who != "b" {
		t.Errorf("an order B sells was bought at %q", who)
	}

	// Our money at B runs out.
	bal := tr.b.must("GET", "/admin/accounts/"+tr.bAcct, nil)["balanceUsd"].(float64)
	tr.b.must("POST", "/admin/accounts/"+tr.bAcct+"/credits", map[string]any{
		"amountUsd": json.Number(strconv.FormatFloat(-bal, 'f', -1, 64)), "reference": "drain"})
	broke := tr.buy(t, tr.listed, "fo-broke")
	m = tr.final(t, broke, 10*time.Second)
	if m["status"] != "completed" || m["upstream"] != "c" || outcomes(m) != "b:refused c:completed" {
		t.Errorf("an order while our money at B is out: %v at %v, attempts %q", m["status"], m["upstream"], outcomes(m))
	}
	if who := tr.charged(t, broke); who != "c" {
		t.Errorf("an order while our money at B is out was bought at %q", who)
	}
	var alert map[string]any
	for _, u := range tr.a.must("GET", "/admin/upstreams", nil)["upstreams"].([]any) {
		if u := u.(map[string]any); u["name"] == "b" {
			alert = u
		}
	}
	// INSUFFICIENT BALANCE is an answer, not a failing call: the known
	// balance is 0 and the balance alert critical.
	if alert["alert"] != true || alert["balanceAlert"] != "critical" || alert["balanceUsd"] != 0.0 || alert["state"] != "ok" {
		t.Errorf("no operator alert for our balance at B: %v", alert)
	}

	skipped := tr.buy(t, tr.listed, "fo-skipped")
	if m := tr.final(t, skipped, 10*time.Second); m["upstream"] != "c" || outcomes(m) != "b:skipped c:completed" {
		t.Errorf("an order while B alerts: at %v, attempts %q", m["upstream"], outcomes(m))
	}
	if who := tr.charged(t, skipped); who != "c" {
		t.Errorf("an order while B alerts was bought at %q", who)
	}
	// B never saw the order that passed it over, nor the one it refused.
	for _, id := range []string{broke, skipped} {
		if list := tr.b.must("GET", "/admin/orders?trxid=topupd-"+id, nil)["orders"].([]any); len(list) != 0 {
			t.Errorf("B holds %d orders of %s", len(list), id)
		}
	}
	tr.checkAllBooks(t, 1, 3, "0", "496.25") // B: one sale, then drained
}

// TestFailoverTimeoutNeverMoves: three processes. B takes the order and
// then answers too late (each call to its supplier takes longer than our
// supplier timeout): A never asks C, waits for B's answer, and the order
// ends by it. Only B charged us.
func TestFailoverTimeoutNeverMoves(t *testing.T) {
	t.Parallel()
	tr := newTrio(t, "--supplier-timeout", "1s", "--lease", "3s")
	tr.b.must("PATCH", "/admin/settings", map[string]any{"simCallMs": 2500})

	id := tr.buy(t, tr.listed, "fo-slow")
	m := tr.final(t, id, 20*time.Second)
	if m["status"] != "completed" || m["upstream"] != "b" || outcomes(m) != "b:completed c:waiting" {
		t.Errorf("an order B answers late: %v at %v, attempts %q", m["status"], m["upstream"], outcomes(m))
	}
	// The test is what it says: A's first call to B timed out.
	timedOut := false
	for _, e := range m["history"].([]any) {
		e := e.(map[string]any)
		timedOut = timedOut || (e["kind"] == "retry" && strings.Contains(fmt.Sprint(e["note"]), "deadline exceeded"))
	}
	if !timedOut {
		t.Errorf("A's call to B never timed out; the history: %v", m["history"])
	}
	if who := tr.charged(t, id); who != "b" {
		t.Errorf("an order B answers late was bought at %q", who)
	}
	if list := tr.c.must("GET", "/admin/orders?trxid=topupd-"+id, nil)["orders"].([]any); len(list) != 0 {
		t.Errorf("C holds %d orders of %s", len(list), id)
	}
	tr.checkAllBooks(t, 1, 0, "498.75", "500")
}
