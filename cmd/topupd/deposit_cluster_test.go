package main

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestClusterDepositsOnce: three nodes on one PostgreSQL. Two operators
// confirming one ticket on every node at once, one bank statement
// imported on every node at once, and an import racing an operator's
// confirmation of another ticket each credit exactly once: three deposit
// entries in the ledger, the balance their sum, the audit clean.
func TestClusterDepositsOnce(t *testing.T) {
	c := newCluster(t, 3, "")
	a := c.node(0)
	a.must("PATCH", "/admin/settings", map[string]any{"depositBank": map[string]any{"bankName": "BCA", "accountNumber": "0123",
		"accountHolder": "PT Jaya"}, "depositSecondApprovalAboveUsd": 500})
	fin := a.must("POST", "/admin/operators", map[string]any{"name": "fin", "role": "finance"})["token"].(string)
	keepSecret(t, fin, "fin's token")
	shop := a.must("POST", "/admin/accounts", map[string]any{"name": "shop"})["id"].(string)
	key := a.must("POST", "/admin/accounts/"+shop+"/keys", nil)["apiKey"].(string)
	keepSecret(t, key, "the shop's key")
	tickets := make([]map[string]any, 3)
	for i := range tickets {
		status, m := call(t, "POST", c.node(i).api+"/deposits", key, map[string]any{"amountUsd": 50 + 10*i})
		if status != 201 {
			t.Fatalf("ticket %d: %d %v", i, status, m)
		}
		tickets[i] = m
	}
	today := time.Now().UTC().Format(time.DateOnly)
	row := func(m map[string]any, bankRef string) string {
		return fmt.Sprintf("%v,%v,%s,%s\n", json.Number(fmt.Sprint(m["amountUsd"])), m["memo"], today, bankRef)
	}
	statement := "amount,description,date,ref\n" + row(tickets[1], "BNK-1")
	racing := "amount,description,date,ref\n" + row(tickets[2], "BNK-2")
	const q = "/admin/deposits/import?amount=amount&reference=description&date=date&bankRef=ref"
	type result struct {
		what   string
		status int
		body   map[string]any
	}
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	start := make(chan struct{})
	run := func(what string, f func() (int, map[string]any)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			status, body := f()
			mu.Lock()
			results = append(results, result{what, status, body})
			mu.Unlock()
		}()
	}
	for i := range 6 {
		node, token := c.node(i), testAdminToken
		if i%2 == 1 {
			token = fin
		}
		run("confirm", func() (int, map[string]any) {
			return adminRawAs(t, node, token, "POST", "/admin/deposits/"+tickets[0]["depositId"].(string)+"/confirm", "application/json", `{"bankRef":"OP-0"}`)
		})
		run("import", func() (int, map[string]any) { return adminRaw(t, node, "POST", q, "text/csv", statement) })
	}
	run("racing import", func() (int, map[string]any) { return adminRaw(t, c.node(1), "POST", q, "text/csv", racing) })
	run("racing confirm", func() (int, map[string]any) {
		return adminRawAs(t, c.node(2), fin, "POST", "/admin/deposits/"+tickets[2]["depositId"].(string)+"/confirm", "application/json", `{"bankRef":"OP-2"}`)
	})
	close(start)
	wg.Wait()
	counts := map[string]int{}
	for _, r := range results {
		switch {
		case r.status >= 500 || r.status == 0:
			t.Errorf("%s: %d %v", r.what, r.status, r.body)
		case r.what == "confirm" || r.what == "racing confirm":
			counts[fmt.Sprintf("%s %d %v", r.what, r.status, r.body["code"])]++
		default:
			m, _ := r.body["matched"].([]any)
			counts[fmt.Sprintf("%s matched %d", r.what, len(m))]++
		}
	}
	if counts["confirm 200 <nil>"] != 1 || counts["confirm 409 DEPOSIT_FINAL"] != 5 {
		t.Errorf("six confirmations of one ticket at once: %v", counts)
	}
	if counts["import matched 1"] != 1 || counts["import matched 0"] != 5 {
		t.Errorf("one statement imported six times at once: %v", counts)
	}
	if counts["racing import matched 1"]+counts["racing confirm 200 <nil>"] != 1 {
		t.Errorf("an import racing a confirmation: %v", counts)
	}
	var credited []string
	for _, e := range a.must("GET", "/admin/accounts/"+shop+"/ledger?limit=100", nil)["entries"].([]any) {
		if e := e.(map[string]any); e["kind"] == "deposit" {
			credited = append(credited, fmt.Sprint(e["reference"]))
		}
	}
	if len(credited) != 3 {
		t.Errorf("deposit entries %v, want one for each of the 3 tickets", credited)
	}
	var want float64 // only to compare with balanceUsd; both come from exact decimal JSON
	for _, m := range tickets {
		want += m["amountUsd"].(float64)
	}
	if got := a.must("GET", "/admin/accounts/"+shop, nil)["balanceUsd"].(float64); fmt.Sprintf("%.2f", got) != fmt.Sprintf("%.2f", want) {
		t.Errorf("balance %v, want %v", got, want)
	}
	for _, ch := range a.must("GET", "/admin/audit", nil)["checks"].([]any) {
		if ch := ch.(map[string]any); fmt.Sprint(ch["violations"]) != "0" {
			t.Errorf("audit: %v", ch)
		}
	}
}
