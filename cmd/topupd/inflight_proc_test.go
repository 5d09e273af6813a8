package main

import (
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/topupd/topupd/httpapi"
)

// TestInFlightHintDiesWithItsHolder: three nodes on PostgreSQL and Redis.
// While a request is really in flight on one node (its supplier call takes
// 8 s), a repeat of its trxid on the other nodes gets 429
// DUPLICATE_IN_FLIGHT, also after the hint's own ttl has passed. Once that
// node is killed, a client retrying on another node as Retry-After tells it
// gets the committed order as a replay, told to wait at most 5 s in all.
func TestInFlightHintDiesWithItsHolder(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, "")
	_, key := c.nodes[0].setup("100")
	c.nodes[0].must("PATCH", "/admin/settings", map[string]any{"simCallMs": 8000})
	body := map[string]any{"pid": "uc60", "trxid": "held-1", "userId": "5000001"}
	go callOnce("POST", c.nodes[0].api+"/orders", key, mustJSON(body)) // cut off by the kill

	var orderID string
	for end := time.Now().Add(20 * time.Second); orderID == ""; time.Sleep(20 * time.Millisecond) {
		list := c.nodes[1].must("GET", "/admin/orders?trxid=held-1", nil)["orders"].([]any)
		if len(list) == 1 {
			orderID = list[0].(map[string]any)["orderId"].(string)
		}
		if time.Now().After(end) {
			t.Fatal("the order was never placed")
		}
	}
	placed := time.Now()
	duplicate := func(node int) {
		t.Helper()
		status, m, _, err := callOnce("POST", c.nodes[node].api+"/orders", key, mustJSON(body))
		if err != nil || status != 429 || m["code"] != "DUPLICATE_IN_FLIGHT" {
			t.Fatalf("a repeat on node %d %v after placing, while the first runs: %d %v %v", node, time.Since(placed), status, m, err)
		}
	}
	duplicate(1)
	time.Sleep(httpapi.InFlightTTL + time.Second) // past the hint's ttl: its holder has extended it
	duplicate(2)

	c.nodes[0].cmd.Process.Signal(syscall.SIGKILL)
	<-c.nodes[0].done
	killed := time.Now()
	var told time.Duration // the waits the 429s asked for, in all
	for {
		status, m, retryAfter, err := callOnce("POST", c.nodes[1].api+"/orders", key, mustJSON(body))
		switch {
		case err == nil && status == 200:
			if m["orderId"] != orderID || m["idempotentReplay"] != true {
				t.Fatalf("the retry after the kill: %v, want a replay of %s", m, orderID)
			}
			// The client slept only as told, and was told to wait no
			// longer than the hint outlives its holder (and one more
			// Retry-After): a slow machine makes this less, never more.
			t.Logf("the retry got the order as a replay %v after the kill, told to wait %v", time.Since(killed), told)
			if told > 5*time.Second {
				t.Errorf("the client was told to wait %v in all after the kill, want at most 5s", told)
			}
			list := c.nodes[2].must("GET", "/admin/orders?trxid=held-1", nil)["orders"].([]any)
			if len(list) != 1 {
				t.Errorf("%d orders with the trxid, want 1", len(list))
			}
			return
		case err == nil && status == 429 && m["code"] == "DUPLICATE_IN_FLIGHT":
			told += retryAfter
			time.Sleep(retryAfter) // as a client is told to
		default:
			t.Fatalf("the retry after the kill: %d %v %v", status, m, err)
		}
		if time.Since(killed) > 30*time.Second {
			t.Fatal("the trxid was still in flight 30 s after its holder died")
		}
	}
}

// mustJSON encodes v, which must encode.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mustJSON: %v", err))
	}
	return b
}
