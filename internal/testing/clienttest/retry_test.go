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

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	clock := topupdtest.NewClock()
	s := newTestServer(t, topupdtest.WithRates(2, 1000), topupdtest.WithRateClock(clock))
	a := mustAccount(t, s, "10")
	sl := &sleepLog{clock: clock}
	c := newClient(t, s, a.Key, client.WithSleep(sl.sleep))
	ctx := ctxT(t, 10*time.Second)
	for i := range 12 {
		var err error
		switch i % 3 {
		case 0:
			_, err = c.Balance(ctx)
		case 1:
			_, err = c.Products(ctx)
		case 2:
			_, err = c.History(ctx, client.HistoryQuery{Limit: 5})
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// Two calls fit in each second: calls 3, 5, 7, 9 and 11 wait one second each.
	waits := sl.get()
	if len(waits) != 5 {
		t.Errorf("waits %v, want five of 1s", waits)
	}
	for _, w := range waits {
		if w != time.Second {
			t.Errorf("waited %v, want the Retry-After of 1s", w)
		}
	}

	// Without retries, the limit is an *Error carrying Retry-After.
	strict := newClient(t, s, a.Key, client.WithRetries(0))
	var err error
	for range 3 {
		if _, err = strict.Balance(ctx); err != nil {
			break
		}
	}
	e := wantError(t, err, http.StatusTooManyRequests, client.CodeRateLimit, "TOO MANY REQUESTS")
	if e.RetryAfter != time.Second || !e.Temporary() {
		t.Errorf("RetryAfter %v, Temporary %v", e.RetryAfter, e.Temporary())
	}
}

func TestRateLimitConcurrentBurst(t *testing.T) {
	clock := topupdtest.NewClock()
	s := newTestServer(t, topupdtest.WithRates(2, 1000), topupdtest.WithRateClock(clock))
	a := mustAccount(t, s, "100")
	sl := &sleepLog{clock: clock}
	c := newClient(t, s, a.Key, client.WithSleep(sl.sleep), client.WithRetries(100))
	ctx := ctxT(t, 10*time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for range 8 {
		wg.Go(func() {
			for i := range 5 {
				if i == 0 {
					_, err := c.PlaceOrder(ctx, client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
					errs <- err
					continue
				}
				_, err := c.Balance(ctx)
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if len(sl.get()) == 0 {
		t.Error("the limit never tripped")
	}
	bal, err := c.Balance(ctx)
	if want := money(t, "100") - 8*money(t, topupdtest.PricePubg); err != nil || bal != want {
		t.Errorf("balance %v, %v; want %v", bal, err, want)
	}
}

func TestRateLimitRealClock(t *testing.T) {
	s := newTestServer(t, topupdtest.WithRates(3, 1000))
	a := mustAccount(t, s, "1")
	c := newClient(t, s, a.Key)
	ctx := ctxT(t, 5*time.Second)
	start := time.Now()
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := c.Balance(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d < 900*time.Millisecond || d > 3*time.Second {
		t.Errorf("took %v, want about the 1s Retry-After", d)
	}
}

// failFirst wraps a handler to answer the first n calls with status and an
// optional Retry-After, in the API's error shape.
func failFirst(n int64, status int, code, retryAfter string, calls *atomic.Int64) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) > n {
				h.ServeHTTP(w, r)
				return
			}
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"success":false,"code":"`+code+`","error":"`+code+`"}`)
		})
	}
}

func TestRetries503WithBackoff(t *testing.T) {
	var calls atomic.Int64
	s := newTestServer(t, topupdtest.WithWrap(failFirst(3, http.StatusServiceUnavailable, "MAINTENANCE", "", &calls)))
	a := mustAccount(t, s, "2")
	sl := &sleepLog{}
	base := 100 * time.Millisecond
	c := newClient(t, s, a.Key, client.WithSleep(sl.sleep), client.WithBackoff(base, 300*time.Millisecond))
	bal, err := c.Balance(ctx503(t))
	if err != nil || bal != money(t, "2") {
		t.Fatalf("Balance = %v, %v", bal, err)
	}
	if calls.Load() != 4 {
		t.Errorf("%d calls, want 4", calls.Load())
	}
	waits := sl.get()
	if len(waits) != 3 {
		t.Fatalf("waits %v, want 3", waits)
	}
	for i, hi := range []time.Duration{base, 2 * base, 300 * time.Millisecond} { // the third is capped
		if w := waits[i]; w < hi/2 || w > hi {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, w, hi/2, hi)
		}
	}
}

func ctx503(t *testing.T) context.Context { return ctxT(t, 5*time.Second) }

func TestRetries503WithRetryAfter(t *testing.T) {
	var calls atomic.Int64
	s := newTestServer(t, topupdtest.WithWrap(failFirst(2, http.StatusServiceUnavailable, "API_ORDER_DISABLED", "2", &calls)))
	a := mustAccount(t, s, "2")
	sl := &sleepLog{}
	c := newClient(t, s, a.Key, client.WithSleep(sl.sleep))
	o, err := c.PlaceOrder(ctx503(t), client.OrderRequest{PID: topupdtest.PIDPubg, TrxID: s.Trx(), UserID: "5123456789"})
	if err != nil || o.Status != client.StatusCompleted || o.IdempotentReplay {
		t.Fatalf("PlaceOrder = %+v, %v", o, err)
	}
	if w := sl.get(); len(w) != 2 || w[0] != 2*time.Second || w[1] != 2*time.Second {
		t.Errorf("waits %v, want [2s 2s]", w)
	}
}

func TestRetriesExhausted(t *testing.T) {
	var calls atomic.Int64
	s := newTestServer(t, topupdtest.WithWrap(failFirst(100, http.StatusServiceUnavailable, "MAINTENANCE", "", &calls)))
	a := mustAccount(t, s, "2")
	sl := &sleepLog{}
	c := newClient(t, s, a.Key, client.WithSleep(sl.sleep), client.WithRetries(2))
	_, err := c.Balance(ctx503(t))
	wantError(t, err, http.StatusServiceUnavailable, client.CodeMaintenance, "MAINTENANCE")
	if calls.Load() != 3 || len(sl.get()) != 2 {
		t.Errorf("%d calls, %d waits; want 3 and 2", calls.Load(), len(sl.get()))
	}
}

func TestOtherStatusesNotRetried(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadRequest, http.StatusConflict} {
		var calls atomic.Int64
		s := newTestServer(t, topupdtest.WithWrap(failFirst(1, status, "X", "1", &calls)))
		a := mustAccount(t, s, "2")
		c := newClient(t, s, a.Key, client.WithSleep((&sleepLog{}).sleep))
		_, err := c.Balance(context.Background())
		wantError(t, err, status, "X", "X")
		if calls.Load() != 1 {
			t.Errorf("status %d: %d calls, want 1", status, calls.Load())
		}
	}
}

func TestNonJSONErrorAnswer(t *testing.T) {
	var calls atomic.Int64
	s := newTestServer(t, topupdtest.WithWrap(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
				return
			}
			h.ServeHTTP(w, r)
		})
	}))
	a := mustAccount(t, s, "2")
	c := newClient(t, s, a.Key, client.WithRetries(0))
	_, err := c.Balance(context.Background())
	e := wantError(t, err, http.StatusBadGateway, "", "Bad Gateway")
	if e.Detail != "<html>bad gateway</html>" {
		t.Errorf("detail %q", e.Detail)
	}
	// With retries, a 502 is retried.
	c = newClient(t, s, a.Key, client.WithSleep((&sleepLog{}).sleep))
	calls.Store(0)
	if _, err := c.Balance(context.Background()); err != nil {
		t.Error(err)
	}
}

// errLost stands for a connection that broke before the answer arrived.
var errLost = errors.New("connection reset by peer (test)")

func TestNetworkErrorRetried(t *testing.T) {
	s := newTestServer(t)
	a := mustAccount(t, s, "2")
	var n atomic.Int64
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if n.Add(1) <= 2 {
			return nil, errLost
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := newClient(t, s, a.Key, client.WithHTTPClient(hc), client.WithSleep((&sleepLog{}).sleep))
	if bal, err := c.Balance(context.Background()); err != nil || bal != money(t, "2") {
		t.Errorf("Balance = %v, %v", bal, err)
	}
	n.Store(-100)
	c = newClient(t, s, a.Key, client.WithHTTPClient(hc), client.WithSleep((&sleepLog{}).sleep), client.WithRetries(3))
	if _, err := c.Balance(context.Background()); !errors.Is(err, errLost) {
		t.Errorf("after the retries: %v, want errLost", err)
	}
}
