package httpapi_test

// The harness runs the whole service the way cmd/topupd/serve.go wires it —
// a real SQLite file, the real fulfilment engine with the sim and manual
// providers, the in-memory rate limiter and in-flight locks — behind two
// httptest servers (reseller API and admin API), and talks to both over real
// HTTP.

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
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// newFakeClock starts at the current wall time (whole second), so that times
// the store keeps stay plausible.
func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Now().UTC().Truncate(time.Second)}
}

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

// config shapes one harness.
type config struct {
	clock          *fakeClock // nil: time.Now
	perSecond      int
	perMinute      int
	trustedProxies []netip.Prefix
	maxBody        int64
	wrapStore      func(topupd.Store) topupd.Store // the reseller API's store
	limiter        topupd.RateLimiter              // replaces the memory limiter
	deadline       time.Duration                   // order deadline; 0: the default
	authCache      bool                            // share an AuthCache between the two APIs
	simOff         bool                            // --sim off
}

// withSimOff turns the sim supplier off, as --sim off does.
func withSimOff() option { return func(cfg *config) { cfg.simOff = true } }

// withAuthCache gives both APIs one AuthCache with a one-second TTL.
func withAuthCache() option { return func(cfg *config) { cfg.authCache = true } }

// withDeadline sets how long an order may stay processing.
func withDeadline(d time.Duration) option { return func(cfg *config) { cfg.deadline = d } }

// withStore gives the reseller API a wrapped store (the admin API and the
// engine keep the real one).
func withStore(wrap func(topupd.Store) topupd.Store) option {
	return func(cfg *config) { cfg.wrapStore = wrap }
}

// withLimiter replaces the rate limiter.
func withLimiter(l topupd.RateLimiter) option { return func(cfg *config) { cfg.limiter = l } }

type option func(*config)

// withClock injects a fake clock into every part of the service.
func withClock(c *fakeClock) option { return func(cfg *config) { cfg.clock = c } }

// withRates sets the per-second and per-minute limits.
func withRates(perSecond, perMinute int) option {
	return func(cfg *config) { cfg.perSecond, cfg.perMinute = perSecond, perMinute }
}

// withTrustedProxies sets the proxies whose X-Forwarded-For is believed.
func withTrustedProxies(cidrs string) option {
	return func(cfg *config) {
		p, err := httpapi.ParseTrustedProxies(cidrs)
		if err != nil {
			panic(err)
		}
		cfg.trustedProxies = p
	}
}

// harness is one running service.
type harness struct {
	t      testing.TB
	store  *sqlite.Store
	api    *httptest.Server
	admin  *httptest.Server
	token  string
	now    func() time.Time
	client *http.Client
	seq    atomic.Int64
	calls  *supplierLog
}

// supplierLog records every supplier call per order id.
type supplierLog struct {
	mu        sync.Mutex
	active    map[string]int // calls in progress
	maxActive map[string]int // most calls ever in progress at once
	submits   map[string]int // Submit calls
	total     map[string]int // Submit and Status calls
}

func (l *supplierLog) enter(id string, submit bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[id]++
	l.maxActive[id] = max(l.maxActive[id], l.active[id])
	l.total[id]++
	if submit {
		l.submits[id]++
	}
}

func (l *supplierLog) leave(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[id]--
}

// stats returns the most concurrent calls, the submits and all calls of an order.
func (l *supplierLog) stats(id string) [3]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return [3]int{l.maxActive[id], l.submits[id], l.total[id]}
}

// watched is a provider whose calls are recorded.
type watched struct {
	inner topupd.Provider
	log   *supplierLog
}

func (w watched) Submit(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	w.log.enter(o.ID, true)
	defer w.log.leave(o.ID)
	return w.inner.Submit(ctx, o)
}

func (w watched) Status(ctx context.Context, o *topupd.Order) (topupd.Outcome, error) {
	w.log.enter(o.ID, false)
	defer w.log.leave(o.ID)
	return w.inner.Status(ctx, o)
}

