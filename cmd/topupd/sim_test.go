package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestSimSwitch: with --sim off the admin API refuses a pack that would be
// fulfilled by sim, a manual pack is fine, and --demo refuses to start; a
// value other than on or off stops start-up.
func TestSimSwitch(t *testing.T) {
	p := startProc(t, t.TempDir()+"/sim.db", "--sim", "off")
	p.must("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	status, m := call(t, "PUT", p.admin+"/admin/products/uc60", testAdminToken,
		map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": json.Number("1.25"), "status": "active"})
	if status != 400 || m["code"] != "SIM_DISABLED" {
		t.Errorf("a pack defaulting to sim with --sim off: %d %v", status, m)
	}
	p.must("PUT", "/admin/products/uc60", map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": json.Number("1.25"),
		"status": "active", "provider": "manual"})

	for _, args := range [][]string{{"--sim", "off", "--demo"}, {"--sim", "maybe"}} {
		env := map[string]string{}
		err := run(context.Background(), append([]string{"serve", "--db", t.TempDir() + "/x.db", "--addr", "127.0.0.1:0",
			"--admin-addr", "127.0.0.1:0"}, args...), func(k string) string { return env[k] }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "sim") {
			t.Errorf("serve %v: %v, want an error naming --sim", args, err)
		}
	}
}
