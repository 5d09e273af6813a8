package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestClusterSupplierFunds: three nodes on one PostgreSQL sell from three
// upstream servers; whichever node placed each order, every node shows
// the same known balance, burn, runway and balance alert of each
// upstream, in the admin API and in its metrics.
func TestClusterSupplierFunds(t *testing.T) {
	c := newCluster(t, 3, "")
	dir := t.TempDir()
	type upstream struct {
		name, credit string
		orders       int
		// balance, burn and runway as A must know them: the credit less
		// 1.25 an order; the day's costs ÷ 24; balance ÷ burn, down to 0.1.
		balance, burn float64
		runway        any
	}
	ups := []upstream{
		{name: "u1", credit: "100", orders: 4, balance: 95, burn: 0.2083, runway: 456.0},
		{name: "u2", credit: "50", orders: 3, balance: 46.25, burn: 0.1563, runway: 296.0},
		{name: "u3", credit: "10", orders: 0, balance: 10, burn: 0, runway: nil},
	}
	a := c.node(0)
	a.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	for _, u := range ups {
		p := startProc(t, dir+"/"+u.name+".db")
		_, key := p.setup(u.credit)
		keepSecret(t, key, "our key at "+u.name)
		a.must("PUT", "/admin/upstreams/"+u.name, map[string]any{"baseUrl": p.api, "apiKey": key})
		a.must("PUT", "/admin/products/a-"+u.name, map[string]any{"slug": "pubg", "name": "60 UC from " + u.name, "priceUsd": json.Number("1.5"),
			"costUsd": json.Number("1.25"), "status": "active", "provider": "upstream", "upstream": u.name, "upstreamPid": "uc60"})
	}
	shop := a.must("POST", "/admin/accounts", map[string]any{"name": "shop"})["id"].(string)
	key := a.must("POST", "/admin/accounts/"+shop+"/keys", nil)["apiKey"].(string)
	a.must("POST", "/admin/accounts/"+shop+"/credits", map[string]any{"amountUsd": 100, "reference": "opening"})
	n := 0
	for _, u := range ups {
		for i := range u.orders {
			node := c.node(n)
			n++
			status, m := clientCall(t, "POST", node.api+"/orders", key, map[string]any{"pid": "a-" + u.name, "trxid": fmt.Sprintf("%s-%d", u.name, i), "userId": "5123456"})
			if status != 200 {
				t.Fatalf("order at node %d: %d %v", n%3, status, m)
			}
		}
	}
	for i := range c.nodes {
		c.node(i).waitFinal(key, 30*time.Second)
	}
	for i := range c.nodes {
		node := c.node(i)
		rows := map[string]map[string]any{}
		for _, r := range node.must("GET", "/admin/upstreams", nil)["upstreams"].([]any) {
			rows[r.(map[string]any)["name"].(string)] = r.(map[string]any)
		}
		for _, u := range ups {
			r := rows[u.name]
			if r["balanceUsd"] != u.balance || r["burnUsdPerHour"] != u.burn || r["runwayHours"] != u.runway ||
				r["balanceAlert"] != "none" || r["state"] != "ok" {
				t.Errorf("node %d, upstream %s: balance %v burn %v runway %v alert %v state %v; want %v %v %v none ok", i, u.name,
					r["balanceUsd"], r["burnUsdPerHour"], r["runwayHours"], r["balanceAlert"], r["state"], u.balance, u.burn, u.runway)
			}
			if got, want := metric(t, node, `topupd_supplier_balance_usd{supplier="`+u.name+`"}`), fmt.Sprint(u.balance); got != want {
				t.Errorf("node %d: topupd_supplier_balance_usd of %s is %q, want %q", i, u.name, got, want)
			}
			want := ""
			if u.runway != nil {
				want = fmt.Sprint(u.runway)
			}
			if got := metric(t, node, `topupd_supplier_runway_hours{supplier="`+u.name+`"}`); got != want {
				t.Errorf("node %d: topupd_supplier_runway_hours of %s is %q, want %q", i, u.name, got, want)
			}
		}
	}
}
