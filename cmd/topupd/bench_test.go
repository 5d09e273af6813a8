package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	topupdclient "github.com/topupd/topupd/client"
)

// benchClients is the number of concurrent clients in the benchmarks.
const benchClients = 64

// benchServer runs topupd in-process on a temp database and returns its
// reseller URL, an API key with a large balance, and an HTTP client sized
// for benchClients connections.
func benchServer(b *testing.B) (api, key string, client *http.Client) {
	b.Helper()
	api, _, key, client = benchServerAdmin(b)
	return api, key, client
}

// benchServerAdmin is benchServer, and the admin API's URL.
func benchServerAdmin(b *testing.B) (api, admin, key string, client *http.Client) {
	b.Helper()
	api, admin = bcServer(b, map[string]string{"TOPUPD_ADMIN_TOKEN": testAdminToken,
		"TOPUPD_RATE_PER_SECOND": "100000000", "TOPUPD_RATE_PER_MINUTE": "100000000"})
	client = &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
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
	_, err = adm.PutService(ctx, topupdclient.Line{Slug: "pubg", ProductName: "PUBG UC", GameName: "PUBG Mobile", Game: "pubg",
		Kind: "topup", Status: "active", Required: []topupdclient.RequiredField{{Field: "userId", Label: "Player ID"}}})
	must(err)
	_, err = adm.PutProduct(ctx, topupdclient.Pack{PID: "uc60", Slug: "pubg", Name: "60 UC", PriceUSD: 8_900 /* 0.89 USD */, Status: "active"})
	must(err)
	acct, err := adm.CreateAccount(ctx, "bench", nil)
	must(err)
	k, err := adm.CreateKey(ctx, acct.ID, "bench")
	must(err)
	_, err = adm.Credit(ctx, acct.ID, topupdclient.USD(100_000_000), "bench")
	must(err)
	return api, admin, k.APIKey, client
}

// send makes one call and fails the benchmark on any status but 200.
func send(b *testing.B, client *http.Client, req *http.Request) {
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Errorf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
	}
}

// BenchmarkPlaceOrder places top-up orders (sim, completed within the
// request) from 64 concurrent clients; every order is a durable commit. It
// reports orders/s and the latency percentiles of the calls.
func BenchmarkPlaceOrder(b *testing.B) {
	api, key, client := benchServer(b)
	var n atomic.Int64
	run := time.Now().UnixNano()
	rate := hammer(b, client, "orders/s", func() *http.Request {
		body := fmt.Sprintf(`{"pid":"uc60","trxid":"bench-%d-%d","userId":"5000001"}`, run, n.Add(1))
		req, _ := http.NewRequest("POST", api+"/orders", bytes.NewBufferString(body))
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
		return req
	})
	noteRate(b, "sqlite/order", rate, false, "sqlite/ceiling/settle=apart", "sqlite/ceiling/settle=same-tx")
}

// BenchmarkGetOrder reads one order from 64 concurrent clients.
func BenchmarkGetOrder(b *testing.B) {
	api, key, client := benchServer(b)
	hammer(b, client, "req/s", routeRequest(api+"/orders/"+placeOne(b, client, api, key), key))
}

// BenchmarkGetBalance reads the balance from 64 concurrent clients.
func BenchmarkGetBalance(b *testing.B) {
	api, key, client := benchServer(b)
	hammer(b, client, "req/s", routeRequest(api+"/balance", key))
}

// hammer sends b.N requests made by next from benchClients concurrent
// clients, each expecting 200, and reports their rate as unit and their
// latency percentiles.
func hammer(b *testing.B, client *http.Client, unit string, next func() *http.Request) float64 {
	var mu sync.Mutex
	var all []time.Duration
	b.SetParallelism(max(1, benchClients/runtimeProcs()))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			req := next()
			start := time.Now()
			send(b, client, req)
			mine = append(mine, time.Since(start))
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	return reportLatencies(b, all, unit)
}

// reportLatencies reports b's rate as unit and the percentiles of the
// latencies in all, and returns the rate.
func reportLatencies(b *testing.B, all []time.Duration, unit string) float64 {
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, unit)
	slices.Sort(all)
	if len(all) > 0 {
		at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / float64(time.Millisecond) }
		b.ReportMetric(at(0.5), "p50-ms")
		b.ReportMetric(at(0.99), "p99-ms")
		b.ReportMetric(at(1), "max-ms")
	}
	return rate
}

// BenchmarkBaseline serves a same-sized JSON answer from a bare net/http
// handler over the same loopback, so the figures above read as ratios of
// what this machine can do.
func BenchmarkBaseline(b *testing.B) {
	url := bareServer(b, map[string][]byte{"/orders/x": bytes.Repeat([]byte("x"), 300)}) + "/orders/x"
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
	hammer(b, client, "req/s", func() *http.Request {
		req, _ := http.NewRequest("GET", url, nil)
		return req
	})
}
