package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	topupdclient "github.com/topupd/topupd/client"
)

// pricedServer is benchServer with 20 more packs with costs, a tier
// pricing them (10 listed, the rest marked up), and a second account on
// the tier with 5 prices of its own and spending limits no order reaches.
func pricedServer(b *testing.B) (api, plainKey, tieredKey string, client *http.Client) {
	b.Helper()
	api, admin, plainKey, client := benchServerAdmin(b)
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
	for i := range 20 {
		pid := fmt.Sprintf("uc%d", 100+i)
		cost := topupdclient.Money(5_000 + 100*i)
		_, err := adm.PutProduct(ctx, topupdclient.Pack{PID: pid, Slug: "pubg", Name: pid, PriceUSD: 10_000 + 100*topupdclient.Money(i), Status: "active", CostUSD: &cost})
		must(err)
		if i%2 == 0 {
			listed[pid] = json.Number((cost + 1_000).Dollars())
		}
	}
	must(adm.Do(ctx, "PUT", "/admin/tiers/gold", map[string]any{"markupPercent": 12.5, "roundToUsd": 0.05, "prices": listed}, nil))
	acct, err := adm.CreateAccount(ctx, "tiered", nil)
	must(err)
	must(adm.Do(ctx, "PATCH", "/admin/accounts/"+acct.ID, map[string]any{"tier": "gold", "maxOrderUsd": 1_000_000, "dailyLimitUsd": 1_000_000_000}, nil))
	for i := range 5 {
		must(adm.Do(ctx, "PUT", fmt.Sprintf("/admin/accounts/%s/prices/uc%d", acct.ID, 101+2*i), map[string]any{"priceUsd": 0.99}, nil))
	}
	must(adm.Do(ctx, "PUT", "/admin/accounts/"+acct.ID+"/prices/uc60", map[string]any{"priceUsd": 0.99, "allowBelowCost": true}, nil))
	k, err := adm.CreateKey(ctx, acct.ID, "bench")
	must(err)
	_, err = adm.Credit(ctx, acct.ID, topupdclient.USD(100_000_000), "bench")
	must(err)
	return api, plainKey, k.APIKey, client
}

// BenchmarkCatalog reads GET /products (21 packs) from 64 concurrent
// clients: as an account on the packs' own prices, and as one on a tier
// with prices of its own, which costs one more query a read.
func BenchmarkCatalog(b *testing.B) {
	api, plain, tiered, client := pricedServer(b)
	for _, c := range []struct{ name, key string }{{"pack-prices", plain}, {"tier-and-own-prices", tiered}} {
		b.Run(c.name, func(b *testing.B) {
			hammer(b, client, "req/s", func() *http.Request {
				req, _ := http.NewRequest("GET", api+"/products", nil)
				req.Header.Set("X-API-Key", c.key)
				return req
			})
		})
	}
}

// BenchmarkPlaceOrderPriced places orders as BenchmarkPlaceOrder does, as
// an account without a tier or limits, and as one whose order reads a tier,
// an own price and both spending limits (the day's spend too).
func BenchmarkPlaceOrderPriced(b *testing.B) {
	api, plain, tiered, client := pricedServer(b)
	var n atomic.Int64
	run := time.Now().UnixNano()
	for _, c := range []struct{ name, key string }{{"pack-price", plain}, {"tier-own-price-limits", tiered}} {
		b.Run(c.name, func(b *testing.B) {
			hammer(b, client, "orders/s", func() *http.Request {
				body := fmt.Sprintf(`{"pid":"uc60","trxid":"bench-%d-%d","userId":"5000001"}`, run, n.Add(1))
				req, _ := http.NewRequest("POST", api+"/orders", bytes.NewBufferString(body))
				req.Header.Set("X-API-Key", c.key)
				req.Header.Set("Content-Type", "application/json")
				return req
			})
		})
	}
}
