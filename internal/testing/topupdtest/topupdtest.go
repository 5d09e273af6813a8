// Package topupdtest starts a real topupd in-process for tests: the app as
// topupd serve wires it (internal/app), on a SQLite file of its own, behind
// two loopback servers, and talks to both over real HTTP. Every answer the
// app gives, to any client, is checked against the OpenAPI documents in
// api/, so that the APIs cannot drift from them unnoticed: a test whose
// server gave one that does not match fails.
//
// New(t, options…) returns a T whose helpers fail the test on error;
// StartExample does the same for examples, which have no *testing.T.
package topupdtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/netip"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/app"
	"github.com/topupd/topupd/internal/testing/dbcount"
	"github.com/topupd/topupd/internal/testing/loopback"
	"github.com/topupd/topupd/ratelimit"
)

// config shapes one server.
type config struct {
	clock                      *Clock
	perSecond                  int
	perMinute                  int
	invalidKeyPerMinute        int
	trustedProxies             []netip.Prefix
	maxBody                    int64
	wrapStore                  func(topupd.Store) topupd.Store
	limiter                    topupd.RateLimiter
	deadline                   time.Duration
	authCache                  bool
	simOff                     bool
	wrap                       func(http.Handler) http.Handler
	rateClock                  *Clock
	redis                      string
	telegramAPI, telegramToken string
	db                         string
	secretKey                  string
	webhookAllowPrivate        bool
	webhookConcurrency         int
	counter                    *dbcount.Counter
	webhookPoll                time.Duration
	watchEvery                 time.Duration
}

// Option shapes a server.
type Option func(*config)

