package client_test

// A real topupd in-process, wired the way cmd/topupd does it (and the way
// httpapi's harness does): a SQLite file, the fulfilment engine with the sim
// and manual suppliers, the in-memory limiter and in-flight locks, and the
// reseller and admin APIs on httptest servers. It does not need a
// *testing.T, so the examples can use it too.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/provider/manual"
	"github.com/topupd/topupd/provider/sim"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/sqlite"
)

// fakeClock is a manually driven clock, safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now().UTC().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// serverConfig shapes one server.
type serverConfig struct {
	perSecond, perMinute int
	limiterNow           func() time.Time // the rate limiter's clock; nil: time.Now
	wrap                 func(http.Handler) http.Handler
}

// serverOption changes a serverConfig.
type serverOption func(*serverConfig)

// withRates sets the rate limits, measured on now (nil: the real clock).
func withRates(perSecond, perMinute int, now func() time.Time) serverOption {
	return func(c *serverConfig) { c.perSecond, c.perMinute, c.limiterNow = perSecond, perMinute, now }
}

// withWrap wraps the reseller API handler.
func withWrap(w func(http.Handler) http.Handler) serverOption {
	return func(c *serverConfig) { c.wrap = w }
}

// server is one running topupd.
type server struct {
	api, admin *httptest.Server
	token      string
	hc         *http.Client
	seq        atomic.Int64
}

// startServer starts a server with the test catalog loaded; stop shuts it
// down and removes its files.
func startServer(opts ...serverOption) (s *server, stop func(), err error) {
	cfg := serverConfig{perSecond: 100_000, perMinute: 1_000_000}
	for _, o := range opts {
		o(&cfg)
	}
	var cleanups []func()
	stop = func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	dir, err := os.MkdirTemp("", "topupd-client-test-")
	if err != nil {
		return nil, nil, err
	}
	cleanups = append(cleanups, func() { os.RemoveAll(dir) })
	secret := make([]byte, topupd.SecretKeySize)
	rand.Read(secret)
	vault, err := topupd.NewVault(secret)
	if err != nil {
		return nil, nil, err
	}
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "topupd.db"), vault)
	if err != nil {
		return nil, nil, err
	}
	cleanups = append(cleanups, func() { store.Close() })
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
		Owner:  topupd.NewID("test_"),
		Poll:   50 * time.Millisecond,
	})
	if err != nil {
		return nil, nil, err
	}
	engineCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { engine.Run(engineCtx); close(done) }()
	cleanups = append(cleanups, func() { cancel(); <-done })

	limiter := ratelimit.NewMemory([]ratelimit.Window{
		{Limit: cfg.perSecond, Period: time.Second},
		{Limit: cfg.perMinute, Period: time.Minute},
	}, cfg.limiterNow)
	api, err := httpapi.NewReseller(httpapi.Deps{
		Store:     store,
		Limiter:   limiter,
		InFlight:  ratelimit.NewMemoryInFlight(nil),
		Fulfiller: engine,
		Logger:    logger,
	})
	if err != nil {
		return nil, nil, err
	}
	if cfg.wrap != nil {
		api = cfg.wrap(api)
	}
	s = &server{token: "admin-" + topupd.NewID("tok_"), hc: &http.Client{Timeout: 30 * time.Second}}
	adminAPI, err := httpapi.NewAdmin(httpapi.AdminDeps{Store: store, Logger: logger, Token: s.token, Wake: engine.Wake})
	if err != nil {
		return nil, nil, err
	}
	s.api = httptest.NewServer(api)
	cleanups = append(cleanups, s.api.Close)
	s.admin = httptest.NewServer(adminAPI)
	cleanups = append(cleanups, s.admin.Close, s.hc.CloseIdleConnections)
	if err := s.loadCatalog(); err != nil {
		return nil, nil, err
	}
	return s, stop, nil
}

