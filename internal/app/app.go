// Package app wires topupd together: from a Config it opens the store,
// builds the suppliers, the fulfilment engine, the rate limits and both
// APIs, and starts the engine. topupd serve and every in-process test
// server start it the same way; the console and the messaging bot hang off
// App too.
package app

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/broadcast"
	"github.com/topupd/topupd/console"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/metrics"
	"github.com/topupd/topupd/internal/sqlstore"
	"github.com/topupd/topupd/notify"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/provider/manual"
	"github.com/topupd/topupd/provider/sim"
	"github.com/topupd/topupd/provider/upstream"
	"github.com/topupd/topupd/ratelimit"
	"github.com/topupd/topupd/service"
	"github.com/topupd/topupd/sqlite"
	"github.com/topupd/topupd/telegram"
	"github.com/topupd/topupd/webhooks"
)

// Config is everything the app needs. The zero value of a duration or a
// rate means its default.
type Config struct {
	// DB is a SQLite file path, or a postgres:// URL.
	DB string
	// SecretKey is 32 bytes in base64 that seal codes and upstream keys at
	// rest; empty with SQLite means the key file beside the database.
	SecretKey string
	// AdminToken is the admin API's bearer token; empty refuses every call.
	AdminToken string
	// Redis, when set, is a redis:// URL through which every node shares
	// rate limits and in-flight hints; RedisPrefix starts every key and
	// RedisTimeout bounds each call.
	Redis        string
	RedisPrefix  string
	RedisTimeout time.Duration
	// RatePerSecond and RatePerMinute are each account's rolling limits.
	RatePerSecond, RatePerMinute int
	// RateInvalidKeyPerMinute is how many calls without a valid key (or
	// admin token) one client IP may make in any rolling 60 s; 0 is
	// topupd.DefaultRateInvalidKeyPerMinute.
	RateInvalidKeyPerMinute int
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// Deadline is how long an order may stay processing (see topupd.DefaultOrderDeadline).
	Deadline time.Duration
	// NodeID names this node in order leases.
	NodeID string
	// RetryBase, RetryMax, CallTimeout and Lease shape the engine (see fulfil.Config).
	RetryBase, RetryMax, CallTimeout, Lease time.Duration
	// SimOff turns the sim supplier off (--sim off).
	SimOff bool
	// Exclusive holds a SQLite database file for this process alone, as
	// topupd serve does: a second server on the file is refused.
	Exclusive bool
	// RequireRedis refuses to start when Redis (Config.Redis) does not
	// answer, as topupd serve does; otherwise calls fail until it answers.
	RequireRedis bool
	// MetricsToken, when set, may read GET /metrics besides an operator's token.
	MetricsToken string
	// ConsoleURL, when set, is the console's public address (setup links
	// start with it).
	ConsoleURL string
	// TelegramToken, when set, runs the messaging app's bot with it.
	TelegramToken string
	// TelegramAPI is the Bot API's base URL (Telegram's when empty).
	TelegramAPI string
	// TelegramPoll and TelegramLease are the bot's long-poll length and
	// its poller's lease (the bot's defaults when zero).
	TelegramPoll, TelegramLease time.Duration
	// WebhookAllowPrivate lifts the webhook URL rules of https only and no
	// private addresses (--webhook-allow-private).
	WebhookAllowPrivate bool
	// WebhookConcurrency is how many webhook deliveries this node attempts
	// at once (webhooks.DefaultConcurrency when zero).
	WebhookConcurrency int
	// AuthCacheTTL is how long keys' accounts and the settings are
	// remembered between calls (topupd serve: one second); 0 remembers nothing.
	AuthCacheTTL time.Duration
	// Logger receives every log line; nil discards them.
	Logger *slog.Logger

	// Tests set what follows; topupd serve leaves it empty.

	// Now is every part's clock; nil is time.Now.
	Now func() time.Time
	// Poll is the engine's longest idle sleep; 0 is its default.
	Poll time.Duration
	// NotifyPoll is how long the event stream's dispatcher waits, idle,
	// before reading again; 0 is its default.
	NotifyPoll time.Duration
	// WebhookPoll is how long an idle webhook deliverer waits before
	// looking again; 0 is its default.
	WebhookPoll time.Duration
	// MaxBody bounds the reseller API's request bodies; 0 is its default.
	MaxBody int64
	// Limiter replaces the rate limiter built from the rates above; the
	// orders' in-flight hints are then in memory, on this node alone.
	Limiter topupd.RateLimiter
	// WrapStore wraps the store the reseller API sees.
	WrapStore func(topupd.Store) topupd.Store
	// WrapProvider wraps each supplier the engine calls.
	WrapProvider func(topupd.Provider) topupd.Provider
	// WrapConnector wraps the connector of each database pool (counting
	// tests, internal/testing/dbcount).
	WrapConnector func(driver.Connector) driver.Connector
	// RedisHook, when set, is added to the Redis client.
	RedisHook redis.Hook
	// WatchEvery is how often the watch of suppliers' money looks for
	// polls due and balance alerts to work out (default 10 s).
	WatchEvery time.Duration
}

