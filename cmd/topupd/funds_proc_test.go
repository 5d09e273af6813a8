package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSupplierFunds: back-office.md section 1 over HTTP, with real
// upstream processes, on SQLite.
func TestSupplierFunds(t *testing.T) {
	dir := t.TempDir()
	supplierFunds(t, trioDBs{a: dir + "/a.db", b: dir + "/b.db", c: dir + "/c.db", bCredit: "2.5", cCredit: "2.5"})
}

// TestSupplierFundsPostgres is TestSupplierFunds with every server on
// PostgreSQL.
func TestSupplierFundsPostgres(t *testing.T) {
	endToEnd(t)
	pg, _ := scaleServices(t)
	secret := make([]byte, 32)
	rand.Read(secret)
	supplierFunds(t, trioDBs{a: testSchema(t, pg), b: testSchema(t, pg), c: testSchema(t, pg), bCredit: "2.5", cCredit: "2.5",
		env: []string{"TOPUPD_SECRET_KEY=" + base64.StdEncoding.EncodeToString(secret)}})
}

// fundsPack is A's pack bought from B, then C, at 1.25 at each.
const fundsPack = "a-uc60-two"

// supplierFunds: our known balance at each upstream (read, less each
// accepted order's cost), routing away from one that cannot cover an
// order, INSUFFICIENT BALANCE moving the order on, an order waiting for
// funds (parked) and resumed by a read, one refunded at its deadline, the
// balance alerts as operator events, and never a supplier named to the
// reseller; each order charged once, refunded at most once, and held by
// at most one upstream.
func supplierFunds(t *testing.T, dbs trioDBs) {
	tr := newTrioOn(t, dbs, "--order-deadline", "8s")
	tr.a.must("PUT", "/admin/products/"+fundsPack, map[string]any{"slug": "pubg", "name": "60 UC (two suppliers)", "priceUsd": json.Number("1.5"),
		"status": "active", "suppliers": []any{
			map[string]any{"provider": "upstream", "upstream": "b", "upstreamPid": "uc60", "costUsd": json.Number("1.25")},
			map[string]any{"provider": "upstream", "upstream": "c", "upstreamPid": "uc60", "costUsd": json.Number("1.25")}}})
	up := func(name string) map[string]any {
		for _, u := range tr.a.must("GET", "/admin/upstreams", nil)["upstreams"].([]any) {
			if u := u.(map[string]any); u["name"] == name {
				return u
			}
		}
		t.Fatalf("no upstream %s", name)
		return nil
	}
	balanceIs := func(name string, want float64, when string) {
		t.Helper()
		if u := up(name); u["balanceUsd"] != want {
			t.Errorf("%s: A knows %v at %s, want %v", when, u["balanceUsd"], name, want)
		}
	}
	balanceIs("b", 2.5, "checked as it was saved")

	// Two orders at B: A takes each one's cost off what it knows.
	o1, o2 := tr.buy(t, fundsPack, "F-1"), tr.buy(t, fundsPack, "F-2")
	for _, id := range []string{o1, o2} {
		if m := tr.final(t, id, 20*time.Second); m["status"] != "completed" {
			t.Fatalf("order %s: %v", id, m["status"])
		}
	}
	balanceIs("b", 0, "after two orders of 1.25")
	if u := up("b"); u["balanceAlert"] != "critical" || u["alert"] != true || u["burnUsdPerHour"] == 0.0 {
		t.Errorf("B at 0: %v", u)
	}

	// B cannot cover the third: it is not asked, and C is.
	o3 := tr.buy(t, fundsPack, "F-3")
	if m := tr.final(t, o3, 20*time.Second); m["status"] != "completed" || outcomes(m) != "b:skipped c:completed" || whyOf(m, 0) != "balance" {
		t.Errorf("order 3: %v, attempts %s, why %q", m["status"], outcomes(m), whyOf(m, 0))
	}
	if who := tr.charged(t, o3); who != "c" {
		t.Errorf("order 3 charged by %s", who)
	}
	balanceIs("c", 1.25, "after one order at C")

	// C's money goes elsewhere behind A's back: the fourth order meets
	// INSUFFICIENT BALANCE at C, the last supplier, and waits for funds.
	if status, m := call(t, "POST", tr.c.api+"/orders", tr.cKey, map[string]any{"pid": "uc60", "trxid": "ELSEWHERE-1", "userId": "5123456"}); status != 200 {
		t.Fatalf("spending at C: %d %v", status, m)
	}
	o4 := tr.buy(t, fundsPack, "F-4")
	parked := waitFor(t, 20*time.Second, "order 4 waiting for funds", func() (map[string]any, bool) {
		m := tr.a.must("GET", "/admin/orders/"+o4, nil)
		return m, m["alert"] == "WAITING FOR SUPPLIER FUNDS"
	})
	if parked["status"] != "processing" || outcomes(parked) != "b:skipped c:refused" || whyOf(parked, 1) != "balance: INSUFFICIENT BALANCE" {
		t.Errorf("order 4 waiting: %v, attempts %s", parked["status"], outcomes(parked))
	}
	balanceIs("c", 0, "after INSUFFICIENT BALANCE")
	stuck := tr.a.must("GET", "/admin/orders/stuck", nil)["orders"].([]any)
	if len(stuck) != 1 || stuck[0].(map[string]any)["orderId"] != o4 {
		t.Errorf("stuck orders: %v", stuck)
	}
	if !strings.Contains(fmt.Sprint(parked["history"]), "waiting for supplier funds") {
		t.Errorf("order 4's history: %v", parked["history"])
	}
	if metric(t, tr.a, "topupd_orders_waiting_funds") != "1" {
		t.Errorf("topupd_orders_waiting_funds is %q", metric(t, tr.a, "topupd_orders_waiting_funds"))
	}
	resellerSeesNoSupplier(t, tr, o4)

	// Money reaches B and a check reads it: order 4 goes to B at once.
	tr.b.must("POST", "/admin/accounts/"+tr.bAcct+"/credits", map[string]any{"amountUsd": 5, "reference": "top-up 1"})
	if c := tr.a.must("POST", "/admin/upstreams/b/check", nil); c["balanceUsd"] != 5.0 || c["state"] != "ok" {
		t.Errorf("the check: %v", c)
	}
	if m := tr.final(t, o4, 30*time.Second); m["status"] != "completed" || outcomes(m) != "b:completed c:refused" {
		t.Errorf("order 4 resumed: %v, attempts %s", m["status"], outcomes(m))
	}
	if who := tr.charged(t, o4); who != "b" {
		t.Errorf("order 4 charged by %s", who)
	}

	// B's money goes elsewhere too: the fifth order meets INSUFFICIENT
	// BALANCE at B, passes C over (dry), waits, and is refunded at its
	// deadline, never placed anywhere.
	for i := range 3 {
		if status, m := call(t, "POST", tr.b.api+"/orders", tr.bKey, map[string]any{"pid": "uc60", "trxid": fmt.Sprintf("ELSEWHERE-B-%d", i), "userId": "5123456"}); status != 200 {
			t.Fatalf("spending at B: %d %v", status, m)
		}
	}
	o5 := tr.buy(t, fundsPack, "F-5")
	m5 := tr.final(t, o5, 30*time.Second)
	if m5["status"] != "cancelled" || m5["error"] != "DEADLINE EXCEEDED" || m5["refunded"] != true || outcomes(m5) != "b:refused c:skipped" {
		t.Errorf("order 5: %v %v refunded %v, attempts %s", m5["status"], m5["error"], m5["refunded"], outcomes(m5))
	}
	for _, p := range []*proc{tr.b, tr.c} {
		if list := p.must("GET", "/admin/orders?trxid=topupd-"+o5, nil)["orders"].([]any); len(list) != 0 {
			t.Errorf("an upstream holds order 5: %v", list)
		}
	}
	if byStatus := tr.a.books(tr.aAcct, tr.aKey); byStatus["completed"] != 4 || byStatus["cancelled"] != 1 {
		t.Errorf("A's orders: %v", byStatus)
	}

	// Each alert change was one operator event; none reached the reseller.
	// On PostgreSQL an event shows once every older transaction has ended
	// (the stream's order): others may hold it back a while.
	wanted := []string{"supplier.balance.critical b", "supplier.balance.critical c", "supplier.balance.recovered b"}
	var seen []string
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		seen = nil
		for _, e := range tr.a.must("GET", "/admin/events", nil)["events"].([]any) {
			e := e.(map[string]any)
			d := e["data"].(map[string]any)
			seen = append(seen, fmt.Sprintf("%v %v", e["type"], d["supplier"]))
		}
		all := true
		for _, want := range wanted {
			all = all && strings.Contains(strings.Join(seen, ","), want)
		}
		if all || time.Now().After(end) {
			break
		}
	}
	for _, want := range wanted {
		if !strings.Contains(strings.Join(seen, ","), want) {
			t.Errorf("operator events %v lack %q", seen, want)
		}
	}
	_, ev := call(t, "GET", tr.a.api+"/events", tr.aKey, nil)
	if s := fmt.Sprint(ev); strings.Contains(s, "supplier.") || strings.Contains(s, "INSUFFICIENT") {
		t.Errorf("the reseller's events name a supplier's money: %s", s)
	}
}

