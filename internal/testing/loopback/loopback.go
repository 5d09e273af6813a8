// Package loopback serves an http.Handler on a free port of 127.0.0.1
// for the test harnesses: the reseller API and the admin site of a
// harnessed server, and the stand-in Bot API. It is what
// the standard library's test server does, kept out of every non-test
// file.
package loopback

import (
	"context"
	"errors"
	"net"
	"net/http"
)

// Server is a handler served on a free port of 127.0.0.1 over plain HTTP.
type Server struct {
	// URL is the server's base URL: http://127.0.0.1:port.
	URL string
	// Listener is what the server accepts connections on.
	Listener net.Listener
	// Config is the HTTP server; set its fields before the first request.
	Config *http.Server
	done   chan struct{}
}

// Serve starts serving h; it panics when no port is free, as httptest
// does, since a harness cannot go on without one.
func Serve(h http.Handler) *Server {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("loopback: listening on 127.0.0.1: " + err.Error())
	}
	s := &Server{URL: "http://" + l.Addr().String(), Listener: l, Config: &http.Server{Handler: h}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.Config.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic("loopback: serving: " + err.Error())
		}
	}()
	return s
}

// Close stops accepting, closes idle connections and waits until every
// request being served has been answered.
func (s *Server) Close() {
	s.Config.SetKeepAlivesEnabled(false)
	_ = s.Config.Shutdown(context.Background())
	<-s.done
}
