package httpapi

import (
	"context"
	"net/http"
	"time"
)

// readiness is the answer of /livez and /readyz.
type readiness struct {
	Success bool `json:"success"`
}

// opsRoutes are the operations paths: metrics for a scraper, liveness and
// readiness for a load balancer or an orchestrator.
func (a *admin) opsRoutes(mux router) {
	if a.Metrics != nil {
		mux.Handle("GET /metrics", a.metricsAuth(a.Metrics.Handler()))
	}
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, readiness{Success: true})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := a.ready(r.Context()); err != nil {
			a.Logger.WarnContext(r.Context(), "not ready", "err", err)
			writeJSON(w, http.StatusServiceUnavailable, readiness{Success: false})
			return
		}
		writeJSON(w, http.StatusOK, readiness{Success: true})
	})
}

// ready checks that the database and every other dependency (Redis, when
// set) answer within 2 s.
func (a *admin) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := a.Store.Ping(ctx); err != nil {
		return err
	}
	for _, check := range a.Checks {
		if err := check(ctx); err != nil {
			return err
		}
	}
	return nil
}

// metricsAuth lets through any operator's token, or the metrics token.
func (a *admin) metricsAuth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !bearerOK(r, a.MetricsToken) {
			if _, err := a.operator(r); err != nil {
				writeError(w, a.Logger, r, err)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
