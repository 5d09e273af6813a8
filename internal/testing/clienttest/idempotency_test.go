package clienttest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// loseFirstPost is a transport whose first POST /orders reaches the server,
// which processes it, but whose answer is lost on the way back. With
// background, the answer is awaited in the background and the loss
// reported after delay, while the server is still working on it.
type loseFirstPost struct {
	lost       atomic.Bool
	background bool
	delay      time.Duration
	wg         sync.WaitGroup
	mu         sync.Mutex
	bodies     []string // every POST body sent
	statuses   []int    // every POST answer's status, lost or not
}

func (l *loseFirstPost) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost {
		return http.DefaultTransport.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body.Close()
	l.mu.Lock()
	l.bodies = append(l.bodies, string(body))
	l.mu.Unlock()
	send := func(ctx context.Context) (*http.Response, error) {
		r2 := r.Clone(ctx)
		r2.Body = io.NopCloser(bytesReader(body))
		resp, err := http.DefaultTransport.RoundTrip(r2)
		if err == nil {
			l.mu.Lock()
			l.statuses = append(l.statuses, resp.StatusCode)
			l.mu.Unlock()
		}
		return resp, err
	}
	if !l.lost.CompareAndSwap(false, true) {
		return send(r.Context())
	}
	drain := func() {
		if resp, err := send(context.Background()); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	if !l.background {
		drain()
		return nil, errLost
	}
	l.wg.Go(drain)
	time.Sleep(l.delay)
	return nil, errLost
}

// chargesOf counts an account's charge entries per order.
func chargesOf(t *testing.T, s *server, a topupdtest.Account) map[string]int {
	t.Helper()
	entries, err := s.AdminClient.Ledger(context.Background(), a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		if e.Kind == "charge" {
			out[e.OrderID]++
		}
	}
	return out
}

// checkOneOrder checks that the account holds exactly one order, charged once.
func checkOneOrder(t *testing.T, s *server, a topupdtest.Account, c *client.Client, o *client.Order) {
	t.Helper()
	charges := chargesOf(t, s, a)
	if len(charges) != 1 || charges[o.OrderID] != 1 {
		t.Errorf("charges per order %v, want one for %s", charges, o.OrderID)
	}
	p, err := c.HistoryPage(context.Background(), 1, 10)
	if err != nil || p.Total != 1 || p.Orders[0].OrderID != o.OrderID {
		t.Errorf("history %+v, %v; want only %s", p, err, o.OrderID)
	}
	if bal, err := c.Balance(context.Background()); err != nil || bal != money(t, "10")-money(t, topupdtest.PricePubg) {
		t.Errorf("balance %v, %v; want 10 - %s", bal, err, topupdtest.PricePubg)
	}
}

func TestLostPostAnswerIsReplayed(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	lose := &loseFirstPost{}
	c := newClient(t, s, a.Key, client.WithHTTPClient(&http.Client{Transport: lose}), client.WithSleep((&sleepLog{}).sleep))
	o, err := c.PlaceOrder(ctxT(t, 5*time.Second), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.IdempotentReplay || !o.OrderCreated || o.Status != client.StatusCompleted {
		t.Errorf("order %+v, want a completed replay", o)
	}
	if len(lose.bodies) != 2 || lose.bodies[0] != lose.bodies[1] {
		t.Errorf("bodies sent %q, want the same twice", lose.bodies)
	}
	checkOneOrder(t, s, a, c, o)
}

func TestLostPostAnswerWhileInFlight(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	mustSettings(t, s, map[string]any{"simCallMs": 500}) // the first POST holds its trxid for 500 ms
	lose := &loseFirstPost{background: true, delay: 100 * time.Millisecond}
	t.Cleanup(lose.wg.Wait)
	c := newClient(t, s, a.Key, client.WithHTTPClient(&http.Client{Transport: lose}),
		client.WithSleep(shortSleep(50*time.Millisecond)), client.WithRetries(50))
	o, err := c.PlaceOrder(ctxT(t, 5*time.Second), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if err != nil {
		t.Fatal(err)
	}
	lose.wg.Wait()
	if !o.IdempotentReplay || o.Status != client.StatusCompleted {
		t.Errorf("order %+v, want a completed replay", o)
	}
	lose.mu.Lock()
	statuses := append([]int(nil), lose.statuses...)
	lose.mu.Unlock()
	dup := 0
	for _, st := range statuses {
		if st == http.StatusTooManyRequests {
			dup++
		}
	}
	if dup == 0 {
		t.Errorf("statuses %v: no DUPLICATE_IN_FLIGHT seen", statuses)
	}
	checkOneOrder(t, s, a, c, o)
}

func TestDeadlineStopsRetryAfterWait(t *testing.T) {
	var calls atomic.Int64
	s := newTestServer(t, topupdtest.WithWrap(failFirst(1000, http.StatusServiceUnavailable, "MAINTENANCE", "30", &calls)))
	a := mustAccount(t, s, "2")
	c := newClient(t, s, a.Key)
	start := time.Now()
	_, err := c.PlaceOrder(ctxT(t, 2*time.Second), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("took %v; a 30 s Retry-After past the deadline should end the call at once", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) || client.StatusCode(err) != http.StatusServiceUnavailable {
		t.Errorf("error %v: want DeadlineExceeded wrapping the 503", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls, want 1", calls.Load())
	}
}

func TestDeadlineStopsBackoff(t *testing.T) {
	var calls atomic.Int64
	s := newTestServer(t, topupdtest.WithWrap(failFirst(1_000_000, http.StatusServiceUnavailable, "MAINTENANCE", "", &calls)))
	a := mustAccount(t, s, "2")
	c := newClient(t, s, a.Key, client.WithRetries(1_000_000), client.WithBackoff(20*time.Millisecond, 40*time.Millisecond))
	start := time.Now()
	_, err := c.Balance(ctxT(t, 300*time.Millisecond))
	if d := time.Since(start); d > 600*time.Millisecond {
		t.Errorf("took %v with a 300 ms deadline", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want DeadlineExceeded", err)
	}
	if calls.Load() < 3 {
		t.Errorf("%d calls; the backoff should have allowed several", calls.Load())
	}
}

func TestDeadlineStopsHangingCall(t *testing.T) {
	release := make(chan struct{})
	s := newTestServer(t, topupdtest.WithWrap(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
	}))
	defer close(release)
	c := newClient(t, s, "tpd_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	start := time.Now()
	_, err := c.Services(ctxT(t, 200*time.Millisecond))
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v with a 200 ms deadline", d)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want DeadlineExceeded", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Services(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestClientTimeoutDuringPostIsSafe(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "10")
	mustSettings(t, s, map[string]any{"simCallMs": 400}) // a new order takes 400 ms on the server
	hc := &http.Client{Timeout: 150 * time.Millisecond}  // the client gives up on the first attempt
	c := newClient(t, s, a.Key, client.WithHTTPClient(hc), client.WithRetries(1000), client.WithSleep(shortSleep(20*time.Millisecond)))
	o, err := c.PlaceOrder(ctxT(t, 10*time.Second), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if err != nil {
		t.Fatal(err)
	}
	if !o.IdempotentReplay {
		t.Errorf("order %+v, want a replay", o)
	}
	// The first attempt's caller is gone, so its supplier call may still be
	// running: the replay may be processing. It must end completed, once.
	if !o.Final() {
		c2 := newClient(t, s, a.Key, client.WithPollInterval(20*time.Millisecond))
		if o, err = c2.WaitForOrder(ctxT(t, 10*time.Second), o.OrderID); err != nil {
			t.Fatal(err)
		}
	}
	if o.Status != client.StatusCompleted {
		t.Errorf("order %+v, want completed", o)
	}
	checkOneOrder(t, s, a, c, o)
}

// shortSleep is a sleep hook that waits at most limit (Retry-After 1 s, shortened).
func shortSleep(limit time.Duration) func(context.Context, time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(min(d, limit))
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