// WithClock drives every part of the server from a fake clock.
func WithClock(c *Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithRates sets the per-second and per-minute limits (by default so high
// they never trip).
func WithRates(perSecond, perMinute int) Option {
	return func(cfg *config) { cfg.perSecond, cfg.perMinute = perSecond, perMinute }
}

// WithInvalidKeyRate sets how many calls without a valid key (or admin
// token) one client IP may make in any rolling 60 s (by default so high it
// never trips). The limit is in memory on the server's clock, or on Redis
// with WithRedis.
func WithInvalidKeyRate(perMinute int) Option {
	return func(cfg *config) { cfg.invalidKeyPerMinute = perMinute }
}

// WithRateClock measures the rate limits on c, while the rest of the
// server keeps its own clock.
func WithRateClock(c *Clock) Option { return func(cfg *config) { cfg.rateClock = c } }

// WithLimiter replaces the rate limiter.
func WithLimiter(l topupd.RateLimiter) Option { return func(cfg *config) { cfg.limiter = l } }

// WithTrustedProxies sets the proxies whose X-Forwarded-For is believed.
func WithTrustedProxies(cidrs string) Option {
	return func(cfg *config) {
		p, err := httpapi.ParseTrustedProxies(cidrs)
		if err != nil {
			panic(err)
		}
		cfg.trustedProxies = p
	}
}

// WithMaxBody bounds the reseller API's request bodies.
func WithMaxBody(n int64) Option { return func(cfg *config) { cfg.maxBody = n } }

// WithStore gives the reseller API a wrapped store; the admin API and the
// engine keep the real one.
func WithStore(wrap func(topupd.Store) topupd.Store) Option {
	return func(cfg *config) { cfg.wrapStore = wrap }
}

// WithDeadline sets how long an order may stay processing.
func WithDeadline(d time.Duration) Option { return func(cfg *config) { cfg.deadline = d } }

// WithAuthCache gives both APIs one auth cache with a one-second TTL, as
// topupd serve does.
func WithAuthCache() Option { return func(cfg *config) { cfg.authCache = true } }

// WithCounter counts the server's statements, transactions, commits and
// Redis round trips in c. With WithRedis the rate limits go through Redis
// too, as topupd serve's do, instead of the test's limiter in memory.
func WithCounter(c *dbcount.Counter) Option { return func(cfg *config) { cfg.counter = c } }

// WithWebhookPoll sets how long an idle webhook deliverer waits before
// looking again (by default 50 ms); each look is a write transaction.
func WithWebhookPoll(d time.Duration) Option { return func(cfg *config) { cfg.webhookPoll = d } }

// WithWatchEvery makes the watch of suppliers' money look every d (polls
// due, balance alerts) instead of every 10 s.
func WithWatchEvery(d time.Duration) Option { return func(cfg *config) { cfg.watchEvery = d } }

// WithRedis gives the server a Redis (a URL), under a key prefix of its
// own: the auth cache's invalidations and the limit on calls without a
// valid key use it, and with WithCounter the rate limits and the orders'
// in-flight hints too (otherwise they stay in memory with the test's
// limiter).
func WithRedis(url string) Option { return func(cfg *config) { cfg.redis = url } }

// WithSimOff turns the sim supplier off, as --sim off does.
func WithSimOff() Option { return func(cfg *config) { cfg.simOff = true } }

// WithTelegram runs the messaging app's bot against a Bot API at apiURL
// (a botapitest stand-in) with a token, long polls of 4 s (the library
// polls in a tight loop at 1 s or less) and a 3-second lease.
func WithTelegram(apiURL, token string) Option {
	return func(cfg *config) { cfg.telegramAPI, cfg.telegramToken = apiURL, token }
}

// WithDB makes the server use a SQLite file or postgres:// URL given,
// which another server may share (by default each server has a fresh
// SQLite file of its own).
func WithDB(db string) Option { return func(cfg *config) { cfg.db = db } }

// WithSecretKey seals and opens with a key (base64) given, as a server
// sharing another's database (WithDB) must: by default each server has a
// random key of its own. The key is T.SecretKey.
func WithSecretKey(key string) Option { return func(cfg *config) { cfg.secretKey = key } }

// WithWebhookReceivers lets webhook endpoints be http:// receivers on
// loopback (--webhook-allow-private on), with concurrency attempts at
// once on this server (0: the default).
func WithWebhookReceivers(concurrency int) Option {
	return func(cfg *config) { cfg.webhookAllowPrivate, cfg.webhookConcurrency = true, concurrency }
}

// WithWrap wraps the reseller API's handler, to inject failures or watch requests.
func WithWrap(w func(http.Handler) http.Handler) Option { return func(cfg *config) { cfg.wrap = w } }

// T is one running server bound to a test: its helpers fail the test on error.
type T struct {
	// TB is the test the server belongs to.
	TB testing.TB
	// App is the running app; App.Store is its database.
	App *app.App
	// Store is App.Store.
	Store topupd.Store
	// API and Admin serve the reseller and admin APIs.
	API, Admin *loopback.Server
	// Token is the admin API's bearer token.
	Token string
	// MetricsToken may read GET /metrics.
	MetricsToken string
	// Now is the server's clock.
	Now func() time.Time
	// HTTP is the client the helpers call through.
	HTTP *http.Client
	// AdminClient calls the admin API through HTTP.
	AdminClient *client.Admin
	// Calls records every supplier call.
	Calls *SupplierLog
	// Codes holds the codes AddStock stocked, by PID.
	Codes map[string][]string
	// DB is the path of the server's SQLite file.
	DB string
	// SecretKey is the key (base64) that seals its codes; another server
	// on the same database needs it (WithSecretKey).
	SecretKey string
	// Logs is the server's log. When the test ends, it must hold none of
	// the secrets registered with Logs.Secret (the admin token, and every
	// API key and code the helpers made are registered by themselves).
	Logs *Logs

	seq   atomic.Int64
	check *checker
}

// New starts a server for tb and stops it when tb ends. By default the clock
// is real and the rate limits are so high they never trip.
//
// A whole server is an end-to-end test: go test -short skips it (an
// example, which cannot skip, runs).
func New(tb testing.TB, opts ...Option) *T {
	tb.Helper()
	if _, example := tb.(*exampleTB); testing.Short() && !example {
		tb.Skip("end-to-end (a whole server): skipped by -short")
	}
	cfg := config{perSecond: 100_000, perMinute: 1_000_000, invalidKeyPerMinute: 1_000_000}
	for _, o := range opts {
		o(&cfg)
	}
	now := time.Now
	if cfg.clock != nil {
		now = cfg.clock.Now
	}
	h := &T{TB: tb, Now: now, Calls: newSupplierLog(), Codes: map[string][]string{}, Token: "admin-" + topupd.NewID("tok_"), Logs: &Logs{}}
	h.Logs.Secret(h.Token, "the admin token")
	h.MetricsToken = "metrics-" + topupd.NewID("tok_")
	h.Logs.Secret(h.MetricsToken, "the metrics token")
	limiter := cfg.limiter
	if limiter == nil {
		rateNow := now
		if cfg.rateClock != nil {
			rateNow = cfg.rateClock.Now
		}
		limiter = ratelimit.NewMemory([]ratelimit.Window{
			{Limit: cfg.perSecond, Period: time.Second}, {Limit: cfg.perMinute, Period: time.Minute},
		}, rateNow)
	}
	h.SecretKey, h.DB = cfg.secretKey, cfg.db
	switch {
	case h.DB == "" && h.SecretKey == "":
		// A database and a key of its own: a copy of the template.
		h.DB = filepath.Join(tb.TempDir(), "topupd.db")
		var err error
		if h.SecretKey, err = fromTemplate(h.DB); err != nil {
			tb.Fatalf("topupdtest: the template database: %v", err)
		}
	case h.SecretKey == "":
		secret := make([]byte, topupd.SecretKeySize)
		rand.Read(secret)
		h.SecretKey = base64.StdEncoding.EncodeToString(secret)
	}
	if h.DB == "" {
		h.DB = filepath.Join(tb.TempDir(), "topupd.db")
	}
	ac := app.Config{
		DB: h.DB, SecretKey: h.SecretKey, AdminToken: h.Token,
		TrustedProxies: cfg.trustedProxies, Deadline: cfg.deadline, NodeID: topupd.NewID("test_"), SimOff: cfg.simOff,
		Logger: newLogger(h.Logs), Now: cfg.clockNow(), Poll: 50 * time.Millisecond, MaxBody: cfg.maxBody, Limiter: limiter,
		WrapStore: cfg.wrapStore, WrapProvider: h.Calls.watch, MetricsToken: h.MetricsToken,
		RateInvalidKeyPerMinute: cfg.invalidKeyPerMinute,
		WebhookAllowPrivate:     cfg.webhookAllowPrivate, WebhookConcurrency: cfg.webhookConcurrency, WebhookPoll: cmp.Or(cfg.webhookPoll, 50*time.Millisecond),
		WatchEvery: cfg.watchEvery,
	}
	if cfg.telegramToken != "" {
		ac.TelegramToken, ac.TelegramAPI, ac.TelegramPoll, ac.TelegramLease = cfg.telegramToken, cfg.telegramAPI, 5*time.Second, 3*time.Second
		h.Logs.Secret(cfg.telegramToken, "the bot's token")
	}
	if cfg.authCache {
		ac.AuthCacheTTL = time.Second
	}
	if cfg.redis != "" {
		ac.Redis, ac.RedisPrefix = cfg.redis, "test:"+topupd.NewID("h")+":"
	}
	if cfg.counter != nil {
		ac.WrapConnector, ac.RedisHook = cfg.counter.Connector, cfg.counter.RedisHook()
		if cfg.redis != "" && cfg.limiter == nil {
			ac.Limiter, ac.RatePerSecond, ac.RatePerMinute = nil, cfg.perSecond, cfg.perMinute
		}
	}
	a, err := app.New(context.Background(), ac)
	if err != nil {
		tb.Fatalf("topupdtest: %v", err)
	}
	tb.Cleanup(func() {
		a.Close()
		for _, what := range h.Logs.leaks() {
			tb.Errorf("the log holds %s", what)
		}
	})
	h.App, h.Store = a, a.Store
	h.check = newChecker(tb)
	tb.Cleanup(h.check.report)
	reseller := h.check.reseller(a.Reseller)
	if cfg.wrap != nil {
		reseller = cfg.wrap(reseller)
	}
	h.API = loopback.Serve(reseller)
	tb.Cleanup(h.API.Close)
	site := http.NewServeMux()
	site.Handle("/console/", a.Console)
	site.Handle("GET /favicon.ico", a.Console)
	site.Handle("/", h.check.admin(a.Admin))
	h.Admin = loopback.Serve(site)
	tb.Cleanup(h.Admin.Close)
	h.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	tb.Cleanup(h.HTTP.CloseIdleConnections)
	h.AdminClient, err = client.NewAdmin(h.Admin.URL, h.Token, client.WithHTTPClient(h.HTTP), client.WithRetries(0))
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// clockNow is the fake clock's Now, or nil for the real one.
func (cfg *config) clockNow() func() time.Time {
	if cfg.clock == nil {
		return nil
	}
	return cfg.clock.Now
}

// Client returns a reseller API client for an API key, through HTTP; it
// retries nothing unless opts say so.
func (h *T) Client(key string, opts ...client.Option) *client.Client {
	h.TB.Helper()
	c, err := client.New(h.API.URL, key, append([]client.Option{client.WithHTTPClient(h.HTTP), client.WithRetries(0)}, opts...)...)
	if err != nil {
		h.TB.Fatal(err)
	}
	return c
}
