package httpapi_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// countingStore counts the reseller API's key lookups and settings reads.
type countingStore struct {
	topupd.Store
	keys, settings *atomic.Int32
}

func (s countingStore) AccountByKey(ctx context.Context, h topupd.KeyHash, now time.Time) (topupd.Account, error) {
	s.keys.Add(1)
	return s.Store.AccountByKey(ctx, h, now)
}

func (s countingStore) Settings(ctx context.Context) (topupd.Settings, error) {
	s.settings.Add(1)
	return s.Store.Settings(ctx)
}

// TestAuthCache: the cache spares the lookups within its TTL, every admin
// change clears it at once (a ban, a revoked key, maintenance), and it
// reloads after the TTL.
func TestAuthCache(t *testing.T) {
	clock := topupdtest.NewClock()
	var keys, settings atomic.Int32
	h := topupdtest.New(t, topupdtest.WithClock(clock), topupdtest.WithAuthCache(), topupdtest.WithStore(func(s topupd.Store) topupd.Store {
		return countingStore{Store: s, keys: &keys, settings: &settings}
	}))
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	for range 5 {
		if r := h.Do("GET", "/balance", a.Key, nil); r.Status != http.StatusOK {
			t.Fatalf("balance: %v", r)
		}
	}
	if keys.Load() != 1 || settings.Load() != 1 {
		t.Errorf("5 calls made %d key lookups and %d settings reads; want 1 and 1", keys.Load(), settings.Load())
	}
	clock.Advance(1500 * time.Millisecond)
	h.Do("GET", "/balance", a.Key, nil)
	if keys.Load() != 2 || settings.Load() != 2 {
		t.Errorf("after the TTL: %d key lookups, %d settings reads; want 2 and 2", keys.Load(), settings.Load())
	}

	h.PatchAccount(a, map[string]any{"banned": true})
	if r := h.Do("GET", "/balance", a.Key, nil); r.Status != http.StatusForbidden || r.Str("code") != "ACCOUNT_BANNED" {
		t.Errorf("right after a ban: %v", r)
	}
	h.PatchAccount(a, map[string]any{"banned": false})
	h.Settings(map[string]any{"maintenance": true})
	if r := h.Do("POST", "/orders", a.Key, map[string]any{"pid": topupdtest.PIDPubg, "trxid": "cache-1", "userId": "5123456"}); r.Str("code") != "MAINTENANCE" {
		t.Errorf("right after maintenance was set: %v", r)
	}
	h.Settings(map[string]any{"maintenance": false})
	h.AdminOK(http.StatusOK, "DELETE", "/admin/keys/"+a.KeyID, nil)
	if r := h.Do("GET", "/balance", a.Key, nil); r.Status != http.StatusUnauthorized || r.Str("code") != "INVALID_API_KEY" {
		t.Errorf("right after revoking the key: %v", r)
	}
}

// TestAuthCacheDeafRemembersNothing: a node whose invalidations cannot
// reach it (its Redis does not answer) may miss another node's revocation,
// so its cache remembers nothing: every call looks its key up.
func TestAuthCacheDeafRemembersNothing(t *testing.T) {
	var keys, settings atomic.Int32
	h := topupdtest.New(t, topupdtest.WithAuthCache(), topupdtest.WithRedis("redis://127.0.0.1:1/0"),
		topupdtest.WithStore(func(s topupd.Store) topupd.Store { return countingStore{Store: s, keys: &keys, settings: &settings} }))
	a := h.NewAccount("10", nil) // each admin write waits out the TTL: nobody acknowledges
	for range 5 {
		if r := h.Do("GET", "/balance", a.Key, nil); r.Status != http.StatusOK {
			t.Fatalf("balance: %v", r)
		}
	}
	if keys.Load() != 5 || settings.Load() != 5 {
		t.Errorf("5 calls on a deaf node made %d key lookups and %d settings reads; want 5 and 5", keys.Load(), settings.Load())
	}
}
