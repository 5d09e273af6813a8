package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestSimSwitch: sim is off by default: the start-up line says so and
// warns of nothing, a top-up pack that names no provider is
// PROVIDER_REQUIRED, one that names sim is SIM_DISABLED, and a key pack is
// stock and sold from its codes. --demo turns sim on, with a warning at
// start; --demo with --sim off, and a value other than on or off, stop
// start-up.
func TestSimSwitch(t *testing.T) {
	t.Parallel()
	p := startProcEnv(t, []string{"TOPUPD_SIM=", "TOPUPD_LOG_LEVEL=info"}, t.TempDir()+"/sim.db")
	if line := p.logLine(t, "start"); line["sim"] != "off" {
		t.Errorf("the start-up line says sim %v, want off: %v", line["sim"], line)
	}
	if strings.Contains(p.out.String(), "sim supplier is on") {
		t.Errorf("a warning of sim with sim off:\n%s", p.out)
	}
	p.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	uc := map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": json.Number("1.25"), "status": "active"}
	if status, m := call(t, "PUT", p.admin+"/admin/products/uc60", testAdminToken, uc); status != 400 || m["code"] != "PROVIDER_REQUIRED" {
		t.Errorf("a top-up pack without a provider, sim off by default: %d %v", status, m)
	}
	uc["provider"] = "sim"
	if status, m := call(t, "PUT", p.admin+"/admin/products/uc60", testAdminToken, uc); status != 400 || m["code"] != "SIM_DISABLED" {
		t.Errorf("a sim pack, sim off by default: %d %v", status, m)
	}
	uc["provider"] = "manual"
	p.must("PUT", "/admin/products/uc60", uc)
	p.must("PUT", "/admin/services/keys", map[string]any{"productName": "Keys", "gameName": "Keys", "game": "gamekey",
		"kind": "gamekey", "status": "active", "required": []map[string]string{}})
	if got := p.must("PUT", "/admin/products/key", map[string]any{"slug": "keys", "name": "Key", "priceUsd": json.Number("2"),
		"status": "active"}); got["provider"] != "stock" {
		t.Errorf("a key pack without a provider: %v, want provider stock", got)
	}
	p.must("POST", "/admin/products/key/stock", map[string]any{"codes": []string{"KEY-AAAA-0001"}})
	acct := p.must("POST", "/admin/accounts", map[string]any{"name": "shop"})["id"].(string)
	key := p.must("POST", "/admin/accounts/"+acct+"/keys", nil)["apiKey"].(string)
	p.must("POST", "/admin/accounts/"+acct+"/credits", map[string]any{"amountUsd": 10, "reference": "opening"})
	status, o := call(t, "POST", p.api+"/orders", key, map[string]any{"pid": "key", "trxid": "sim-off-key", "quantity": 1})
	if status != 200 || o["status"] != "completed" {
		t.Errorf("a key order with sim off: %d %v", status, o)
	}

	demo := startProcEnv(t, []string{"TOPUPD_SIM=", "TOPUPD_LOG_LEVEL=info"}, t.TempDir()+"/demo.db", "--demo")
	if line := demo.logLine(t, "start"); line["sim"] != "on" {
		t.Errorf("the start-up line of --demo says sim %v, want on", line["sim"])
	}
	if !strings.Contains(demo.out.String(), "sim supplier is on") {
		t.Errorf("no warning of sim at the start of --demo:\n%s", demo.out)
	}

	for _, args := range [][]string{{"--sim", "off", "--demo"}, {"--sim", "maybe"}} {
		env := map[string]string{}
		err := run(context.Background(), append([]string{"serve", "--db", t.TempDir() + "/x.db", "--addr", "127.0.0.1:0",
			"--admin-addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "sim") {
			t.Errorf("serve %v: %v, want an error naming --sim", args, err)
		}
	}
}

// logLine returns the first JSON log line whose msg is msg, waiting a
// while for it; nil when none came.
func (p *proc) logLine(t testing.TB, msg string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		sc := bufio.NewScanner(strings.NewReader(p.out.String()))
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == msg {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("no log line %q in:\n%s", msg, p.out)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}
