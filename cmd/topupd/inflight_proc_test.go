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
// 8 s), a repeat of its trxid on another node, while the request's
// in-flight hint is held, gets 429 DUPLICATE_IN_FLIGHT: the database finds
// the order's first supplier call unfinished. The hint is never released
// nor extended: once its ttl has passed, a repeat takes the normal path and
// gets the order as it stands as a replay. Once that node is killed, a
// client retrying on another node as Retry-After tells it gets the
// committed order as a replay, told to wait at most 5 s in all.
func TestInFlightHintDiesWithItsHolder(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 3, "")
	_, key := c.nodes[0].setup("100")
	c.nodes[0].must("PATCH", "/admin/settings", map[string]any{"simCallMs": 8000})
	body := map[string]any{"pid": "uc60", "trxid": "held-1", "userId": "5000001"}
	// The hint is taken after this, so it is held until at least sent+ttl.
	sent := time.Now()
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
	replayed := func(status int, m map[string]any) bool {
		return status == 200 && m["orderId"] == orderID && m["idempotentReplay"] == true
	}
	status, m, _, err := callOnce("POST", c.nodes[1].api+"/orders", key, mustJSON(body))
	switch held := time.Since(sent) < httpapi.InFlightTTL; {
	case err == nil && status == 429 && m["code"] == "DUPLICATE_IN_FLIGHT":
	case err == nil && !held && replayed(status, m):
		t.Logf("the machine is slow: the hint had lapsed %v after the first was sent", time.Since(sent))
	default:
		t.Fatalf("a repeat on node 1 %v after sending the first, while it runs: %d %v %v", time.Since(sent), status, m, err)
	}
	time.Sleep(httpapi.InFlightTTL + time.Second) // past the hint's ttl: it has lapsed, nobody extends it
	if status, m, _, err := callOnce("POST", c.nodes[2].api+"/orders", key, mustJSON(body)); err != nil || !replayed(status, m) {
		t.Fatalf("a repeat on node 2 once the hint lapsed: %d %v %v, want a replay of %s", status, m, err, orderID)
	}

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
