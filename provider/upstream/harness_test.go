package upstream_test

// The upstream in these tests is a real topupd ("B") in-process, wired the
// way cmd/topupd and the client and httpapi tests wire it: a SQLite file,
// the fulfilment engine with the sim and manual suppliers, the in-memory
// limiter and in-flight locks, and the reseller and admin APIs on httptest
// servers. The provider under test plays "A", ordering from B.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/provider/manual"
	"github.com/topupd/topupd/provider/sim"
	"github.com/topupd/topupd/provider/upstream"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/sqlite"
)

// B's catalog.
const (
	pidTopup = "pubg-60"       // pubg top-up (userId), 0.89, sim
	pidKey   = "gamekey-steam" // gamekey, 1.2, stock keyStock
	keyStock = 10
)

// server is B.
type server struct {
	t      *testing.T
	api    *httptest.Server
	admin  *httptest.Server
	token  string
	hc     *http.Client
	seq    atomic.Int64
	codes  []string     // B's key stock
	fail   atomic.Int64 // the next n reseller API calls are answered 503
	mu     sync.Mutex
	bodies []map[string]any // every POST /orders body B received
}

// startB starts B with its catalog loaded.
func startB(t *testing.T) *server {
	t.Helper()
	secret := make([]byte, topupd.SecretKeySize)
	rand.Read(secret)
	vault, err := topupd.NewVault(secret)
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"), vault)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var logOut io.Writer = io.Discard
	if os.Getenv("TOPUPD_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	logger := slog.New(slog.NewTextHandler(logOut, nil))
	engine, err := fulfil.New(fulfil.Config{
		Store: store,
		Providers: map[string]topupd.Provider{
			topupd.ProviderSim:    sim.New(store, time.Now),
			topupd.ProviderManual: manual.New(),
		},
		Logger: logger,
		Owner:  topupd.NewID("b_"),
		Poll:   50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	engineCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { engine.Run(engineCtx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	limiter := ratelimit.NewMemory([]ratelimit.Window{
		{Limit: 100_000, Period: time.Second},
		{Limit: 1_000_000, Period: time.Minute},
	}, nil)
	api, err := httpapi.NewReseller(httpapi.Deps{
		Store:     store,
		Limiter:   limiter,
		InFlight:  ratelimit.NewMemoryInFlight(nil),
		Fulfiller: engine,
		Logger:    logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, token: "admin-" + topupd.NewID("tok_"), hc: &http.Client{Timeout: 30 * time.Second}}
	adminAPI, err := httpapi.NewAdmin(httpapi.AdminDeps{Store: store, Logger: logger, Token: s.token, Wake: engine.Wake})
	if err != nil {
		t.Fatal(err)
	}
	s.api = httptest.NewServer(s.wrap(api))
	t.Cleanup(s.api.Close)
	s.admin = httptest.NewServer(adminAPI)
	t.Cleanup(s.admin.Close)
	t.Cleanup(s.hc.CloseIdleConnections)
	s.loadCatalog()
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

// adminCall calls B's admin API, fails the test unless it answers 2xx, and
// decodes the answer into out.
func (s *server) adminCall(method, path string, body, out any) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.admin.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		s.t.Fatalf("B admin %s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("B admin %s %s: %v", method, path, err)
		}
	}
}

// loadCatalog puts a top-up line and pack, and a gamekey line and pack with stock.
func (s *server) loadCatalog() {
	s.t.Helper()
	s.adminCall("PUT", "/admin/services/pubg", map[string]any{"productName": "PUBG Mobile UC", "gameName": "PUBG Mobile",
		"game": "pubg", "kind": "topup", "status": "active", "required": []any{map[string]any{"field": "userId", "label": "Player ID"}}}, nil)
	s.adminCall("PUT", "/admin/services/gamekey", map[string]any{"productName": "Game keys", "gameName": "Game keys",
		"game": "gamekey", "kind": "gamekey", "status": "active", "required": []any{}}, nil)
	s.adminCall("PUT", "/admin/products/"+pidTopup, map[string]any{"slug": "pubg", "name": "60 UC", "category": "UC",
		"priceUsd": json.Number("0.89"), "status": "active"}, nil)
	s.adminCall("PUT", "/admin/products/"+pidKey, map[string]any{"slug": "gamekey", "name": "Steam random key", "category": "Keys",
		"priceUsd": json.Number("1.2"), "status": "active"}, nil)
	s.codes = make([]string, keyStock)
	for i := range s.codes {
		s.codes[i] = fmt.Sprintf("KEY-%04d-%s", i, topupd.NewID(""))
	}
	s.adminCall("POST", "/admin/products/"+pidKey+"/stock", map[string]any{"codes": s.codes}, nil)
}

// account is our account at B.
type account struct{ id, key, keyID string }

// newAccount creates an account at B with a key and, unless credit is "", a credit.
func (s *server) newAccount(credit string) account {
	s.t.Helper()
	var a struct {
		ID string `json:"id"`
	}
	s.adminCall("POST", "/admin/accounts", map[string]any{"name": fmt.Sprintf("shop A %d", s.seq.Add(1))}, &a)
	var k struct {
		APIKey string `json:"apiKey"`
		KeyID  string `json:"keyId"`
	}
	s.adminCall("POST", "/admin/accounts/"+a.ID+"/keys", nil, &k)
	if credit != "" {
		s.adminCall("POST", "/admin/accounts/"+a.ID+"/credits", map[string]any{"amountUsd": json.Number(credit),
			"reference": fmt.Sprintf("ref-%d", s.seq.Add(1))}, nil)
	}
	return account{id: a.ID, key: k.APIKey, keyID: k.KeyID}
}

// settings patches B's settings (simDelayMs, maintenance…).
func (s *server) settings(patch map[string]any) {
	s.t.Helper()
	s.adminCall("PATCH", "/admin/settings", patch, nil)
}

// ledgerEntry is one entry of an account's ledger at B.
type ledgerEntry struct {
	Kind    string `json:"kind"`
	OrderID string `json:"orderId"`
}

// charges returns the charge entries of an account at B.
func (s *server) charges(a account) []ledgerEntry {
	s.t.Helper()
	var out struct {
		Entries []ledgerEntry `json:"entries"`
	}
	s.adminCall("GET", "/admin/accounts/"+a.id+"/ledger", nil, &out)
	var ch []ledgerEntry
	for _, e := range out.Entries {
		if e.Kind == string(topupd.EntryCharge) {
			ch = append(ch, e)
		}
	}
	return ch
}

// client is a reseller API client of B for the account, for checks on B's side.
func (s *server) client(a account) *client.Client {
	s.t.Helper()
	c, err := client.New(s.api.URL, a.key, client.WithRetries(0))
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// orders returns the account's orders at B, newest first.
func (s *server) orders(a account) []client.Order {
	s.t.Helper()
	orders, err := s.client(a).History(context.Background(), client.HistoryQuery{Limit: 200})
	if err != nil {
		s.t.Fatal(err)
	}
	return orders
}

// order returns one of the account's orders at B.
func (s *server) order(a account, id string) *client.Order {
	s.t.Helper()
	o, err := s.client(a).Order(context.Background(), id)
	if err != nil {
		s.t.Fatalf("B GET /orders/%s: %v", id, err)
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
	acct account
	src  *sources
	p    *upstream.Provider
}

// newFixture starts B with an account credited 100 USD and a provider whose
// upstream "b" is that account.
func newFixture(t *testing.T, opts ...upstream.Option) *fixture {
	t.Helper()
	b := startB(t)
	acct := b.newAccount("100")
	src := &sources{m: map[string]topupd.Upstream{}}
	src.set("b", b.api.URL, acct.key)
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
