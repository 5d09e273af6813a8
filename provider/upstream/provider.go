package upstream

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// DefaultPollInterval is how soon a processing upstream order is asked about again.
const DefaultPollInterval = 5 * time.Second

// Source gives an upstream's base URL and our API key there (the store implements it).
type Source interface {
	Upstream(ctx context.Context, name string) (topupd.Upstream, error)
}

// Provider is the upstream supplier; it is safe for concurrent use.
type Provider struct {
	src  Source
	hc   *http.Client
	poll time.Duration
	now  func() time.Time
	// instance is this deployment's instance id (WithInstance); "" sends
	// no loop guard's headers.
	instance string
	// observer, when set, is told of every call (WithObserver).
	observer Observer

	mu      sync.Mutex
	clients map[string]cachedClient // by upstream name
}

// cachedClient is the client of one upstream, valid while its URL and key are unchanged.
type cachedClient struct {
	baseURL, apiKey string
	c               *client.Client
}

// Option configures a Provider in New.
type Option func(*Provider)

// WithHTTPClient sends the requests through hc (default: the client package's own).
func WithHTTPClient(hc *http.Client) Option { return func(p *Provider) { p.hc = hc } }

// WithPollInterval sets how soon a processing upstream order is asked about again.
func WithPollInterval(d time.Duration) Option {
	return func(p *Provider) {
		if d > 0 {
			p.poll = d
		}
	}
}

// WithNow sets the clock (default time.Now).
func WithNow(now func() time.Time) Option {
	return func(p *Provider) {
		if now != nil {
			p.now = now
		}
	}
}

// New returns an upstream provider that looks upstreams up in src.
func New(src Source, opts ...Option) *Provider {
	p := &Provider{src: src, poll: DefaultPollInterval, now: time.Now, clients: map[string]cachedClient{}}
	for _, o := range opts {
		o(p)
	}
	return p
}

// clientFor returns the client of the order's upstream, looked up afresh on
// every call so that a changed URL or rotated key takes effect at once.
func (p *Provider) clientFor(ctx context.Context, o *topupd.Order) (*client.Client, error) {
	return p.clientOf(ctx, &topupd.Supplier{Provider: o.Provider, Upstream: o.Upstream, UpstreamPID: o.UpstreamPID})
}

// clientOf is clientFor for a supplier of a pack.
func (p *Provider) clientOf(ctx context.Context, s *topupd.Supplier) (*client.Client, error) {
	if s.Upstream == "" || s.UpstreamPID == "" {
		return nil, needsOperator(s.Upstream, "no upstream or no upstream PID named", nil)
	}
	u, err := p.src.Upstream(ctx, s.Upstream)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("upstream %s: looking it up: %w", s.Upstream, err)
		}
		return nil, needsOperator(s.Upstream, "unknown or unreadable upstream", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if cc, ok := p.clients[s.Upstream]; ok && cc.baseURL == u.BaseURL && cc.apiKey == u.APIKey {
		return cc.c, nil
	}
	opts := []client.Option{
		// The engine retries with backoff itself: one quick retry here is enough.
		client.WithRetries(1),
		client.WithBackoff(200*time.Millisecond, 2*time.Second),
		client.WithUserAgent("topupd-upstream/1"),
	}
	switch {
	case p.instance != "":
		opts = append(opts, client.WithHTTPClient(observed(routed(p.hc, p.instance), s.Upstream, p.observer)))
	case p.hc != nil:
		opts = append(opts, client.WithHTTPClient(observed(p.hc, s.Upstream, p.observer)))
	case p.observer != nil:
		opts = append(opts, client.WithHTTPClient(observed(&http.Client{Timeout: client.DefaultTimeout}, s.Upstream, p.observer)))
	}
	c, err := client.New(u.BaseURL, u.APIKey, opts...)
	if err != nil {
		return nil, needsOperator(s.Upstream, "bad upstream settings", err)
	}
	p.clients[s.Upstream] = cachedClient{baseURL: u.BaseURL, apiKey: u.APIKey, c: c}
	return c, nil
}
