package clienttest_test

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// mustAccount creates an account with a key and, unless credit is "", a credit.
func mustAccount(t *testing.T, s *server, credit string) topupdtest.Account {
	t.Helper()
	return s.NewAccount(credit, nil)
}

// mustSettings patches the operator settings.
func mustSettings(t *testing.T, s *server, patch map[string]any) {
	t.Helper()
	s.Settings(patch)
}

// newClient returns a client of s's reseller API, with the client's own
// defaults; unless opts give another http.Client, its calls go through the
// harness's, which checks every answer against the OpenAPI document.
func newClient(t *testing.T, s *server, key string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(s.API.URL, key, append([]client.Option{client.WithHTTPClient(s.HTTP)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ctxT returns a context that ends after d (and with the test).
func ctxT(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// sleepLog is a sleep hook that records the waits and does not wait,
// optionally advancing a fake clock.
type sleepLog struct {
	mu    sync.Mutex
	waits []time.Duration
	clock *topupdtest.Clock
}

func (l *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	l.waits = append(l.waits, d)
	l.mu.Unlock()
	if l.clock != nil {
		l.clock.Advance(d)
	}
	return nil
}

func (l *sleepLog) get() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.waits...)
}

// money parses an exact amount.
func money(t *testing.T, s string) client.Money {
	t.Helper()
	m, err := client.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustOrder places an order that must be accepted.
func mustOrder(t *testing.T, c *client.Client, req client.OrderRequest) *client.Order {
	t.Helper()
	o, err := c.PlaceOrder(context.Background(), req)
	if err != nil {
		t.Fatalf("PlaceOrder(%+v): %v", req, err)
	}
	if !o.OrderCreated || o.OrderID == "" {
		t.Fatalf("PlaceOrder(%+v): %+v", req, o)
	}
	return o
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingHTTP is an http.Client that counts its requests.
func countingHTTP(n *atomic.Int64) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

// atomic64 counts the requests of the client it makes.
type atomic64 struct{ atomic.Int64 }

func (n *atomic64) client() *http.Client { return countingHTTP(&n.Int64) }

// bytesReader is bytes.NewReader.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
