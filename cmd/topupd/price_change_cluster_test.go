package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/postgres"
)

// TestClusterScheduledPriceAtItsTime: three nodes on one PostgreSQL. A
// pack's list price (1.25) is scheduled to become 1.50 at T, a few seconds
// ahead; six clients (two for each of three accounts: two that pay the
// list price, one on a tier 10% off it) read the catalog and place orders
// on all three nodes at once, densely around T and then until a node's
// watch has written the change into the pack. Every order pays its
// account's old price when its createdAt is before T and its new one at or
// after T, whichever node placed it and whether or not the change was
// written yet; every catalog row shows the old price with the next one
// before T and the new one alone after; no client sees an old price after
// a new one; the change is written once (one price-change.apply by system)
// and the audit is clean.
//
// The change is scheduled through the store itself, as the service would
// (SchedulePriceChange, which bumps the order path's terms and tells the
// catalog): the admin API refuses a change less than an hour ahead, and
// the nodes run on the machine's clock, which a test cannot move, so a
// change through the API could not take effect within a test.
func TestClusterScheduledPriceAtItsTime(t *testing.T) {
	c := newCluster(t, 3, "")
	a := c.node(0)
	a.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	a.must("PUT", "/admin/products/uc60", map[string]any{"slug": "pubg", "name": "60 UC", "category": "UC", "priceUsd": json.Number("1.25"),
		"status": "active", "costUsd": json.Number("1")})
	a.must("PUT", "/admin/tiers/off", map[string]any{"percentOffList": json.Number("10")})
	type account struct {
		id, key  string
		old, new string // what it pays before and after T
	}
	accounts := []account{{old: "1.25", new: "1.5"}, {old: "1.25", new: "1.5"}, {old: "1.13", new: "1.35"}}
	for i := range accounts {
		acc := &accounts[i]
		acc.id = a.must("POST", "/admin/accounts", map[string]any{"name": fmt.Sprint("shop ", i)})["id"].(string)
		acc.key = a.must("POST", "/admin/accounts/"+acc.id+"/keys", nil)["apiKey"].(string)
		keepSecret(t, acc.key, "a shop's key")
		a.must("POST", "/admin/accounts/"+acc.id+"/credits", map[string]any{"amountUsd": 5000, "reference": "opening"})
	}
	a.must("PATCH", "/admin/accounts/"+accounts[2].id, map[string]any{"tier": "off"})

	secret, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(c.env[0], "TOPUPD_SECRET_KEY="))
	if err != nil {
		t.Fatal(err)
	}
	vault, err := topupd.NewVault(secret)
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(t.Context(), c.db, vault)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.UnixMilli(time.Now().UnixMilli()).UTC()
	at := now.Add(4 * time.Second)
	change := topupd.PriceChange{ID: topupd.NewID("pch_"), PID: "uc60", Price: topupd.USD(3) / 2, EffectiveAt: at, CreatedAt: now,
		Operator: "test"}
	if _, err := st.SchedulePriceChange(t.Context(), &topupd.Change{Actor: topupd.Actor{Operator: "test"}, Action: "price-change.create",
		Target: change.ID, Tells: topupd.CatalogChanged}, change); err != nil {
		t.Fatal(err)
	}

	type seen struct {
		what     string // "row" or "order"
		price    string
		next     string // a row's nextPriceUsd and nextPriceAt
		nextAt   string
		created  time.Time // an order's
		accIndex int
	}
	var mu sync.Mutex
	var written bool
	var wg sync.WaitGroup
	logs := make([][]seen, 6)
	for cl := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc, node := accounts[cl/2], c.node(cl)
			for i := 0; ; i++ {
				mu.Lock()
				done := written
				mu.Unlock()
				if done || time.Now().After(at.Add(30*time.Second)) {
					return
				}
				if d := time.Until(at).Abs(); d > 1500*time.Millisecond {
					time.Sleep(100 * time.Millisecond) // densely only near T
				}
				status, m := clientCall(t, "GET", node.api+"/products", acc.key, nil)
				if status != 200 {
					t.Errorf("client %d: GET /products: %d %v", cl, status, m)
					return
				}
				for _, r := range m["products"].([]any) {
					if r := r.(map[string]any); r["id"] == "uc60" {
						s := seen{what: "row", price: fmt.Sprint(r["price"]), accIndex: cl / 2}
						if r["nextPriceUsd"] != nil {
							s.next, s.nextAt = fmt.Sprint(r["nextPriceUsd"]), fmt.Sprint(r["nextPriceAt"])
						}
						logs[cl] = append(logs[cl], s)
					}
				}
				status, m = clientCall(t, "POST", node.api+"/orders", acc.key, map[string]any{"pid": "uc60",
					"trxid": fmt.Sprintf("c%d-%d", cl, i), "userId": "5123456"})
				if status != 200 {
					t.Errorf("client %d: order %d: %d %v", cl, i, status, m)
					return
				}
				created, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["createdAt"]))
				if err != nil {
					t.Errorf("client %d: createdAt %v: %v", cl, m["createdAt"], err)
					return
				}
				logs[cl] = append(logs[cl], seen{what: "order", price: fmt.Sprint(m["amountUsd"]), created: created, accIndex: cl / 2})
			}
		}()
	}
	// Until a node's watch (every 10 s on each) writes the change.
	for end := at.Add(25 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if time.Now().Before(at.Add(2 * time.Second)) {
			continue
		}
		for _, p := range a.must("GET", "/admin/products", nil)["products"].([]any) {
			if p := p.(map[string]any); p["pid"] == "uc60" && fmt.Sprint(p["priceUsd"]) == "1.5" {
				mu.Lock()
				written = true
				mu.Unlock()
			}
		}
		if written {
			break
		}
	}
	if !written {
		t.Errorf("no node wrote the change into the pack within 25 s of its time")
	}
	mu.Lock()
	written = true // the clients stop
	mu.Unlock()
	wg.Wait()

	wantAt := at.Format("2006-01-02T15:04:05.000Z07:00")
	before, after := 0, 0
	for cl, log := range logs {
		sawNew := false
		for _, s := range log {
			acc := accounts[s.accIndex]
			switch {
			case s.what == "order" && s.created.Before(at) && s.price != acc.old,
				s.what == "order" && !s.created.Before(at) && s.price != acc.new:
				t.Errorf("client %d: an order created at %s (the change at %s) paid %s; want %s before, %s from then",
					cl, s.created.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano), s.price, acc.old, acc.new)
			case s.what == "row" && s.price == acc.old && (s.next != acc.new || s.nextAt != wantAt),
				s.what == "row" && s.price == acc.new && s.next != "",
				s.what == "row" && s.price != acc.old && s.price != acc.new:
				t.Errorf("client %d: a row of price %s, next %q at %q; want %s with %s at %s, or %s alone",
					cl, s.price, s.next, s.nextAt, acc.old, acc.new, wantAt, acc.new)
			case s.price == acc.old && sawNew:
				t.Errorf("client %d: a %s at the old price %s after the new one", cl, s.what, s.price)
			}
			if s.price == acc.new {
				sawNew = true
			}
			if s.what == "order" && s.created.Before(at) {
				before++
			} else if s.what == "order" {
				after++
			}
		}
	}
	if before < 6 || after < 6 {
		t.Errorf("%d orders before the change and %d after: too few to tell", before, after)
	}
	t.Logf("%d orders before the change, %d at or after it", before, after)
	applied := 0
	for _, x := range a.must("GET", "/admin/actions?limit=500", nil)["actions"].([]any) {
		if x := x.(map[string]any); x["action"] == "price-change.apply" && x["target"] == change.ID && x["operator"] == "system" {
			applied++
		}
	}
	if applied != 1 {
		t.Errorf("%d price-change.apply entries by system for the change, want 1", applied)
	}
	list := a.must("GET", "/admin/price-changes?pid=uc60", nil)["priceChanges"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["state"] != "applied" || fmt.Sprint(list[0].(map[string]any)["oldPriceUsd"]) != "1.25" {
		t.Errorf("the change once written: %v", list)
	}
	for _, ch := range a.must("GET", "/admin/audit", nil)["checks"].([]any) {
		if ch := ch.(map[string]any); fmt.Sprint(ch["violations"]) != "0" {
			t.Errorf("audit: %v", ch)
		}
	}
}
