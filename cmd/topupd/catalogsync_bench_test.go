package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	topupdclient "github.com/topupd/topupd/client"
)

// BenchmarkCatalogETag reads GET /products of 200 packs (on a tier, with
// own prices, 20 of them drawing from stock) one call after another: the
// whole answer, and a 304 to a request that holds its ETag, which reads
// one small sum instead of the catalog. Compare their ns/op.
func BenchmarkCatalogETag(b *testing.B) {
	api, admin, _, client := benchServerAdmin(b)
	adm, err := topupdclient.NewAdmin(admin, testAdminToken, topupdclient.WithRetries(0))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	listed := map[string]any{}
	for i := range 200 {
		pid := fmt.Sprintf("p%03d", i)
		_, err := adm.PutProduct(ctx, topupdclient.Pack{PID: pid, Slug: "pubg", Name: "pack " + pid, Category: "UC",
			PriceUSD: 10_000 + 100*topupdclient.Money(i), Status: "active", StockBased: i%10 == 0})
		must(err)
		if i%10 == 0 {
			_, err := adm.AddStock(ctx, pid, []string{pid + "-code-1", pid + "-code-2"})
			must(err)
		}
		if i%3 == 0 {
			listed[pid] = 1.5
		}
	}
	must(adm.Do(ctx, "PUT", "/admin/tiers/gold", map[string]any{"markupPercent": 10, "prices": listed}, nil))
	acct, err := adm.CreateAccount(ctx, "sync", nil)
	must(err)
	must(adm.Do(ctx, "PATCH", "/admin/accounts/"+acct.ID, map[string]any{"tier": "gold"}, nil))
	for i := range 10 {
		must(adm.Do(ctx, "PUT", fmt.Sprintf("/admin/accounts/%s/prices/p%03d", acct.ID, 7*i+1), map[string]any{"priceUsd": 2}, nil))
	}
	k, err := adm.CreateKey(ctx, acct.ID, "sync")
	must(err)

	get := func(tag string, want int) (string, int) {
		req, _ := http.NewRequest("GET", api+"/products", nil)
		req.Header.Set("X-API-Key", k.APIKey)
		if tag != "" {
			req.Header.Set("If-None-Match", tag)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			b.Fatalf("GET /products (If-None-Match %q): %d, want %d", tag, resp.StatusCode, want)
		}
		return resp.Header.Get("ETag"), int(n)
	}
	tag, size := get("", http.StatusOK)
	b.Run("full", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			get("", http.StatusOK)
		}
	})
	b.Run("not-modified", func(b *testing.B) {
		for b.Loop() {
			get(tag, http.StatusNotModified)
		}
	})
}
