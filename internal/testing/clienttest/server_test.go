package clienttest_test

// These tests run the client against a real topupd in-process
// (internal/testing/topupdtest) with the shared test catalog loaded.

import (
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// server is one running topupd.
type server struct{ *topupdtest.T }

// newTestServer starts a server for one test, with the test catalog loaded.
func newTestServer(t *testing.T, opts ...topupdtest.Option) *server {
	t.Helper()
	s := &server{topupdtest.New(t, opts...)}
	s.LoadCatalog()
	return s
}

// demo is a running server with one account credited 10 USD, for the examples.
type demo struct {
	URL string // the reseller API
	Key string // the account's API key
	s   *topupdtest.T
	// Stop shuts the server down.
	Stop func()
}

// startDemo starts a demo server; it panics on failure.
func startDemo() *demo {
	s, stop := topupdtest.StartExample()
	s.LoadCatalog()
	a := s.NewAccount("10", nil)
	return &demo{URL: s.API.URL, Key: a.Key, s: s, Stop: stop}
}

// SimDelay makes the sim supplier finish orders d after placement.
func (d *demo) SimDelay(delay time.Duration) {
	d.s.Settings(map[string]any{"simDelayMs": delay.Milliseconds()})
}

// Reprice sets a pack's price, as the operator would.
func (d *demo) Reprice(pid, usd string) {
	d.s.AdminOK(200, "PATCH", "/admin/products/"+pid, map[string]any{"priceUsd": topupdtest.USD(usd)})
}
