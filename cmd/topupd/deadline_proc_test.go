package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// deliveredThenDark starts the chain A→B with A's orders due in 4 s, places
// one top-up at A that B completes, and kills B once it has: B delivered,
// A has not heard. It returns A's order id.
func deliveredThenDark(t *testing.T, aFlags ...string) (*chain, string) {
	c := newChain(t, append([]string{"--order-deadline", "4s", "--lease", "3s", "--supplier-timeout", "2s"}, aFlags...)...)
	c.b.must("PATCH", "/admin/settings", map[string]any{"simDelayMs": 1000})
	id := c.order(t, "dark-1", map[string]any{"pid": "a-uc60", "userId": "5000200"})["orderId"].(string)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if byB := c.b.books(c.bAcct, c.bKey); byB["completed"] == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("B never completed A's order")
		}
	}
	c.b.cmd.Process.Signal(syscall.SIGKILL)
	<-c.b.done
	if _, m := call(t, "GET", c.a.admin+"/admin/orders/"+id, testAdminToken, nil); m["status"] != "processing" {
		t.Fatalf("A learned of the order before B went dark: %v", m)
	}
	return c, id
}

// waitAlert waits until A's order is past its deadline and alerting, still
// processing and unrefunded.
func waitAlert(t *testing.T, p *proc, id string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, m := call(t, "GET", p.admin+"/admin/orders/"+id, testAdminToken, nil)
		if m["status"] != nil && m["status"] != "processing" {
			t.Fatalf("A ended the order while B was dark: %v", m)
		}
		if m["alert"] == "PAST DEADLINE: OUTCOME UNKNOWN" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no alert on A's order past its deadline: %v", m)
		}
	}
	stuck := p.must("GET", "/admin/orders/stuck", nil)
	if n := len(stuck["orders"].([]any)); n != 1 {
		t.Errorf("A lists %d stuck orders, want 1: %v", n, stuck)
	}
}

// checkOneCharge checks that A's order completed, never refunded, charged
// once, and that B holds exactly that one completed order, charged once.
func checkOneCharge(t *testing.T, c *chain, id string) {
	t.Helper()
	final := c.final(t, id, 20*time.Second)
	if final["status"] != "completed" || final["refunded"] == true {
		t.Errorf("A's order ended %v", final)
	}
	byA := c.a.books(c.aAcct, c.aKey)
	byB := c.b.books(c.bAcct, c.bKey)
	if fmt.Sprint(byA) != "map[completed:1]" || fmt.Sprint(byB) != "map[completed:1]" {
		t.Errorf("orders at A %v, at B %v; want one completed order each", byA, byB)
	}
	ledger := c.a.must("GET", "/admin/accounts/"+c.aAcct+"/ledger", nil)["entries"].([]any)
	kinds := map[string]int{}
	for _, e := range ledger {
		kinds[e.(map[string]any)["kind"].(string)]++
	}
	if kinds["charge"] != 1 || kinds["refund"] != 0 {
		t.Errorf("A's ledger: %v, want one charge and no refund", kinds)
	}
}

// TestDeliveredThenDark: upstream B completes an order of ours and then is
// unreachable until past our deadline. Our order stays processing with an
// alert, and when B comes back it ends completed, with one charge.
func TestDeliveredThenDark(t *testing.T) {
	t.Parallel()
	c, id := deliveredThenDark(t)
	waitAlert(t, c.a, id)
	c.b = startProc(t, c.bDB, "--addr", c.bAddr)
	checkOneCharge(t, c, id)
}

// TestDeliveredThenDarkCrash is TestDeliveredThenDark with our node killed
// (SIGKILL) while B is dark, and started again after our deadline passed.
func TestDeliveredThenDarkCrash(t *testing.T) {
	t.Parallel()
	flags := []string{"--node-id", "node-a", "--retry-base", "50ms", "--retry-max", "400ms", "--order-deadline", "4s",
		"--lease", "3s", "--supplier-timeout", "2s"}
	c, id := deliveredThenDark(t, "--node-id", "node-a")
	c.a.cmd.Process.Signal(syscall.SIGKILL)
	<-c.a.done
	time.Sleep(4 * time.Second) // past the deadline
	c.a = startProc(t, c.aDB, flags...)
	waitAlert(t, c.a, id)
	c.b = startProc(t, c.bDB, "--addr", c.bAddr)
	checkOneCharge(t, c, id)
}