// App is a running topupd: the store, the engine (working from New until
// Close), and the two APIs' handlers.
type App struct {
	// Store is the database.
	Store topupd.Store
	// Engine moves orders from processing to a final state.
	Engine *fulfil.Engine
	// Reseller is the reseller API's handler.
	Reseller http.Handler
	// Admin is the admin API's handler.
	Admin http.Handler
	// Console is the operator console's handler, served under /console/
	// on the admin address (AdminSite serves both).
	Console http.Handler
	// Metrics are this process's Prometheus series.
	Metrics *metrics.Metrics
	// Schema is the database's schema version and the migrations this
	// start applied.
	Schema sqlstore.Schema
	// Instance is this deployment's instance id (topupd.Route): the
	// database's, the same on every node.
	Instance string
	// Notify tells the event stream's notifiers of its events.
	Notify *notify.Dispatcher
	// Service runs the operations every front end calls.
	Service *service.Service
	// Webhooks makes this node's webhook delivery attempts.
	Webhooks *webhooks.Deliverer
	// Watch keeps the database's view of each upstream's money current.
	Watch *fulfil.Watch

	log           *slog.Logger
	limits        *limits
	stopListening context.CancelFunc
	stopEngine    context.CancelFunc
	engineDone    chan struct{}
	stopBot       func()
	bot           atomic.Pointer[telegram.Bot]
	unlock        func() error // lets go of the SQLite file (Config.Exclusive)
	stopNotify    func()
	stopWebhooks  func()
	stopWatch     func()
}

