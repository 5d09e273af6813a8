package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// getLeg is how long each leg of BenchmarkGetRatio sends requests.
const getLeg = 400 * time.Millisecond

// BenchmarkGetRatio measures GET /orders/{id} and GET /balance against a
// bare net/http handler that serves the same answers (the same body bytes
// and content type, captured from the routes), over the same loopback with
// the same client settings and 64 concurrent clients. The three run in
// turns, a leg of getLeg each, so that the machine's drift during the run
// falls on both sides of each ratio: each b.N is one round (bare, order,
// balance), a last bare leg closes the run, and a route's leg is compared
// with the mean of the bare legs on either side of it. It reports each
// route's median ratio over the rounds ("order/bare", "balance/bare") and
// the mean rates. Give it a count of rounds:
//
//	go test -run '^$' -bench GetRatio -benchtime 10x ./cmd/topupd
func BenchmarkGetRatio(b *testing.B) {
	api, key, client := benchServer(b)
	id := placeOne(b, client, api, key)
	order := routeRequest(api+"/orders/"+id, key)
	balance := routeRequest(api+"/balance", key)
	bareURL := bareServer(b, map[string][]byte{
		"/orders/x": answerOf(b, client, order()),
		"/balance":  answerOf(b, client, balance()),
	})
	bareOrder, bareBalance := routeRequest(bareURL+"/orders/x", ""), routeRequest(bareURL+"/balance", "")
	bareClient := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
	bare := func() float64 {
		// Half of a bare leg asks for each answer, as the routes' legs do.
		var turn atomic.Int64
		return legRate(b, bareClient, func() *http.Request {
			if turn.Add(1)%2 == 0 {
				return bareOrder()
			}
			return bareBalance()
		})
	}
	// A round unmeasured first: connections opened, caches and pages warm.
	bare()
	legRate(b, client, order)
	legRate(b, client, balance)
	b.ResetTimer()
	var bares, orders, balances []float64
	for range b.N {
		bares = append(bares, bare())
		orders = append(orders, legRate(b, client, order))
		balances = append(balances, legRate(b, client, balance))
	}
	bares = append(bares, bare())
	b.StopTimer()
	ratios := func(route []float64) float64 {
		r := make([]float64, len(route))
		for i, v := range route {
			r[i] = v / ((bares[i] + bares[i+1]) / 2)
		}
		slices.Sort(r)
		return r[len(r)/2]
	}
	mean := func(v []float64) float64 {
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	b.ReportMetric(ratios(orders), "order/bare")
	b.ReportMetric(ratios(balances), "balance/bare")
	b.ReportMetric(mean(bares), "bare-req/s")
	b.ReportMetric(mean(orders), "order-req/s")
	b.ReportMetric(mean(balances), "balance-req/s")
	b.ReportMetric(0, "ns/op")
}

// placeOne places one sim order and returns its id.
func placeOne(b *testing.B, client *http.Client, api, key string) string {
	b.Helper()
	req, _ := http.NewRequest("POST", api+"/orders", bytes.NewBufferString(`{"pid":"uc60","trxid":"bench-get","userId":"5000001"}`))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	var o struct {
		OrderID string `json:"orderId"`
	}
	if err := json.Unmarshal(answerOf(b, client, req), &o); err != nil || o.OrderID == "" {
		b.Fatalf("no order: %v %+v", err, o)
	}
	return o.OrderID
}

// routeRequest returns a maker of GET requests to url, with key when one
// is given.
func routeRequest(url, key string) func() *http.Request {
	return func() *http.Request {
		req, _ := http.NewRequest("GET", url, nil)
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		return req
	}
}

// answerOf makes req and returns its body, failing b on any status but 200.
func answerOf(b *testing.B, client *http.Client, req *http.Request) []byte {
	b.Helper()
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("%s: %d %v %s", req.URL.Path, resp.StatusCode, err, body)
	}
	return body
}

// bareServer serves each body of answers at its path as JSON from a bare
// net/http handler on loopback, and returns its base URL.
func bareServer(b *testing.B, answers map[string][]byte) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answers[r.URL.Path])
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// legRate sends requests made by next from benchClients concurrent clients
// for getLeg, each expecting 200, and returns the rate of those answered.
func legRate(b *testing.B, client *http.Client, next func() *http.Request) float64 {
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	until := start.Add(getLeg)
	for range benchClients {
		wg.Go(func() {
			for time.Now().Before(until) {
				send(b, client, next())
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}