// whyOf is the why of attempt i of A's admin view of an order.
func whyOf(m map[string]any, i int) string {
	list, _ := m["supplierAttempts"].([]any)
	if i >= len(list) {
		return ""
	}
	w, _ := list[i].(map[string]any)["why"].(string)
	return w
}

// resellerSeesNoSupplier: the reseller's view of an order, its history
// and its events name no supplier, balance or low-balance message.
func resellerSeesNoSupplier(t *testing.T, tr *trio, id string) {
	t.Helper()
	for _, path := range []string{"/orders/" + id, "/history?limit=50", "/events"} {
		status, m := call(t, "GET", tr.a.api+path, tr.aKey, nil)
		s := fmt.Sprint(m)
		if status != 200 || strings.Contains(s, "INSUFFICIENT") || strings.Contains(s, "upstream") || strings.Contains(s, "funds") ||
			strings.Contains(s, "balance: ") {
			t.Errorf("the reseller's %s (%d) names a supplier or its money: %s", path, status, s)
		}
	}
}

// waitFor polls f every 50 ms until it says done, up to limit.
func waitFor(t *testing.T, limit time.Duration, what string, f func() (map[string]any, bool)) map[string]any {
	t.Helper()
	for end := time.Now().Add(limit); ; time.Sleep(50 * time.Millisecond) {
		m, done := f()
		if done {
			return m
		}
		if time.Now().After(end) {
			t.Fatalf("%s: not after %v: %v", what, limit, m)
		}
	}
}

// metric reads one series of a server's GET /metrics, by its whole name
// with any labels ("" when it has none).
func metric(t *testing.T, p *proc, series string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", p.admin+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}
