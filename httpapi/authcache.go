package httpapi

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topupd/topupd"
)

// maxCachedKeys bounds the cache; past it, the cache starts afresh.
const maxCachedKeys = 100_000

// AuthCache remembers for a short time which account each API key belongs
// to, and the settings, so that most calls cost one database round trip
// fewer. Every admin change clears it before its answer: on this node at
// once, and on every other node of a deployment through Invalidations
// (Follow). Unknown keys are never remembered, so a new key works at once.
type AuthCache struct {
	ttl time.Duration
	now func() time.Time

	inv     topupd.Invalidations // nil: a node on its own
	hearing atomic.Bool          // with inv: whether its word reaches this node; if not, nothing is remembered

	mu       sync.Mutex
	accounts map[topupd.KeyHash]cachedAccount
	settings topupd.Settings
	settAt   time.Time
	gen      uint64 // bumped by Invalidate, so a load racing it is not stored
}

type cachedAccount struct {
	account topupd.Account
	at      time.Time
}

// NewAuthCache returns a cache whose entries live for ttl.
func NewAuthCache(ttl time.Duration, now func() time.Time) *AuthCache {
	if now == nil {
		now = time.Now
	}
	return &AuthCache{ttl: ttl, now: now, accounts: map[topupd.KeyHash]cachedAccount{}}
}

// Follow makes the cache one node's of a deployment: Invalidate tells
// every node through inv, and this node forgets when told. Until inv's word
// reaches this node, and whenever it stops reaching it, nothing is
// remembered. It listens until ctx ends; call it before serving.
func (c *AuthCache) Follow(ctx context.Context, inv topupd.Invalidations) {
	c.inv = inv
	go inv.Listen(ctx, c.forget, c.hearing.Store)
}

// Invalidate forgets everything, on every node: it returns once each node
// has forgotten, or once the TTL has passed and with it everything any node
// remembered from before the call.
func (c *AuthCache) Invalidate(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.forget()
	if c.inv == nil {
		return nil
	}
	return c.inv.Announce(ctx, c.ttl)
}

// remembering says whether the cache may serve and keep entries now.
func (c *AuthCache) remembering() bool {
	return c != nil && (c.inv == nil || c.hearing.Load())
}

// forget drops everything this node remembers.
func (c *AuthCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts = map[topupd.KeyHash]cachedAccount{}
	c.settAt = time.Time{}
	c.gen++
}

// account returns the key's account, from the cache or from load.
func (c *AuthCache) account(ctx context.Context, h topupd.KeyHash, load func(context.Context, topupd.KeyHash) (topupd.Account, error)) (topupd.Account, error) {
	if !c.remembering() {
		return load(ctx, h)
	}
	now := c.now()
	c.mu.Lock()
	e, ok := c.accounts[h]
	gen := c.gen
	c.mu.Unlock()
	if ok && now.Sub(e.at) < c.ttl {
		return e.account, nil
	}
	a, err := load(ctx, h)
	if err != nil {
		return a, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.accounts) >= maxCachedKeys {
			c.accounts = map[topupd.KeyHash]cachedAccount{}
		}
		c.accounts[h] = cachedAccount{account: a, at: now}
	}
	c.mu.Unlock()
	return a, nil
}

// currentSettings returns the settings, from the cache or from load.
func (c *AuthCache) currentSettings(ctx context.Context, load func(context.Context) (topupd.Settings, error)) (topupd.Settings, error) {
	if !c.remembering() {
		return load(ctx)
	}
	now := c.now()
	c.mu.Lock()
	st, at, gen := c.settings, c.settAt, c.gen
	c.mu.Unlock()
	if !at.IsZero() && now.Sub(at) < c.ttl {
		return st, nil
	}
	st, err := load(ctx)
	if err != nil {
		return st, err
	}
	c.mu.Lock()
	if c.gen == gen {
		c.settings, c.settAt = st, now
	}
	c.mu.Unlock()
	return st, nil
}
