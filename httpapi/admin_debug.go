package httpapi

import (
	"net/http"
	"net/http/pprof"
)

// debugRoutes serves Go's runtime profiles (net/http/pprof) under
// /admin/debug/pprof/, behind the admin token, so that an operator can see
// where a node's time goes under load: fetch
// /admin/debug/pprof/profile?seconds=20 with the token, then read it with
// go tool pprof.
func (a *admin) debugRoutes(mux *http.ServeMux) {
	serve := func(h http.HandlerFunc) http.Handler {
		return a.read(func(w http.ResponseWriter, r *http.Request) error {
			// The handlers expect the paths of net/http/pprof: /debug/pprof/….
			http.StripPrefix("/admin", h).ServeHTTP(w, r)
			return nil
		})
	}
	mux.Handle("GET /admin/debug/pprof/", serve(pprof.Index))
	mux.Handle("GET /admin/debug/pprof/cmdline", serve(pprof.Cmdline))
	mux.Handle("GET /admin/debug/pprof/profile", serve(pprof.Profile))
	mux.Handle("GET /admin/debug/pprof/symbol", serve(pprof.Symbol))
	mux.Handle("GET /admin/debug/pprof/trace", serve(pprof.Trace))
}
