package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPostgresOrders places top-up orders from 64 concurrent clients
// spread over one node and over three nodes sharing one PostgreSQL schema and
// one Redis. Each account stays within its rate limits: the load is spread
// over many accounts, as it would be in production.
func BenchmarkPostgresOrders(b *testing.B) {
	for _, nodes := range []int{1, 3} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			c := newCluster(b, nodes, "", "--log-level", "error")
			const accounts = 64
			keys := make([]string, accounts)
			for i := range keys {
				_, keys[i] = c.nodes[0].setup("100000000")
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
			var n atomic.Int64
			run := time.Now().UnixNano()
			if path := os.Getenv("TOPUPD_BENCH_CPUPROFILE"); path != "" && nodes == 1 {
				go nodeProfile(b, c.nodes[0], path)
			}
			rate := hammer(b, client, "orders/s", func() *http.Request {
				i := n.Add(1)
				body := fmt.Sprintf(`{"pid":"uc60","trxid":"pg-%d-%d","userId":"5000001"}`, run, i)
				req, _ := http.NewRequest("POST", c.node(int(i)).api+"/orders", bytes.NewBufferString(body))
				req.Header.Set("X-API-Key", keys[int(i)%accounts])
				return req
			})
			noteRate(b, fmt.Sprintf("postgres/order/nodes=%d", nodes), rate, false, "postgres/ceiling/settle=apart", "postgres/ceiling/settle=same-tx")
		})
	}
}

// nodeProfile writes to path a 3-second CPU profile of node p, taken
// through its admin API from the start of a run (TOPUPD_BENCH_CPUPROFILE):
// each run of the benchmark long enough to cover it writes it again, so
// with -benchtime 4s or more the last run's profile is what remains.
func nodeProfile(b *testing.B, p *proc, path string) {
	req, _ := http.NewRequest("GET", p.admin+"/admin/debug/pprof/profile?seconds=3", nil)
	req.Header.Set("Authorization", "Bearer "+testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil { // a short run's node is gone before the profile ends
		return
	}
	defer resp.Body.Close()
	prof, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Logf("profile: %d %v", resp.StatusCode, err)
		return
	}
	if err := os.WriteFile(path, prof, 0o600); err != nil {
		b.Log(err)
	}
}
