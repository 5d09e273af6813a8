package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchClients is the number of concurrent clients in the benchmarks.
const benchClients = 64

// benchServer runs topupd in-process on a temp database and returns its
// reseller URL, an API key with a large balance, and an HTTP client sized
// for benchClients connections.
func benchServer(b *testing.B) (api, key string, client *http.Client) {
	b.Helper()
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	env := map[string]string{"TOPUPD_ADMIN_TOKEN": testAdminToken, "TOPUPD_RATE_PER_SECOND": "100000000", "TOPUPD_RATE_PER_MINUTE": "100000000"}
	go func() {
		done <- run(ctx, []string{"serve", "--db", b.TempDir() + "/bench.db", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--log-level", "error"},
			func(k string) string { return env[k] }, &out, io.Discard)
	}()
	b.Cleanup(func() { cancel(); <-done })
	var admin string
	re := regexp.MustCompile(`(reseller|admin) API on (http://\S+)`)
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && admin == ""; time.Sleep(10 * time.Millisecond) {
		for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
			if m[1] == "reseller" {
				api = m[2]
			} else {
				admin = m[2]
			}
		}
	}
	if api == "" || admin == "" {
		b.Fatalf("server did not start: %s", out.String())
	}
	client = &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
	adminCall := func(method, path string, body any) map[string]any {
		buf, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, admin+path, bytes.NewReader(buf))
		req.Header.Set("Authorization", "Bearer "+testAdminToken)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		if resp.StatusCode/100 != 2 {
			b.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, m)
		}
		return m
	}
	adminCall("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG UC", "gameName": "PUBG Mobile", "game": "pubg",
		"kind": "topup", "status": "active", "required": []map[string]string{{"field": "userId", "label": "Player ID"}}})
	adminCall("PUT", "/admin/products/uc60", map[string]any{"slug": "pubg", "name": "60 UC", "priceUsd": json.Number("0.89"), "status": "active"})
	acct := adminCall("POST", "/admin/accounts", map[string]any{"name": "bench"})["id"].(string)
	key = adminCall("POST", "/admin/accounts/"+acct+"/keys", nil)["apiKey"].(string)
	adminCall("POST", "/admin/accounts/"+acct+"/credits", map[string]any{"amountUsd": 100000000, "reference": "bench"})
	return api, key, client
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
	hammer(b, client, "orders/s", func() *http.Request {
		body := fmt.Sprintf(`{"pid":"uc60","trxid":"bench-%d-%d","userId":"5000001"}`, run, n.Add(1))
		req, _ := http.NewRequest("POST", api+"/orders", bytes.NewBufferString(body))
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
		return req
	})
}

// BenchmarkGetOrder reads one order from 64 concurrent clients.
func BenchmarkGetOrder(b *testing.B) {
	api, key, client := benchServer(b)
	req, _ := http.NewRequest("POST", api+"/orders", bytes.NewBufferString(`{"pid":"uc60","trxid":"bench-get","userId":"5000001"}`))
	req.Header.Set("X-API-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var o map[string]any
	json.NewDecoder(resp.Body).Decode(&o)
	resp.Body.Close()
	id, _ := o["orderId"].(string)
	if id == "" {
		b.Fatalf("no order: %v", o)
	}
	hammer(b, client, "req/s", func() *http.Request {
		req, _ := http.NewRequest("GET", api+"/orders/"+id, nil)
		req.Header.Set("X-API-Key", key)
		return req
	})
}

// BenchmarkGetBalance reads the balance from 64 concurrent clients.
func BenchmarkGetBalance(b *testing.B) {
	api, key, client := benchServer(b)
	hammer(b, client, "req/s", func() *http.Request {
		req, _ := http.NewRequest("GET", api+"/balance", nil)
		req.Header.Set("X-API-Key", key)
		return req
	})
}

// hammer sends b.N requests made by next from benchClients concurrent
// clients, each expecting 200, and reports their rate as unit and their
// latency percentiles.
func hammer(b *testing.B, client *http.Client, unit string, next func() *http.Request) {
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
	slices.Sort(all)
	if len(all) > 0 {
		at := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / float64(time.Millisecond) }
		b.ReportMetric(at(0.5), "p50-ms")
		b.ReportMetric(at(0.99), "p99-ms")
		b.ReportMetric(at(1), "max-ms")
	}
}

// BenchmarkBaseline serves a same-sized JSON answer from a bare net/http
// handler over the same loopback, so the figures above read as ratios of
// what this machine can do.
func BenchmarkBaseline(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 300)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
	url := "http://" + ln.Addr().String() + "/orders/x"
	hammer(b, client, "req/s", func() *http.Request {
		req, _ := http.NewRequest("GET", url, nil)
		return req
	})
}
