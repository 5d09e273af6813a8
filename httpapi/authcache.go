package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/topupd/topupd"
)

// maxCachedKeys bounds the cache; past it, the cache starts afresh.
const maxCachedKeys = 100_000

// AuthCache remembers for a short time which account each API key belongs
// to, and the settings, so that most calls cost one database round trip
// fewer. Every admin change made on this node clears it at once; changes
// made on another node are seen within the TTL. Unknown keys are never
// remembered, so a new key works at once.
type AuthCache struct {
	ttl time.Duration
	now func() time.Time

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

// Invalidate forgets everything.
func (c *AuthCache) Invalidate() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts = map[topupd.KeyHash]cachedAccount{}
	c.settAt = time.Time{}
	c.gen++
}

// account returns the key's account, from the cache or from load.
func (c *AuthCache) account(ctx context.Context, h topupd.KeyHash, load func(context.Context, topupd.KeyHash) (topupd.Account, error)) (topupd.Account, error) {
	if c == nil {
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
	if c == nil {
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
