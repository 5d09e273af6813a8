package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestClusterResolveOnce: three nodes on one PostgreSQL, one upstream
// server. Two reconciliations find the same completed order missing at
// the supplier; operators on every node at once resolve both mismatches
// by refund-reseller, and another mismatch by accept. Each mismatch is
// resolved once, the order refunded once (every other call a 409, none a
// 5xx), the balance moves by one charge, and the audit holds.
func TestClusterResolveOnce(t *testing.T) {
	c := newCluster(t, 3, "")
	up := startProc(t, t.TempDir()+"/u.db")
	_, upKey := up.setup("100")
	keepSecret(t, upKey, "our key at u")
	a := c.node(0)
	a.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	a.must("PUT", "/admin/upstreams/u", map[string]any{"baseUrl": up.api, "apiKey": upKey})
	a.must("PUT", "/admin/products/a-u", map[string]any{"slug": "pubg", "name": "60 UC from u", "priceUsd": json.Number("1.5"),
		"costUsd": json.Number("1.25"), "status": "active", "provider": "upstream", "upstream": "u", "upstreamPid": "uc60"})
	shop := a.must("POST", "/admin/accounts", map[string]any{"name": "shop"})["id"].(string)
	key := a.must("POST", "/admin/accounts/"+shop+"/keys", nil)["apiKey"].(string)
	a.must("POST", "/admin/accounts/"+shop+"/credits", map[string]any{"amountUsd": 10, "reference": "opening"})
	var ids []string
	for i := range 2 {
		status, m := clientCall(t, "POST", c.node(i).api+"/orders", key, map[string]any{"pid": "a-u", "trxid": fmt.Sprintf("o-%d", i), "userId": "5123456"})
		if status != 200 {
			t.Fatalf("order %d: %d %v", i, status, m)
		}
		ids = append(ids, m["orderId"].(string))
	}
	a.waitFinal(key, 30*time.Second)
	// The supplier's file lists none of ours: both are missing there, in
	// two reconciliations.
	today := time.Now().UTC().Format(time.DateOnly)
	q := "/admin/upstreams/u/reconciliations?from=" + today + "&to=" + today + "&reference=ref&amount=amount"
	var recs []string
	mid := map[string]int{} // "<rec> <order>" -> mismatch id
	for i := range 2 {
		status, r := adminRaw(t, c.node(i), "POST", q, "text/csv", "ref,amount\nelsewhere-1,1\n")
		if status != 201 {
			t.Fatalf("reconciliation %d: %d %v", i, status, r)
		}
		recs = append(recs, r["id"].(string))
		for _, m := range r["mismatches"].([]any) {
			m := m.(map[string]any)
			if m["kind"] == "missing_upstream" {
				mid[r["id"].(string)+" "+m["orderId"].(string)] = int(m["id"].(float64))
			}
		}
	}
	if len(mid) != 4 {
		t.Fatalf("missing_upstream mismatches %v, want both orders in both reconciliations", mid)
	}
	balance := func() string {
		return fmt.Sprint(a.must("GET", "/admin/accounts/"+shop, nil)["balanceUsd"])
	}
	if got := balance(); got != "7" {
		t.Fatalf("balance %s before the fixes, want 7", got)
	}
	type call struct{ path, action string }
	var calls []call
	for _, rec := range recs {
		for range 3 * len(c.nodes) / 2 {
			calls = append(calls, call{fmt.Sprintf("/admin/reconciliations/%s/mismatches/%d/resolve", rec, mid[rec+" "+ids[0]]), "refund-reseller"})
		}
	}
	for range 3 * len(c.nodes) {
		calls = append(calls, call{fmt.Sprintf("/admin/reconciliations/%s/mismatches/%d/resolve", recs[0], mid[recs[0]+" "+ids[1]]), "accept"})
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]map[string]int{} // action -> "status code" -> count
	for i, cl := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			body, _ := json.Marshal(map[string]any{"action": cl.action, "note": fmt.Sprintf("operator %d", i)})
			status, r := adminRaw(t, c.node(i), "POST", cl.path, "application/json", string(body))
			mu.Lock()
			defer mu.Unlock()
			if answers[cl.action] == nil {
				answers[cl.action] = map[string]int{}
			}
			answers[cl.action][fmt.Sprintf("%d %v", status, r["code"])]++
		}()
	}
	close(start)
	wg.Wait()
	refunds, accepts := answers["refund-reseller"], answers["accept"]
	if refunds["200 <nil>"] != 1 || refunds["200 <nil>"]+refunds["409 MISMATCH_RESOLVED"]+refunds["409 ACTION_NOT_APPLICABLE"] != len(recs)*(3*len(c.nodes)/2) {
		t.Errorf("parallel refund-reseller answers %v: want one 200, the rest 409", refunds)
	}
	if accepts["200 <nil>"] != 1 || accepts["409 MISMATCH_RESOLVED"] != 3*len(c.nodes)-1 {
		t.Errorf("parallel accept answers %v: want one 200, the rest 409 MISMATCH_RESOLVED", accepts)
	}
	if got := balance(); got != "8.5" {
		t.Errorf("balance %s after the fixes, want 8.5 (one refund)", got)
	}
	var refundEntries int
	for _, e := range a.must("GET", "/admin/accounts/"+shop+"/ledger?limit=1000", nil)["entries"].([]any) {
		if e := e.(map[string]any); e["kind"] == "refund" {
			refundEntries++
			if e["orderId"] != ids[0] {
				t.Errorf("a refund of %v, want of %s", e["orderId"], ids[0])
			}
		}
	}
	if refundEntries != 1 {
		t.Errorf("%d refunds in the ledger, want 1", refundEntries)
	}
	for i := range c.nodes {
		log := c.node(i).must("GET", "/admin/actions?action=reconciliation.resolve", nil)["actions"].([]any)
		if len(log) != 2 {
			t.Errorf("node %d: %d reconciliation.resolve entries, want 2", i, len(log))
		}
	}
	for _, ch := range a.must("GET", "/admin/audit", nil)["checks"].([]any) {
		if ch := ch.(map[string]any); fmt.Sprint(ch["violations"]) != "0" {
			t.Errorf("audit: %v", ch)
		}
	}
}

// adminRaw makes one admin call with a raw body and returns its status
// and decoded answer, whatever they are.
func adminRaw(t *testing.T, p *proc, method, path, contentType, body string) (int, map[string]any) {
	return adminRawAs(t, p, testAdminToken, method, path, contentType, body)
}

// adminRawAs is adminRaw with an operator's token.
func adminRawAs(t *testing.T, p *proc, token, method, path, contentType, body string) (int, map[string]any) {
	req, err := http.NewRequest(method, p.admin+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return 0, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(raw, &m)
	return resp.StatusCode, m
}
