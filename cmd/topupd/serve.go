package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/fulfil"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/postgres"
	"github.com/topupd/topupd/provider/manual"
	"github.com/topupd/topupd/provider/sim"
	"github.com/topupd/topupd/provider/upstream"
	"github.com/topupd/topupd/sqlite"
)

// serve runs both APIs and the fulfilment engine until ctx ends, then shuts
// down gracefully: requests in flight are answered, the engine drains and
// lets go of its leases.
func serve(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	log := newLogger(cfg.LogLevel, stderr)
	secret, err := loadSecret(cfg)
	if err != nil {
		return err
	}
	vault, err := topupd.NewVault(secret)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, cfg, vault)
	if err != nil {
		return err
	}
	defer store.Close()
	if cfg.Demo && cfg.AdminToken == "" {
		cfg.AdminToken = randomToken()
	}

	providers := map[string]topupd.Provider{
		topupd.ProviderManual:   manual.New(),
		topupd.ProviderUpstream: upstream.New(store),
	}
	if !cfg.SimOff {
		providers[topupd.ProviderSim] = sim.New(store, time.Now)
	}
	engine, err := fulfil.New(fulfil.Config{
		Store:       store,
		Providers:   providers,
		Logger:      log,
		Owner:       cfg.NodeID,
		BackoffBase: cfg.RetryBase,
		BackoffMax:  cfg.RetryMax,
		CallTimeout: cfg.CallTimeout,
		Lease:       cfg.Lease,
	})
	if err != nil {
		return err
	}
	if err := engine.Recover(ctx); err != nil {
		return err
	}
	limits, err := newLimits(cfg)
	if err != nil {
		return err
	}
	defer limits.close()
	authCache := httpapi.NewAuthCache(time.Second, nil)
	api, err := httpapi.NewReseller(httpapi.Deps{
		AuthCache: authCache,
		Store:     store,
		Limiter: func(ctx context.Context, key string) (bool, time.Duration, error) {
			d, err := limits.limiter.Allow(ctx, key)
			return d.Allowed, d.RetryAfter, err
		},
		InFlight:       limits.inFlight,
		Fulfiller:      engine,
		Logger:         log,
		TrustedProxies: cfg.TrustedProxies,
		Deadline:       cfg.Deadline,
		SimOff:         cfg.SimOff,
	})
	if err != nil {
		return err
	}
	adminAPI, err := httpapi.NewAdmin(httpapi.AdminDeps{Store: store, Logger: log, Token: cfg.AdminToken, Wake: engine.Wake,
		Health: engine.Health, Deadline: cfg.Deadline, Checks: limits.checks, AuthCache: authCache, SimOff: cfg.SimOff})
	if err != nil {
		return err
	}

	apiLn, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	adminLn, err := net.Listen("tcp", cfg.AdminAddr)
	if err != nil {
		apiLn.Close()
		return fmt.Errorf("--admin-addr: %w", err)
	}
	if cfg.Demo {
		if err := demo(ctx, store, cfg, apiLn.Addr(), adminLn.Addr(), stdout); err != nil {
			apiLn.Close()
			adminLn.Close()
			return fmt.Errorf("demo: %w", err)
		}
	}
	fmt.Fprintf(stdout, "topupd: reseller API on http://%s\n", apiLn.Addr())
	fmt.Fprintf(stdout, "topupd: admin API on http://%s\n", adminLn.Addr())
	if cfg.AdminToken == "" {
		fmt.Fprintln(stdout, "topupd: TOPUPD_ADMIN_TOKEN is empty, so the admin API refuses every call")
	}

	engineCtx, stopEngine := context.WithCancel(context.Background())
	engineDone := make(chan struct{})
	go func() { engine.Run(engineCtx); close(engineDone) }()

	servers := []*http.Server{newServer(api, log), newServer(adminAPI, log)}
	errc := make(chan error, 2)
	for i, ln := range []net.Listener{apiLn, adminLn} {
		go func() { errc <- servers[i].Serve(ln) }()
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, s := range servers {
		if e := s.Shutdown(shutCtx); e != nil {
			log.Error("shutdown", "err", e)
		}
	}
	stopEngine()
	<-engineDone
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// newServer sets the timeouts every listener needs.
func newServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    httpapi.ServerMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

func newLogger(level string, w io.Writer) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	if w == nil {
		w = os.Stderr
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// isPostgres reports whether --db names a PostgreSQL database.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// openStore opens the database --db names: a postgres:// URL, or a SQLite file.
func openStore(ctx context.Context, cfg config, vault *topupd.Vault) (topupd.Store, error) {
	if isPostgres(cfg.DB) {
		return postgres.Open(ctx, cfg.DB, vault)
	}
	return sqlite.Open(ctx, cfg.DB, vault)
}
