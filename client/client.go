package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of a new Client.
const (
	DefaultRetries      = 4                      // retries after the first attempt
	DefaultBackoffBase  = 250 * time.Millisecond // first backoff, doubled per retry
	DefaultBackoffMax   = 10 * time.Second       // longest backoff
	DefaultPollInterval = 5 * time.Second        // WaitForOrder's interval
	DefaultUserAgent    = "topupd-client-go/1"   // the User-Agent header
	// DefaultTimeout bounds one HTTP attempt when no http.Client is given;
	// POST /orders may take about 10 s on the server before it answers.
	DefaultTimeout = 60 * time.Second
)

// Client calls one reseller API with one API key.
type Client struct {
	base        string // no trailing slash
	apiKey      string
	bearer      bool
	hc          *http.Client
	retries     int
	backoffBase time.Duration
	backoffMax  time.Duration
	poll        time.Duration
	userAgent   string
	sleep       func(ctx context.Context, d time.Duration) error
}

// Option configures a Client in New.
type Option func(*Client) error

// New returns a client of the reseller API at baseURL (for example
// "https://api.example.com" or "https://host/prefix") authenticating with apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[/prefix]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: base URL %q: no query or fragment allowed", baseURL)
	}
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" {
		return nil, errors.New("client: an API key is required")
	}
	c := &Client{
		base:        strings.TrimRight(u.String(), "/"),
		apiKey:      apiKey,
		hc:          &http.Client{Timeout: DefaultTimeout, CheckRedirect: noRedirects},
		retries:     DefaultRetries,
		backoffBase: DefaultBackoffBase,
		backoffMax:  DefaultBackoffMax,
		poll:        DefaultPollInterval,
		userAgent:   DefaultUserAgent,
		sleep:       Sleep,
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// WithHTTPClient sends the requests through hc instead of a default client
// with a 60 s timeout that follows no redirects (net/http would forward the
// X-API-Key header to another host; a 3xx is returned as an *Error instead).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return errors.New("client: WithHTTPClient: nil http.Client")
		}
		c.hc = hc
		return nil
	}
}

// WithBearer sends the key as "Authorization: Bearer <key>" instead of "X-API-Key: <key>".
func WithBearer() Option {
	return func(c *Client) error { c.bearer = true; return nil }
}

// WithRetries sets how many times a call is retried after its first attempt
// (0 disables retries).
func WithRetries(max int) Option {
	return func(c *Client) error {
		if max < 0 {
			return fmt.Errorf("client: WithRetries(%d): must not be negative", max)
		}
		c.retries = max
		return nil
	}
}

// WithBackoff sets the backoff used when an answer carries no Retry-After:
// about base before the first retry, doubling up to max, with jitter.
func WithBackoff(base, max time.Duration) Option {
	return func(c *Client) error {
		if base <= 0 || max < base {
			return fmt.Errorf("client: WithBackoff(%v, %v): want 0 < base <= max", base, max)
		}
		c.backoffBase, c.backoffMax = base, max
		return nil
	}
}

// WithPollInterval sets how often WaitForOrder asks for the order; the API
// recommends 3 to 10 seconds.
func WithPollInterval(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return fmt.Errorf("client: WithPollInterval(%v): must be positive", d)
		}
		c.poll = d
		return nil
	}
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option {
	return func(c *Client) error { c.userAgent = ua; return nil }
}

// WithSleep replaces how the client waits between retries and polls, for
// tests with a fake clock. sleep must return an error (ctx.Err()) if ctx
// ends first; the default also returns at once when ctx's deadline would
// pass during the wait.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) error {
		if sleep == nil {
			return errors.New("client: WithSleep: nil function")
		}
		c.sleep = sleep
		return nil
	}
}

// noRedirects makes an http.Client return 3xx answers as they are.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Sleep waits d or until ctx ends, as the client waits between retries
// and polls unless WithSleep replaces it. When ctx has a deadline that
// would pass during the wait, it returns at once with an error matching
// context.DeadlineExceeded instead of sleeping in vain.
func Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return fmt.Errorf("waiting %v would pass the deadline: %w", d, context.DeadlineExceeded)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