// New opens the store, builds every part and starts the engine. Close
// undoes it all.
func New(ctx context.Context, cfg Config) (a *App, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.RatePerSecond == 0 {
		cfg.RatePerSecond = topupd.DefaultRatePerSecond
	}
	if cfg.RatePerMinute == 0 {
		cfg.RatePerMinute = topupd.DefaultRatePerMinute
	}
	if cfg.RateInvalidKeyPerMinute == 0 {
		cfg.RateInvalidKeyPerMinute = topupd.DefaultRateInvalidKeyPerMinute
	}
	if cfg.RedisTimeout == 0 {
		cfg.RedisTimeout = ratelimit.DefaultRedisTimeout
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	a = &App{log: cfg.Logger}
	built := a // a is nil once an error is returned
	defer func() {
		if err != nil {
			built.Close()
		}
	}()
	if cfg.Exclusive && !IsPostgres(cfg.DB) {
		if a.unlock, err = sqlite.Lock(cfg.DB); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.DB, err)
		}
	}
	db, vault, err := openChecked(ctx, cfg, now)
	if err != nil {
		return nil, err
	}
	a.Store, a.Schema = db, db.Schema()
	if a.Instance, err = a.Store.Instance(ctx); err != nil {
		return nil, err
	}
	a.Metrics = metrics.New(a.Store, now)
	a.Watch = &fulfil.Watch{Store: a.Store, Now: now, Logger: cfg.Logger, Every: cfg.WatchEvery}
	ups := upstream.New(a.Store, upstream.WithInstance(a.Instance), upstream.WithObserver(a.Watch))
	a.Watch.Checker = ups
	if a.Engine, err = newEngine(cfg, a.Store, ups, now, a.Metrics); err != nil {
		return nil, err
	}
	if err := a.Engine.Recover(ctx); err != nil {
		return nil, err
	}
	if a.limits, err = newLimits(cfg); err != nil {
		return nil, err
	}
	if cfg.RequireRedis {
		if err := a.limits.reachable(ctx); err != nil {
			return nil, err
		}
	}
	limiter, orders := cfg.Limiter, a.limits.orders
	if limiter == nil {
		limiter = a.limits.limiter
	} else {
		orders = ratelimit.NewMemoryOrders(limiter, cfg.Now) // the hints on this node alone
	}
	var cache *httpapi.AuthCache
	if cfg.AuthCacheTTL > 0 {
		cache = httpapi.NewAuthCache(cfg.AuthCacheTTL, now)
		if err := a.follow(ctx, cfg, cache); err != nil {
			return nil, err
		}
	}
	guard := webhooks.Guard{AllowPrivate: cfg.WebhookAllowPrivate}
	a.Webhooks = newDeliverer(cfg, a.Store, guard, now, a.Metrics)
	deps := service.Deps{Store: a.Store, Now: cfg.Now, Deadline: cfg.Deadline, Wake: a.Engine.Wake,
		Fulfiller: a.Engine, Players: a.Engine, CheckWebhookURL: guard.Check, WakeWebhooks: a.Webhooks.Wake,
		Invalidate: cache.Invalidate, Logger: cfg.Logger, SimOff: cfg.SimOff, Health: a.Engine.Health, ConsoleURL: cfg.ConsoleURL,
		BotUsername: a.botUsername, Instance: a.Instance, Suppliers: ups, Books: ups, SupplierOrders: ups}
	if a.Service, err = service.New(deps); err != nil {
		return nil, err
	}
	a.Watch.Nightly = func(ctx context.Context, upstream string, p topupd.ReconPeriod) error {
		_, err := a.Service.ReconcilePull(ctx, service.SystemActor(), upstream, p)
		return err
	}
	apiStore, apiService := topupd.Store(a.Store), a.Service
	if cfg.WrapStore != nil { // the reseller API's own view of the store, and its operations over it
		apiStore = cfg.WrapStore(a.Store)
		deps.Store = apiStore
		if apiService, err = service.New(deps); err != nil {
			return nil, err
		}
	}
	a.Reseller, err = httpapi.NewReseller(httpapi.Deps{
		Store: apiStore, Service: apiService, Limiter: limiter, Orders: orders, Logger: cfg.Logger, Now: cfg.Now,
		TrustedProxies: cfg.TrustedProxies, MaxBody: cfg.MaxBody, AuthCache: cache, Metrics: a.Metrics, KeylessLimiter: a.limits.keyless,
		Instance: a.Instance,
	})
	if err != nil {
		return nil, err
	}
	a.Admin, err = httpapi.NewAdmin(httpapi.AdminDeps{Service: a.Service,
		Store: a.Store, Logger: cfg.Logger, Now: cfg.Now, Token: cfg.AdminToken, Checks: a.limits.checks, AuthCache: cache,
		Metrics: a.Metrics, MetricsToken: cfg.MetricsToken, KeylessLimiter: a.limits.keyless, TrustedProxies: cfg.TrustedProxies,
	})
	if err != nil {
		return nil, err
	}
	if a.Console, err = newConsole(cfg, a.Store, a.Service, vault, a.Metrics); err != nil {
		return nil, err
	}
	if err = a.startBot(cfg); err != nil {
		return nil, err
	}
	a.startNotify(cfg, now)
	a.startWebhooks()
	engineCtx, stop := context.WithCancel(context.Background())
	a.stopEngine, a.engineDone = stop, make(chan struct{})
	go func() { a.Engine.Run(engineCtx); close(a.engineDone) }()
	watchCtx, stopWatch := context.WithCancel(context.Background())
	watchDone := make(chan struct{})
	a.stopWatch = func() { stopWatch(); <-watchDone }
	go func() { a.Watch.Run(watchCtx); close(watchDone) }()
	return a, nil
}

// Close stops the engine (it drains: calls in progress finish and leases are
// let go), then closes the limits and the store. Stop serving the handlers
// first.
func (a *App) Close() error {
	if a.stopBot != nil {
		a.stopBot()
		a.stopBot = nil
	}
	if a.stopNotify != nil {
		a.stopNotify()
		a.stopNotify = nil
	}
	if a.stopWebhooks != nil {
		a.stopWebhooks()
		a.stopWebhooks = nil
	}
	if a.stopWatch != nil {
		a.stopWatch()
		a.stopWatch = nil
	}
	if a.stopEngine != nil {
		a.stopEngine()
		<-a.engineDone
		a.stopEngine = nil
	}
	if a.stopListening != nil {
		a.stopListening()
		a.stopListening = nil
	}
	if a.limits != nil {
		a.limits.close()
		a.limits = nil
	}
	var err error
	if a.Store != nil {
		err = a.Store.Close()
		a.Store = nil
	}
	if a.unlock != nil { // after the store: closing the lock's file ends its process's locks
		err = errors.Join(err, a.unlock())
		a.unlock = nil
	}
	return err
}

