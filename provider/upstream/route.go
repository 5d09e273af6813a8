package upstream

import (
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// WithInstance names this deployment (topupd.Route): every call to an
// upstream then carries Topupd-Instance and Topupd-Hops, so that an
// upstream that leads back here refuses the order (UPSTREAM_LOOP) instead
// of placing it again.
func WithInstance(id string) Option { return func(p *Provider) { p.instance = id } }

// routed returns hc (nil: the client package's default) sending the loop
// guard's headers of the route each request's context carries
// (topupd.RouteOf; a call made for no order or check counts as a
// reseller's own).
func routed(hc *http.Client, self string) *http.Client {
	out := http.Client{Timeout: client.DefaultTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if hc != nil {
		out = *hc
	}
	base := out.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out.Transport = routeTransport{base: base, self: self}
	return &out
}

// routeTransport adds the loop guard's headers to each request.
type routeTransport struct {
	base http.RoundTripper
	self string
}

// RoundTrip sends r with Topupd-Instance and Topupd-Hops set.
func (t routeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	instances, hops := topupd.RouteOf(r.Context()).Onward(t.self)
	r = r.Clone(r.Context())
	r.Header.Set(topupd.HeaderInstance, instances)
	r.Header.Set(topupd.HeaderHops, hops)
	return t.base.RoundTrip(r)
}
