package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
)

// inProcessCaller is who an in-process admin call is made for.
type inProcessCaller struct {
	operator, ip, requestID, host string
	// account, for a reseller's chat, is the one account it may act on.
	account string
	// updateID is the Bot API update that asked for the call, if any.
	updateID int64
}

// inProcessKey carries the inProcessCaller of in-process admin calls in a context.
type inProcessKey struct{}

// AsOperator returns a context whose admin calls through Transport are
// made as the named operator (RootOperator for the command line), from ip,
// under requestID, to host (the console's own, which setup links start
// with; empty keeps the client's): the console sets it once it has checked
// a session. A request from the network cannot carry it.
func AsOperator(ctx context.Context, operator, ip, requestID, host string) context.Context {
	return context.WithValue(ctx, inProcessKey{}, inProcessCaller{operator: operator, ip: ip, requestID: requestID, host: host})
}

// inProcessCallerOf returns the in-process inProcessCaller of a request, if any.
func inProcessCallerOf(ctx context.Context) (inProcessCaller, bool) {
	c, ok := ctx.Value(inProcessKey{}).(inProcessCaller)
	return c, ok
}

// Transport makes admin API calls in process, without a network: the
// console and the command line call the admin API through it (with
// client.Admin), so that they act through the very same operations, role
// checks and action log. A call's context must come from AsOperator; the
// inProcessCaller's IP and request id reach the log and the action log.
type Transport struct {
	// Admin is the admin API's handler.
	Admin http.Handler
}

// RoundTrip serves req with the admin handler.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if c, ok := inProcessCallerOf(req.Context()); ok {
		if a, err := netip.ParseAddr(c.ip); err == nil {
			req.RemoteAddr = netip.AddrPortFrom(a, 0).String()
		}
		if c.requestID != "" {
			req.Header.Set(RequestIDHeader, c.requestID)
		}
		if c.host != "" {
			req.Host = c.host
		}
	}
	rec := httptest.NewRecorder()
	t.Admin.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
