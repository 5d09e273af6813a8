package httpapi

import (
	"net/http"
	"net/http/pprof"

	"github.com/topupd/topupd"
)

// debugRoutes serves Go's runtime profiles (net/http/pprof) under
// /admin/debug/pprof/, to the owner alone (a heap profile holds whatever
// the process holds), so that an owner can see where a node's time goes
// under load: fetch /admin/debug/pprof/profile?seconds=20 with the token,
// then read it with go tool pprof. The command line is never served: it
// holds flags such as --telegram-token. Its path is 404 for everyone,
// before any token is looked at, so that it tells nothing either way.
func (a *admin) debugRoutes(mux router) {
	serve := func(h http.HandlerFunc) http.Handler {
		return a.auth(topupd.PermDebug, func(w http.ResponseWriter, r *http.Request) error {
			// The handlers expect the paths of net/http/pprof: /debug/pprof/….
			http.StripPrefix("/admin", h).ServeHTTP(w, r)
			return nil
		})
	}
	mux.Handle("GET /admin/debug/pprof/", serve(pprof.Index))
	mux.Handle("GET /admin/debug/pprof/cmdline", http.HandlerFunc(a.noCmdline))
	mux.Handle("GET /admin/debug/pprof/profile", serve(pprof.Profile))
	mux.Handle("GET /admin/debug/pprof/symbol", serve(pprof.Symbol))
	mux.Handle("GET /admin/debug/pprof/trace", serve(pprof.Trace))
}

// noCmdline answers the path of net/http/pprof's command line 404, as a
// path that does not exist.
func (a *admin) noCmdline(w http.ResponseWriter, r *http.Request) {
	writeError(w, a.Logger, r, topupd.Fail(topupd.ENotFound))
}