// newHarness starts a service. By default the clock is real and the rate
// limits are so high they never trip.
func newHarness(t testing.TB, opts ...option) *harness {
	t.Helper()
	cfg := config{perSecond: 100_000, perMinute: 1_000_000}
	for _, o := range opts {
		o(&cfg)
	}
	now := time.Now
	if cfg.clock != nil {
		now = cfg.clock.Now
	}
	secret := make([]byte, topupd.SecretKeySize)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	vault, err := topupd.NewVault(secret)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "topupd.db"), vault)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	// TOPUPD_TEST_LOG=1 shows the service's log lines.
	var logOut io.Writer = io.Discard
	if os.Getenv("TOPUPD_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	logger := slog.New(slog.NewTextHandler(logOut, nil))
	calls := &supplierLog{active: map[string]int{}, maxActive: map[string]int{}, submits: map[string]int{}, total: map[string]int{}}
	engine, err := fulfil.New(fulfil.Config{
		Store: store,
		Providers: map[string]topupd.Provider{
			topupd.ProviderSim:    watched{sim.New(store, now), calls},
			topupd.ProviderManual: watched{manual.New(), calls},
		},
		Now:    now,
		Logger: logger,
		Owner:  topupd.NewID("test_"),
		Poll:   50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	engineCtx, stop := context.WithCancel(context.Background())
	engineDone := make(chan struct{})
	go func() { engine.Run(engineCtx); close(engineDone) }()
	t.Cleanup(func() { stop(); <-engineDone })

	limiter := ratelimit.NewMemory([]ratelimit.Window{
		{Limit: cfg.perSecond, Period: time.Second},
		{Limit: cfg.perMinute, Period: time.Minute},
	}, now)
	var apiStore topupd.Store = store
	if cfg.wrapStore != nil {
		apiStore = cfg.wrapStore(store)
	}
	var limit topupd.RateLimiter = limiter
	if cfg.limiter != nil {
		limit = cfg.limiter
	}
	var cache *httpapi.AuthCache
	if cfg.authCache {
		cache = httpapi.NewAuthCache(time.Second, now)
	}
	api, err := httpapi.NewReseller(httpapi.Deps{
		AuthCache:      cache,
		Store:          apiStore,
		Limiter:        limit,
		InFlight:       ratelimit.NewMemoryInFlight(now),
		Fulfiller:      engine,
		Logger:         logger,
		Now:            now,
		TrustedProxies: cfg.trustedProxies,
		MaxBody:        cfg.maxBody,
		Deadline:       cfg.deadline,
		SimOff:         cfg.simOff,
	})
	if err != nil {
		t.Fatal(err)
	}
	token := "admin-" + topupd.NewID("tok_")
	adminAPI, err := httpapi.NewAdmin(httpapi.AdminDeps{Store: store, Logger: logger, Now: now, Token: token, Wake: engine.Wake, AuthCache: cache,
		SimOff: cfg.simOff})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, store: store, token: token, now: now, calls: calls}
	h.api = httptest.NewServer(api)
	t.Cleanup(h.api.Close)
	h.admin = httptest.NewServer(adminAPI)
	t.Cleanup(h.admin.Close)
	h.client = &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256},
	}
	t.Cleanup(h.client.CloseIdleConnections)
	return h
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any // decoded with UseNumber: numbers are json.Number
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.status, bytes.TrimSpace(r.raw)) }

// str returns a top-level string field ("" when absent or not a string).
func (r reply) str(name string) string {
	s, _ := r.body[name].(string)
	return s
}

// num returns a top-level number field as its JSON text ("" when absent).
func (r reply) num(name string) string {
	n, _ := r.body[name].(json.Number)
	return string(n)
}

// has reports whether a top-level field is present.
func (r reply) has(name string) bool {
	_, ok := r.body[name]
	return ok
}

