package upstream_test

// The upstream in these tests is a real topupd ("B") in-process, wired the
// way cmd/topupd and the client and httpapi tests wire it: a SQLite file,
// the fulfilment engine with the sim and manual suppliers, the in-memory
// limiter and in-flight hints, and the reseller and admin APIs on httptest
// servers. The provider under test plays "A", ordering from B.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/provider/upstream"
)

// B's catalog: the shared test catalog's top-up and keys.
const (
	pidTopup = topupdtest.PIDPubg // pubg top-up (userId), 0.89, sim
	pidKey   = topupdtest.PIDKey  // gamekey, 1.2, stock keyStock
	keyStock = topupdtest.KeyStock
)

// server is B: a real topupd in-process (internal/testing/topupdtest) with the
// test catalog loaded, whose reseller API can be told to answer 503 and
// records the POST /orders bodies it receives.
type server struct {
	*topupdtest.T
	fail   atomic.Int64 // the next n reseller API calls are answered 503
	mu     sync.Mutex
	bodies []map[string]any // every POST /orders body B received
}

// startB starts B with its catalog loaded.
func startB(t *testing.T) *server {
	t.Helper()
	s := &server{}
	s.T = topupdtest.New(t, topupdtest.WithWrap(s.wrap))
	s.LoadCatalog()
	return s
}

// wrap answers 503 while s.fail is positive, and records POST /orders bodies.
func (s *server) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.fail.Add(-1) >= 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"success":false,"code":"MAINTENANCE","error":"MAINTENANCE"}`)
			return
		}
		s.fail.Store(0)
		if r.Method == http.MethodPost && r.URL.Path == "/orders" {
			raw, _ := io.ReadAll(r.Body)
			var body map[string]any
			json.Unmarshal(raw, &body)
			s.mu.Lock()
			s.bodies = append(s.bodies, body)
			s.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(raw))
		}
		h.ServeHTTP(w, r)
	})
}

// posted returns the POST /orders bodies B received so far.
func (s *server) posted() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// charges returns the charge entries of an account at B.
func (s *server) charges(a topupdtest.Account) []client.LedgerEntry {
	s.TB.Helper()
	entries, err := s.AdminClient.Ledger(context.Background(), a.ID, 0)
	if err != nil {
		s.TB.Fatal(err)
	}
	var ch []client.LedgerEntry
	for _, e := range entries {
		if e.Kind == string(topupd.EntryCharge) {
			ch = append(ch, e)
		}
	}
	return ch
}

// orders returns the account's orders at B, newest first.
func (s *server) orders(a topupdtest.Account) []client.Order {
	s.TB.Helper()
	orders, err := s.Client(a.Key).History(context.Background(), client.HistoryQuery{Limit: 200})
	if err != nil {
		s.TB.Fatal(err)
	}
	return orders
}

// order returns one of the account's orders at B.
func (s *server) order(a topupdtest.Account, id string) *client.Order {
	s.TB.Helper()
	o, err := s.Client(a.Key).Order(context.Background(), id)
	if err != nil {
		s.TB.Fatalf("B GET /orders/%s: %v", id, err)
	}
	return o
}

// sources is a Source over a map, as the store would be.
type sources struct {
	mu sync.Mutex
	m  map[string]topupd.Upstream
}

func (s *sources) Upstream(_ context.Context, name string) (topupd.Upstream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.m[name]
	if !ok {
		return topupd.Upstream{}, topupd.Errorf(topupd.ENotFound, "upstream %s", name)
	}
	return u, nil
}

// set creates or replaces an upstream.
func (s *sources) set(name, baseURL, apiKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = topupd.Upstream{Name: name, BaseURL: baseURL, APIKey: apiKey}
}

// fixture is B, our account there, the sources naming it "b", and a provider.
type fixture struct {
	b    *server
	acct topupdtest.Account
	src  *sources
	p    *upstream.Provider
}

// newFixture starts B with an account credited 100 USD and a provider whose
// upstream "b" is that account.
func newFixture(t *testing.T, opts ...upstream.Option) *fixture {
	t.Helper()
	b := startB(t)
	acct := b.NewAccount("100", nil)
	src := &sources{m: map[string]topupd.Upstream{}}
	src.set("b", b.API.URL, acct.Key)
	return &fixture{b: b, acct: acct, src: src, p: upstream.New(src, opts...)}
}

var orderSeq atomic.Int64

// topupOrder is one of A's orders of a top-up ordered from B's pidTopup.
func topupOrder(userID string) *topupd.Order {
	n := orderSeq.Add(1)
	now := time.Now()
	return &topupd.Order{
		Seq: n, ID: fmt.Sprintf("ord_test%d_%s", n, topupd.NewID("")), AccountID: "acc_a", TrxID: fmt.Sprintf("client-%d", n),
		PID: "a-pubg-60", Slug: "pubg", Game: "pubg", Kind: topupd.KindTopup, PackName: "60 UC", Provider: topupd.ProviderUpstream,
		Quantity: 1, Fields: topupd.AccountFields{UserID: userID}, Status: topupd.StatusProcessing,
		CreatedAt: now, DeadlineAt: now.Add(30 * time.Minute), Supplier: topupd.SupplierNew,
		Upstream: "b", UpstreamPID: pidTopup,
	}
}

// keyOrder is one of A's orders of qty keys ordered from B's pidKey.
func keyOrder(qty int) *topupd.Order {
	o := topupOrder("")
	o.PID, o.Slug, o.Game, o.Kind, o.PackName = "a-gamekey", "gamekey", "gamekey", topupd.KindGamekey, "Steam random key"
	o.Quantity, o.UpstreamPID = qty, pidKey
	return o
}

// ctx returns a context bounded as the engine's calls are.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}
