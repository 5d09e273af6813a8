package clienttest_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

func TestWaitForOrderCompleted(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	mustSettings(t, s, map[string]any{"simDelayMs": 300})
	var gets atomic.Int64
	c := newClient(t, s, a.Key, client.WithPollInterval(50*time.Millisecond), client.WithHTTPClient(countingHTTP(&gets)))
	o := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if o.Status != client.StatusProcessing || o.Final() {
		t.Fatalf("placed order is %s, want processing", o.Status)
	}
	gets.Store(0)
	done, err := c.WaitForOrder(ctxT(t, 5*time.Second), o.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != client.StatusCompleted || done.OrderID != o.OrderID || done.Refunded || done.Error != "" {
		t.Errorf("order %+v, want completed", done)
	}
	if n := gets.Load(); n < 2 || n > 20 {
		t.Errorf("%d polls for a 300 ms order at 50 ms", n)
	}
}

func TestWaitForOrderCancelledAndRefunded(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	mustSettings(t, s, map[string]any{"simDelayMs": 200})
	c := newClient(t, s, a.Key, client.WithPollInterval(50*time.Millisecond))
	o := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "99990001"})
	done, err := c.WaitForOrder(ctxT(t, 5*time.Second), o.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != client.StatusCancelled || !done.Refunded || done.Error != "INVALID PLAYER" || !done.OrderCreated {
		t.Errorf("order %+v, want cancelled, refunded, INVALID PLAYER", done)
	}
	if bal, err := c.Balance(context.Background()); err != nil || bal != money(t, "10") {
		t.Errorf("balance %v, %v; want 10 after the refund", bal, err)
	}
}

func TestWaitForOrderManualCodes(t *testing.T) {
	s := newTestServer(t)
	// A top-up an operator completes with codes: bought from an upstream
	// (a manual top-up of our own delivers none) whose pack is manual.
	up := newTestServer(t)
	at := mustAccount(t, up, "100")
	s.Logs.Secret(at.Key, "our key at the upstream")
	s.AdminCall("PUT", "/admin/upstreams/by-hand", map[string]any{"baseUrl": up.API.URL, "apiKey": at.Key}, nil)
	s.PutPack("pubg-by-hand", map[string]any{"slug": "pubg", "name": "60 UC by hand", "priceUsd": topupdtest.USD("2"), "status": "active",
		"provider": "upstream", "upstream": "by-hand", "upstreamPid": topupdtest.PIDPubgManual})
	a := mustAccount(t, s, "10")
	c := newClient(t, s, a.Key, client.WithPollInterval(20*time.Millisecond))
	o := mustOrder(t, c, client.OrderRequest{PID: "pubg-by-hand", TrxID: s.Trx(), UserID: "5123456789"})
	go func() {
		time.Sleep(100 * time.Millisecond)
		if err := s.AdminClient.Do(context.Background(), "POST", "/admin/orders/"+o.OrderID+"/complete", map[string]any{"codes": []string{"CODE-1"}}, nil); err != nil {
			t.Error(err)
		}
	}()
	done, err := c.WaitForOrder(ctxT(t, 5*time.Second), o.OrderID)
	if err != nil || done.Status != client.StatusCompleted || len(done.Codes) != 1 || done.Codes[0] != "CODE-1" {
		t.Errorf("WaitForOrder = %+v, %v", done, err)
	}
}

func TestWaitForOrderContext(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	mustSettings(t, s, map[string]any{"simDelayMs": 60_000})
	c := newClient(t, s, a.Key, client.WithPollInterval(50*time.Millisecond))
	o := mustOrder(t, c, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})

	start := time.Now()
	last, err := c.WaitForOrder(ctxT(t, 300*time.Millisecond), o.OrderID)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v with a 300 ms deadline", d)
	}
	if last == nil || last.Status != client.StatusProcessing || last.OrderID != o.OrderID {
		t.Errorf("last seen %+v, want the processing order", last)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.WaitForOrder(ctx, o.OrderID); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	// A poll interval past the deadline ends the wait after the first look.
	slow := newClient(t, s, a.Key, client.WithPollInterval(time.Hour))
	start = time.Now()
	if _, err := slow.WaitForOrder(ctxT(t, 2*time.Second), o.OrderID); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow poll: %v", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("slow poll took %v", d)
	}
}

func TestWaitForOrderFakeClock(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	c0 := newClient(t, s, a.Key)
	o := mustOrder(t, c0, client.OrderRequest{PID: topupdtest.PIDPubgManual, TrxID: s.Trx(), UserID: "5123456789"})
	// The sleep hook finishes the order by hand on the third poll's wait.
	var polls atomic.Int64
	sleep := func(ctx context.Context, d time.Duration) error {
		if d != client.DefaultPollInterval {
			t.Errorf("poll interval %v, want the default %v", d, client.DefaultPollInterval)
		}
		if polls.Add(1) == 3 {
			return s.AdminClient.Do(context.Background(), "POST", "/admin/orders/"+o.OrderID+"/cancel", map[string]any{"error": "OUT OF SERVICE"}, nil)
		}
		return nil
	}
	c := newClient(t, s, a.Key, client.WithSleep(sleep))
	done, err := c.WaitForOrder(ctxT(t, 5*time.Second), o.OrderID)
	if err != nil || done.Status != client.StatusCancelled || !done.Refunded || done.Error != "OUT OF SERVICE" {
		t.Errorf("WaitForOrder = %+v, %v", done, err)
	}
	if polls.Load() != 3 {
		t.Errorf("%d waits, want 3", polls.Load())
	}
	if _, err := c.WaitForOrder(context.Background(), "ord_nope"); client.StatusCode(err) != http.StatusNotFound {
		t.Errorf("unknown order: %v", err)
	}
}