// AdminSite is what the admin address serves: the console under
// /console/ (and its icon at /favicon.ico), the admin API everywhere else.
func (a *App) AdminSite() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/console/", a.Console)
	mux.Handle("GET /favicon.ico", a.Console)
	mux.Handle("/", a.Admin)
	return mux
}

// newConsole builds the console over the service layer.
func newConsole(cfg Config, store topupd.Store, svc *service.Service, vault *topupd.Vault, m *metrics.Metrics) (http.Handler, error) {
	c, err := console.New(console.Deps{Store: store, Service: svc, StatusOf: httpapi.StatusOf, Seen: httpapi.NoteOperator, Vault: vault,
		Now: cfg.Now, Logger: cfg.Logger, SecureCookies: strings.HasPrefix(cfg.ConsoleURL, "https://"),
		ClientIP: func(r *http.Request) string {
			if ip := httpapi.ClientIP(r, cfg.TrustedProxies); ip.IsValid() {
				return ip.String()
			}
			return r.RemoteAddr
		}})
	if err != nil {
		return nil, err
	}
	return httpapi.Observe("console", cfg.Logger, m, c.Mux(), c, cfg.TrustedProxies), nil
}

// follow makes the auth cache hear the other nodes of the deployment: on
// Redis when there is one, else on PostgreSQL; a SQLite node is alone.
func (a *App) follow(ctx context.Context, cfg Config, cache *httpapi.AuthCache) error {
	inv := a.limits.invalidations
	if inv == nil && IsPostgres(cfg.DB) {
		pg, err := broadcast.NewPostgres(ctx, cfg.DB, 5*time.Second, cfg.Logger)
		if err != nil {
			return err
		}
		inv = pg
	}
	if inv == nil {
		return nil
	}
	listen, stop := context.WithCancel(context.Background())
	a.stopListening = stop
	cache.Follow(listen, inv)
	return nil
}

// newEngine builds the engine with every supplier the configuration allows.
func newEngine(cfg Config, store topupd.Store, ups *upstream.Provider, now func() time.Time, m *metrics.Metrics) (*fulfil.Engine, error) {
	providers := map[string]topupd.Provider{
		topupd.ProviderManual:   manual.New(),
		topupd.ProviderUpstream: ups,
		topupd.ProviderSandbox:  sim.New(store, now), // the sandbox's orders, whether or not sim is on
	}
	if !cfg.SimOff {
		providers[topupd.ProviderSim] = sim.New(store, now)
	}
	if cfg.WrapProvider != nil {
		for name, p := range providers {
			providers[name] = cfg.WrapProvider(p)
		}
	}
	owner := cfg.NodeID
	if owner == "" {
		owner = topupd.NewID("node_")
	}
	return fulfil.New(fulfil.Config{
		Store: store, Providers: providers, Now: cfg.Now, Logger: cfg.Logger, Owner: owner, Poll: cfg.Poll,
		BackoffBase: cfg.RetryBase, BackoffMax: cfg.RetryMax, CallTimeout: cfg.CallTimeout, Lease: cfg.Lease, Metrics: m,
	})
}

// IsPostgres reports whether a --db value names a PostgreSQL database.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// store is a database as the app opens it.
type store interface {
	topupd.Store
	keyStore
	// Schema is what opening did to the schema.
	Schema() sqlstore.Schema
}

// openChecked opens cfg's database with its secret key, and refuses a key
// that is not the database's (see keepSecret).
func openChecked(ctx context.Context, cfg Config, now func() time.Time) (store, *topupd.Vault, error) {
	sec, err := loadSecret(cfg)
	if err != nil {
		return nil, nil, err
	}
	vault, err := topupd.NewVault(sec.key)
	if err != nil {
		return nil, nil, err
	}
	s, err := openStore(ctx, cfg.DB, vault, sqlstore.WithConnector(cfg.WrapConnector), sqlstore.WithClock(now))
	if err != nil {
		return nil, nil, err
	}
	if err := keepSecret(ctx, s, sec, now()); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, vault, nil
}

// openStore opens the database db names: a postgres:// URL, or a SQLite file.
func openStore(ctx context.Context, db string, vault *topupd.Vault, opts ...sqlstore.Option) (store, error) {
	if db == "" {
		return nil, errors.New("app: no database")
	}
	if IsPostgres(db) {
		s, err := postgres.Open(ctx, db, vault, opts...)
		if err != nil { // not s: a nil *postgres.Store in a Store is not nil
			return nil, err
		}
		return s, nil
	}
	s, err := sqlite.Open(ctx, db, vault, opts...)
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	return s, nil
}
