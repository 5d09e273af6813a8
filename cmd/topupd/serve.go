package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/app"
	"github.com/topupd/topupd/internal/logctx"
)

// serve runs both APIs and the fulfilment engine until ctx ends, then shuts
// down gracefully: requests in flight are answered, the engine drains and
// lets go of its leases.
func serve(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	log, err := logctx.New(cfg.LogFormat, cfg.LogLevel, stderr)
	if err != nil {
		return err
	}
	if cfg.Demo && cfg.AdminToken == "" {
		cfg.AdminToken = randomToken()
	}
	cfg.Logger, cfg.AuthCacheTTL = log, time.Second
	redisLog.Do(func() { redis.SetLogger(redisLogger{log}) })
	a, err := app.New(ctx, cfg.Config)
	if err != nil {
		return err
	}
	defer a.Close()
	logStart(log, cfg, a)
	apiLn, adminLn, err := listen(cfg)
	if err != nil {
		return err
	}
	if cfg.Demo {
		if err := demo(ctx, a.Store, cfg, apiLn.Addr(), adminLn.Addr(), stdout); err != nil {
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
	return serveUntil(ctx, log, map[net.Listener]http.Handler{apiLn: a.Reseller, adminLn: a.AdminSite()})
}

// logStart writes the start-up line: what runs, on which schema, with
// which migrations applied now, and whether sim may complete orders.
func logStart(log *slog.Logger, cfg config, a *app.App) {
	b, kind, sim := thisBuild(), "sqlite", "on"
	if app.IsPostgres(cfg.DB) {
		kind = "postgres"
	}
	if cfg.SimOff {
		sim = "off"
	}
	applied := a.Schema.Applied
	if applied == nil {
		applied = []string{}
	}
	attrs := []any{"version", b.Version, "commit", b.commit(), "schemaVersion", a.Schema.Version, "store", kind,
		"sim", sim, "migrationsApplied", applied, "nodeId", cfg.NodeID}
	if len(a.Schema.Repaired) > 0 {
		attrs = append(attrs, "repaired", a.Schema.Repaired)
	}
	log.Info("start", attrs...)
	if !cfg.SimOff {
		log.Warn("the sim supplier is on (--sim on): orders for sim packs may be completed by a simulator that delivers nothing; " +
			"never in production with real resellers (--sim off, the default without --demo)")
	}
}

// redisLog sends go-redis's own messages (a failed dial, a lost
// subscription) to the process's log, once per process: it is global.
var redisLog sync.Once

// redisLogger writes go-redis's messages as warnings of the log.
type redisLogger struct{ log *slog.Logger }

// Printf logs one message of go-redis.
func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, "redis", "detail", fmt.Sprintf(format, v...))
}

// listen opens the reseller and admin listeners.
func listen(cfg config) (api, admin net.Listener, err error) {
	if api, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, nil, fmt.Errorf("--addr: %w", err)
	}
	if admin, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
		api.Close()
		return nil, nil, fmt.Errorf("--admin-addr: %w", err)
	}
	return api, admin, nil
}

// serveUntil serves each listener's handler until ctx ends or one server
// fails, then shuts them all down, answering the requests in flight.
func serveUntil(ctx context.Context, log *slog.Logger, handlers map[net.Listener]http.Handler) error {
	errc := make(chan error, len(handlers))
	var servers []*http.Server
	for ln, h := range handlers {
		s := newServer(h, log)
		servers = append(servers, s)
		go func() { errc <- s.Serve(ln) }()
	}
	var err error
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
