// Package webhooks pushes an account's events to the HTTPS endpoints it
// registered (integration.md "Webhooks"): the outbox's consumer. A
// notifier of the event stream (Notifier) turns the stream's events into
// the account's webhook events and queues their deliveries in the same
// transaction; a Deliverer on every node claims due deliveries under a
// lease in the database, so that one node makes each attempt, signs and
// posts them (Standard Webhooks 1.0), records each attempt and schedules
// the next, and disables an endpoint that is gone or keeps failing.
package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/topupd/topupd"
)

// Guard holds endpoints to the URL rules: the form, https only, and no
// loopback, private, link-local or unspecified address, where the host is
// written, where it resolves at save, and where each delivery actually
// connects (so a name that resolves elsewhere later reaches nothing
// forbidden). AllowPrivate (--webhook-allow-private) lifts https-only and
// the address rules.
type Guard struct {
	AllowPrivate bool
	// Resolver looks hosts up at save; nil is net.DefaultResolver.
	Resolver *net.Resolver
}

// errForbidden is a connection refused by the guard.
var errForbidden = errors.New("webhook address forbidden")

// Check checks an endpoint URL as it is saved: 400 INVALID_BODY for its
// form, WEBHOOK_URL_FORBIDDEN for http or an address it is or resolves to.
func (g Guard) Check(ctx context.Context, raw string) error {
	u, err := topupd.CheckWebhookURL(raw, g.AllowPrivate)
	if err != nil || g.AllowPrivate {
		return err
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return forbidden(ip)
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return topupd.Errorf(topupd.EInvalidBody, "url: the host %s does not resolve", host)
	}
	for _, ip := range addrs {
		if err := forbidden(ip); err != nil {
			return err
		}
	}
	return nil
}

// forbidden refuses an address no endpoint may be at.
func forbidden(ip netip.Addr) error {
	if topupd.WebhookAddrForbidden(ip) {
		return topupd.Errorf(topupd.EWebhookURLForbidden, "url: %s is not a public address", ip.Unmap())
	}
	return nil
}

// control refuses a connection to a forbidden address, on the address
// about to be dialled: after the name was resolved, whatever it resolved to.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", errForbidden, address)
	}
	if topupd.WebhookAddrForbidden(ap.Addr()) {
		return fmt.Errorf("%w: %s", errForbidden, ap.Addr().Unmap())
	}
	return nil
}

// Client is the HTTP client deliveries are posted with: each connection
// checked by the guard, no proxy, no redirects followed (a 3xx is a
// failure), each attempt bounded by timeout.
func (g Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: timeout, Control: g.control}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext: d.DialContext, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second,
			TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
