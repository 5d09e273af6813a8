package clienttest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestStockPacks: the packs of key and card lines and the stock-based
// top-up pack draw from stock, with their counts; a top-up pack and a key
// pack an upstream fulfils do not.
func TestStockPacks(t *testing.T) {
	s := newTestServer(t)
	ctx := context.Background()
	// Saved unchecked: nothing answers there.
	if err := s.AdminClient.Do(ctx, "PUT", "/admin/upstreams/wholesale", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k", "check": false}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AdminClient.PutProduct(ctx, client.Pack{PID: "gamekey-up", Slug: "gamekey", Name: "Key via upstream", PriceUSD: 10_000,
		Status: "disabled", Provider: "upstream", Upstream: "wholesale", UpstreamPID: "k1"}); err != nil {
		t.Fatal(err)
	}
	packs, err := s.AdminClient.StockPacks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, p := range packs {
		if !p.StockBased {
			t.Errorf("%s is not marked stock-based", p.PID)
		}
		if p.PID == topupdtest.PIDKey && p.Available != topupdtest.KeyStock {
			t.Errorf("%s has %d codes, want %d", p.PID, p.Available, topupdtest.KeyStock)
		}
		pids = append(pids, p.PID)
	}
	for _, pid := range []string{topupdtest.PIDKey, topupdtest.PIDGift, topupdtest.PIDPubgCodes} {
		if !slices.Contains(pids, pid) {
			t.Errorf("%s is missing from %v", pid, pids)
		}
	}
	for _, pid := range []string{topupdtest.PIDPubg, "gamekey-up"} {
		if slices.Contains(pids, pid) {
			t.Errorf("%s draws no stock, but is in %v", pid, pids)
		}
	}
}