// rawBody is a request body sent exactly as written.
type rawBody string

// headers are extra request headers.
type headers map[string]string

// call makes one request. key, when not empty, is sent as X-API-Key; body is
// nil (none), a rawBody, or anything else marshalled to JSON. It never calls
// t.Fatal, so it is safe from any goroutine.
func (h *harness) call(base, method, path string, hdr headers, body any) (reply, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case rawBody:
		rd = strings.NewReader(string(b))
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return reply{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return reply{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	out := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return out, fmt.Errorf("%s %s: Content-Type %q, body %q", method, path, ct, raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out.body); err != nil {
		return out, fmt.Errorf("%s %s: body is not a JSON object: %v: %q", method, path, err, raw)
	}
	return out, nil
}

// do calls the reseller API with an API key in X-API-Key.
func (h *harness) do(method, path, key string, body any) reply {
	h.t.Helper()
	hdr := headers{}
	if key != "" {
		hdr["X-API-Key"] = key
	}
	r, err := h.call(h.api.URL, method, path, hdr, body)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// doH calls the reseller API with explicit headers.
func (h *harness) doH(method, path string, hdr headers, body any) reply {
	h.t.Helper()
	r, err := h.call(h.api.URL, method, path, hdr, body)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// adminDo calls the admin API with the admin token.
func (h *harness) adminDo(method, path string, body any) reply {
	h.t.Helper()
	r, err := h.call(h.admin.URL, method, path, headers{"Authorization": "Bearer " + h.token}, body)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

// adminOK calls the admin API and fails unless the answer has the status.
func (h *harness) adminOK(want int, method, path string, body any) reply {
	h.t.Helper()
	r := h.adminDo(method, path, body)
	if r.status != want {
		h.t.Fatalf("%s %s: got %v, want status %d", method, path, r, want)
	}
	return r
}

// usd is an exact JSON number of USD.
func usd(s string) json.Number { return json.Number(s) }

// money parses a decimal USD text exactly.
func money(t testing.TB, s string) topupd.Money {
	t.Helper()
	m, err := topupd.ParseMoney(s)
	if err != nil {
		t.Fatalf("money %q: %v", s, err)
	}
	return m
}

// account is a reseller account with one live key.
type account struct {
	id    string
	key   string
	keyID string
}

// newAccount creates an account with the given flags, a key and, when
// credit is not "", one credit.
func (h *harness) newAccount(credit string, flags map[string]any) account {
	h.t.Helper()
	body := map[string]any{"name": fmt.Sprintf("reseller %d", h.seq.Add(1))}
	for k, v := range flags {
		body[k] = v
	}
	a := h.adminOK(http.StatusCreated, "POST", "/admin/accounts", body)
	acct := account{id: a.str("id")}
	if acct.id == "" {
		h.t.Fatalf("POST /admin/accounts: no id in %v", a)
	}
	k := h.adminOK(http.StatusCreated, "POST", "/admin/accounts/"+acct.id+"/keys", nil)
	acct.key, acct.keyID = k.str("apiKey"), k.str("keyId")
	if acct.key == "" || acct.keyID == "" {
		h.t.Fatalf("POST keys: got %v", k)
	}
	if credit != "" {
		h.credit(acct, credit)
	}
	return acct
}

// credit credits an account under a fresh reference.
func (h *harness) credit(a account, amount string) {
	h.t.Helper()
	h.adminOK(http.StatusOK, "POST", "/admin/accounts/"+a.id+"/credits",
		map[string]any{"amountUsd": usd(amount), "reference": fmt.Sprintf("ref-%d", h.seq.Add(1))})
}

// patchAccount changes account flags.
func (h *harness) patchAccount(a account, flags map[string]any) {
	h.t.Helper()
	h.adminOK(http.StatusOK, "PATCH", "/admin/accounts/"+a.id, flags)
}

// settings changes the operator settings.
func (h *harness) settings(patch map[string]any) {
	h.t.Helper()
	h.adminOK(http.StatusOK, "PATCH", "/admin/settings", patch)
}

// putLine creates or replaces a service line.
func (h *harness) putLine(slug string, line map[string]any) {
	h.t.Helper()
	h.adminOK(http.StatusOK, "PUT", "/admin/services/"+slug, line)
}

// putPack creates or replaces a pack.
func (h *harness) putPack(pid string, pack map[string]any) {
	h.t.Helper()
	h.adminOK(http.StatusOK, "PUT", "/admin/products/"+pid, pack)
}

// addStock adds codes to a pack and returns them.
func (h *harness) addStock(pid string, n int) []string {
	h.t.Helper()
	codes := make([]string, n)
	for i := range codes {
		codes[i] = fmt.Sprintf("%s-CODE-%04d-%d", strings.ToUpper(pid), i, h.seq.Add(1))
	}
	r := h.adminOK(http.StatusOK, "POST", "/admin/products/"+pid+"/stock", map[string]any{"codes": codes})
	if r.num("added") != fmt.Sprint(n) {
		h.t.Fatalf("add stock %s: %v", pid, r)
	}
	return codes
}

// The test catalog.
const (
	pidPubg       = "pubg-60"      // pubg top-up, 0.89
	pidPubgBig    = "pubg-325"     // pubg top-up, 4.45
	pidPubgOld    = "pubg-old"     // pubg top-up, disabled pack
	pidPubgManual = "pubg-manual"  // pubg top-up, manual provider, 2.00
	pidPubgCodes  = "pubg-codes"   // pubg top-up, stock-based, 0.90
	pidFF         = "ffmena-100"   // Free Fire, userId 5-20 digits, 0.95
	pidMLBB       = "mlbb-86"      // userId + zoneId, 1.45
	pidWW         = "ww-60"        // userId + serverId (options), 0.95
	pidOH         = "oh-60"        // userId + region + moreId, 0.95
	pidValorant   = "valorant-475" // Riot ID, 4.60
	pidKey        = "gamekey-steam"
	pidKeyOld     = "gamekey-old"  // disabled pack of the gamekey line
	pidGift       = "giftcard-10"  // giftcard, 10.20
	pidRetired    = "retired-1"    // active pack of a disabled line
	pidHuge       = "gamekey-huge" // gamekey pack so dear that quantity × price overflows

	priceKey = "1.2"
)

// loadCatalog loads the test catalog through the admin API, with 10 codes
// of stock for pidKey, 5 for pidGift and 3 for pidPubgCodes.
func (h *harness) loadCatalog() {
	h.t.Helper()
	field := func(name, label, pattern string) map[string]any {
		f := map[string]any{"field": name, "label": label}
		if pattern != "" {
			f["pattern"] = pattern
		}
		return f
	}
	line := func(slug, product, gameName, game, kind, status string, required ...map[string]any) {
		if required == nil {
			required = []map[string]any{}
		}
		h.putLine(slug, map[string]any{"productName": product, "gameName": gameName, "game": game, "kind": kind,
			"status": status, "required": required})
	}
	line("pubg", "PUBG Mobile UC", "PUBG Mobile", "pubg", "topup", "active", field("userId", "Player ID", ""))
	line("ffmena", "Free Fire diamonds (MENA)", "Free Fire", "freefire", "topup", "active", field("userId", "Player ID", "^[0-9]{5,20}$"))
	line("mobilelegends", "Mobile Legends diamonds", "Mobile Legends", "mobilelegends", "topup", "active",
		field("userId", "User ID", ""), field("zoneId", "Zone ID", "[0-9]{1,8}"))
	h.putLine("wutheringwaves", map[string]any{"productName": "Wuthering Waves Lunite", "gameName": "Wuthering Waves",
		"game": "wutheringwaves", "kind": "topup", "status": "active",
		"required":        []map[string]any{field("userId", "UID", ""), field("serverId", "Server", "")},
		"serverIdOptions": []map[string]any{{"value": "america", "label": "America"}, {"value": "europe", "label": "Europe"}}})
	h.putLine("oncehuman", map[string]any{"productName": "Once Human Crystgin", "gameName": "Once Human",
		"game": "oncehuman", "kind": "topup", "status": "active",
		"required":      []map[string]any{field("userId", "UID", ""), field("region", "Region", ""), field("moreId", "Server ID", "")},
		"regionOptions": []map[string]any{{"value": "eu", "label": "Europe"}, {"value": "na", "label": "North America"}}})
	line("valorant", "Valorant Points", "Valorant", "valorant", "topup", "active", field("userId", "Riot ID", "^[^#]+#[^#]+$"))
	line("gamekey", "Game keys", "Game keys", "gamekey", "gamekey", "active")
	line("giftcard", "Gift cards", "Gift cards", "giftcard", "giftcard", "active")
	line("retired", "Retired game", "Retired", "retired", "topup", "disabled", field("userId", "Player ID", ""))

	pack := func(pid, slug, name, price string, extra map[string]any) {
		p := map[string]any{"slug": slug, "name": name, "category": "Cat " + slug, "priceUsd": usd(price), "status": "active"}
		for k, v := range extra {
			p[k] = v
		}
		h.putPack(pid, p)
	}
	pack(pidPubg, "pubg", "60 UC", "0.89", nil)
	pack(pidPubgBig, "pubg", "325 UC", "4.45", nil)
	pack(pidPubgOld, "pubg", "Old UC pack", "1", map[string]any{"status": "disabled"})
	pack(pidPubgManual, "pubg", "Manual UC pack", "2", map[string]any{"provider": "manual"})
	pack(pidPubgCodes, "pubg", "UC redeem code", "0.9", map[string]any{"stockBased": true})
	pack(pidFF, "ffmena", "100 Diamonds", "0.95", nil)
	pack(pidMLBB, "mobilelegends", "86 Diamonds", "1.45", nil)
	pack(pidWW, "wutheringwaves", "60 Lunite", "0.95", nil)
	pack(pidOH, "oncehuman", "60 Crystgin", "0.95", nil)
	pack(pidValorant, "valorant", "475 VP", "4.6", nil)
	pack(pidKey, "gamekey", "Steam random key", priceKey, nil)
	pack(pidKeyOld, "gamekey", "Old key", "1", map[string]any{"status": "disabled"})
	pack(pidGift, "giftcard", "Steam Wallet 10 USD", "10.2", nil)
	pack(pidRetired, "retired", "Retired pack", "1", nil)
	pack(pidHuge, "gamekey", "Priceless key", "100000000000", nil)
	h.addStock(pidKey, 10)
	h.addStock(pidGift, 5)
	h.addStock(pidPubgCodes, 3)
}

// balance returns GET /balance's balanceUsd text.
func (h *harness) balance(a account) string {
	h.t.Helper()
	r := h.do("GET", "/balance", a.key, nil)
	if r.status != http.StatusOK || r.str("currency") != "USD" || r.body["success"] != true {
		h.t.Fatalf("GET /balance: %v", r)
	}
	return r.num("balanceUsd")
}

// historyCount returns how many orders GET /history reports in total.
func (h *harness) historyCount(a account) int {
	h.t.Helper()
	r := h.do("GET", "/history?page=1&pageSize=1", a.key, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET /history: %v", r)
	}
	var n int
	if _, err := fmt.Sscan(r.num("total"), &n); err != nil {
		h.t.Fatalf("GET /history total: %v in %v", err, r)
	}
	return n
}

// products returns the catalog rows by id.
func (h *harness) products(a account) map[string]map[string]any {
	h.t.Helper()
	r := h.do("GET", "/products", a.key, nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET /products: %v", r)
	}
	out := map[string]map[string]any{}
	for _, p := range r.body["products"].([]any) {
		row := p.(map[string]any)
		out[row["id"].(string)] = row
	}
	return out
}

// stock returns the catalog `quantity` of every row that has one.
func (h *harness) stock(a account) map[string]string {
	h.t.Helper()
	out := map[string]string{}
	for id, row := range h.products(a) {
		if q, ok := row["quantity"].(json.Number); ok {
			out[id] = string(q)
		}
	}
	return out
}

// entry is one ledger entry as the admin API shows it.
type entry struct {
	Kind      string
	AmountUsd string
	OrderID   string
}

// ledger returns the account's entries, newest first.
func (h *harness) ledger(a account) []entry {
	h.t.Helper()
	r := h.adminOK(http.StatusOK, "GET", "/admin/accounts/"+a.id+"/ledger", nil)
	var out []entry
	for _, e := range r.body["entries"].([]any) {
		m := e.(map[string]any)
		oid, _ := m["orderId"].(string)
		out = append(out, entry{Kind: m["kind"].(string), AmountUsd: string(m["amountUsd"].(json.Number)), OrderID: oid})
	}
	return out
}

// ledgerSum adds up the entries' amounts exactly.
func ledgerSum(t testing.TB, entries []entry) topupd.Money {
	t.Helper()
	var s topupd.Money
	for _, e := range entries {
		s += money(t, e.AmountUsd)
	}
	return s
}

// snapshot is what a rejected order must leave unchanged.
type snapshot struct {
	Balance string
	Orders  int
	Stock   map[string]string
	Ledger  int
}

func (h *harness) snapshot(a account) snapshot {
	h.t.Helper()
	return snapshot{Balance: h.balance(a), Orders: h.historyCount(a), Stock: h.stock(a), Ledger: len(h.ledger(a))}
}

// trx returns a fresh trxid.
func (h *harness) trx() string { return fmt.Sprintf("trx-%d-%s", h.seq.Add(1), topupd.NewID("")) }

// order is a POST /orders body.
type order map[string]any

// place posts an order and fails unless it is answered 200.
func (h *harness) place(a account, body order) reply {
	h.t.Helper()
	r := h.do("POST", "/orders", a.key, body)
	if r.status != http.StatusOK || r.body["orderCreated"] != true {
		h.t.Fatalf("POST /orders %v: got %v", body, r)
	}
	return r
}

// waitOrder polls GET /orders/{id} until the order is final, for at most 5 s.
func (h *harness) waitOrder(a account, id string) reply {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := h.do("GET", "/orders/"+id, a.key, nil)
		if r.status != http.StatusOK {
			h.t.Fatalf("GET /orders/%s: %v", id, r)
		}
		if s := r.str("status"); s == "completed" || s == "cancelled" {
			return r
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("order %s still %s after 5 s", id, r.str("status"))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// errorBody is the part of a failure every row of an errors table checks.
type errorBody struct {
	Status int
	Code   string
	Error  string
}

// errorOf extracts status, code and error of an answer.
func errorOf(r reply) errorBody {
	return errorBody{Status: r.status, Code: r.str("code"), Error: r.str("error")}
}

// wantFailure checks a `{success:false, code, error}` answer exactly.
func wantFailure(t testing.TB, r reply, status int, code, msg string) {
	t.Helper()
	if diff := cmp.Diff(errorBody{status, code, msg}, errorOf(r)); diff != "" {
		t.Errorf("answer (-want +got):\n%s\nbody: %s", diff, r.raw)
	}
	if r.body["success"] != false {
		t.Errorf("success = %v, want false; body %s", r.body["success"], r.raw)
	}
}

// stringsOf returns a JSON array of strings.
func stringsOf(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// sorted returns a sorted copy.
func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
