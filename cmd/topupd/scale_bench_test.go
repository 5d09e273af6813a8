package main

import (
	"bytes"
	"fmt"
	"net/http"
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