// adminCall calls the admin API, fails unless the answer is 2xx, and decodes it into out.
func (s *server) adminCall(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.admin.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("admin %s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(raw))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// The test catalog.
const (
	pidPubg   = "pubg-60"     // pubg top-up, 0.89
	pidPubgM  = "pubg-manual" // pubg top-up, manual supplier, 2
	pidFF     = "ffmena-100"  // Free Fire, userId 5-20 digits, 0.95
	pidMLBB   = "mlbb-86"     // userId + zoneId, 1.45
	pidWW     = "ww-60"       // userId + serverId (options), 0.95
	pidKey    = "gamekey-steam"
	priceKey  = "1.2"
	keyStock  = 10
	pricePubg = "0.89"
)

// loadCatalog puts the test lines and packs, and stock for pidKey.
func (s *server) loadCatalog() error {
	field := func(name, label, pattern string) map[string]any {
		f := map[string]any{"field": name, "label": label}
		if pattern != "" {
			f["pattern"] = pattern
		}
		return f
	}
	lines := map[string]map[string]any{
		"pubg": {"productName": "PUBG Mobile UC", "gameName": "PUBG Mobile", "game": "pubg", "kind": "topup",
			"status": "active", "required": []any{field("userId", "Player ID", "")}},
		"ffmena": {"productName": "Free Fire diamonds (MENA)", "gameName": "Free Fire", "game": "freefire", "kind": "topup",
			"status": "active", "required": []any{field("userId", "Player ID", "^[0-9]{5,20}$")}},
		"mobilelegends": {"productName": "Mobile Legends diamonds", "gameName": "Mobile Legends", "game": "mobilelegends",
			"kind": "topup", "status": "active", "required": []any{field("userId", "User ID", ""), field("zoneId", "Zone ID", "[0-9]{1,8}")}},
		"wutheringwaves": {"productName": "Wuthering Waves Lunite", "gameName": "Wuthering Waves", "game": "wutheringwaves",
			"kind": "topup", "status": "active", "required": []any{field("userId", "UID", ""), field("serverId", "Server", "")},
			"serverIdOptions": []any{map[string]any{"value": "america", "label": "America"}, map[string]any{"value": "europe", "label": "Europe"}}},
		"gamekey": {"productName": "Game keys", "gameName": "Game keys", "game": "gamekey", "kind": "gamekey",
			"status": "active", "required": []any{}},
		"retired": {"productName": "Retired game", "gameName": "Retired", "game": "retired", "kind": "topup",
			"status": "disabled", "required": []any{field("userId", "Player ID", "")}},
	}
	for slug, l := range lines {
		if err := s.adminCall("PUT", "/admin/services/"+slug, l, nil); err != nil {
			return err
		}
	}
	packs := []struct{ pid, slug, name, price, provider string }{
		{pidPubg, "pubg", "60 UC", pricePubg, ""},
		{pidPubgM, "pubg", "Manual UC pack", "2", "manual"},
		{pidFF, "ffmena", "100 Diamonds", "0.95", ""},
		{pidMLBB, "mobilelegends", "86 Diamonds", "1.45", ""},
		{pidWW, "wutheringwaves", "60 Lunite", "0.95", ""},
		{pidKey, "gamekey", "Steam random key", priceKey, ""},
		{"retired-1", "retired", "Retired pack", "1", ""},
	}
	for _, p := range packs {
		body := map[string]any{"slug": p.slug, "name": p.name, "category": "Cat " + p.slug,
			"priceUsd": json.Number(p.price), "status": "active"}
		if p.provider != "" {
			body["provider"] = p.provider
		}
		if err := s.adminCall("PUT", "/admin/products/"+p.pid, body, nil); err != nil {
			return err
		}
	}
	codes := make([]string, keyStock)
	for i := range codes {
		codes[i] = fmt.Sprintf("KEY-%04d-%s", i, topupd.NewID(""))
	}
	return s.adminCall("POST", "/admin/products/"+pidKey+"/stock", map[string]any{"codes": codes}, nil)
}

// account is a reseller account with one key.
type account struct{ id, key string }

// newAccount creates an account with a key and, unless credit is "", a credit.
func (s *server) newAccount(credit string) (account, error) {
	var a struct {
		ID string `json:"id"`
	}
	if err := s.adminCall("POST", "/admin/accounts", map[string]any{"name": fmt.Sprintf("shop %d", s.seq.Add(1))}, &a); err != nil {
		return account{}, err
	}
	var k struct {
		APIKey string `json:"apiKey"`
	}
	if err := s.adminCall("POST", "/admin/accounts/"+a.ID+"/keys", nil, &k); err != nil {
		return account{}, err
	}
	if a.ID == "" || k.APIKey == "" {
		return account{}, errors.New("admin: no account id or key")
	}
	acct := account{id: a.ID, key: k.APIKey}
	if credit != "" {
		body := map[string]any{"amountUsd": json.Number(credit), "reference": fmt.Sprintf("ref-%d", s.seq.Add(1))}
		if err := s.adminCall("POST", "/admin/accounts/"+a.ID+"/credits", body, nil); err != nil {
			return account{}, err
		}
	}
	return acct, nil
}

// settings patches the operator settings, for example simDelayMs.
func (s *server) settings(patch map[string]any) error {
	return s.adminCall("PATCH", "/admin/settings", patch, nil)
}

// ledgerEntry is one ledger entry as the admin API shows it.
type ledgerEntry struct {
	Kind      string       `json:"kind"`
	AmountUSD topupd.Money `json:"amountUsd"`
	OrderID   string       `json:"orderId"`
}

// ledger returns an account's ledger, newest first.
func (s *server) ledger(a account) ([]ledgerEntry, error) {
	var out struct {
		Entries []ledgerEntry `json:"entries"`
	}
	err := s.adminCall("GET", "/admin/accounts/"+a.id+"/ledger", nil, &out)
	return out.Entries, err
}

// trx returns a fresh trxid.
func (s *server) trx() string { return fmt.Sprintf("trx-%d-%s", s.seq.Add(1), topupd.NewID("")) }

// demo is a running server with one account credited 10 USD, for the examples.
type demo struct {
	URL string // the reseller API
	Key string // the account's API key
	s   *server
	// Stop shuts the server down.
	Stop func()
}

// startDemo starts a demo server; it panics on failure.
func startDemo() *demo {
	s, stop, err := startServer()
	if err != nil {
		panic(err)
	}
	a, err := s.newAccount("10")
	if err != nil {
		stop()
		panic(err)
	}
	return &demo{URL: s.api.URL, Key: a.key, s: s, Stop: stop}
}

// SimDelay makes the sim supplier finish orders d after placement.
func (d *demo) SimDelay(delay time.Duration) {
	if err := d.s.settings(map[string]any{"simDelayMs": delay.Milliseconds()}); err != nil {
		panic(err)
	}
}
