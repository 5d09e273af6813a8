package httpapi_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// countingStore counts the reseller API's key lookups and settings reads.
type countingStore struct {
	topupd.Store
	keys, settings *atomic.Int32
}

func (s countingStore) AccountByKey(ctx context.Context, h topupd.KeyHash) (topupd.Account, error) {
	s.keys.Add(1)
	return s.Store.AccountByKey(ctx, h)
}

func (s countingStore) Settings(ctx context.Context) (topupd.Settings, error) {
	s.settings.Add(1)
	return s.Store.Settings(ctx)
}

// TestAuthCache: the cache spares the lookups within its TTL, every admin
// change clears it at once (a ban, a revoked key, maintenance), and it
// reloads after the TTL.
func TestAuthCache(t *testing.T) {
	clock := newFakeClock()
	var keys, settings atomic.Int32
	h := newHarness(t, withClock(clock), withAuthCache(), withStore(func(s topupd.Store) topupd.Store {
		return countingStore{Store: s, keys: &keys, settings: &settings}
	}))
	h.loadCatalog()
	a := h.newAccount("10", nil)
	for range 5 {
		if r := h.do("GET", "/balance", a.key, nil); r.status != http.StatusOK {
			t.Fatalf("balance: %v", r)
		}
	}
	if keys.Load() != 1 || settings.Load() != 1 {
		t.Errorf("5 calls made %d key lookups and %d settings reads; want 1 and 1", keys.Load(), settings.Load())
	}
	clock.Advance(1500 * time.Millisecond)
	h.do("GET", "/balance", a.key, nil)
	if keys.Load() != 2 || settings.Load() != 2 {
		t.Errorf("after the TTL: %d key lookups, %d settings reads; want 2 and 2", keys.Load(), settings.Load())
	}

	h.patchAccount(a, map[string]any{"banned": true})
	if r := h.do("GET", "/balance", a.key, nil); r.status != http.StatusForbidden || r.str("code") != "ACCOUNT_BANNED" {
		t.Errorf("right after a ban: %v", r)
	}
	h.patchAccount(a, map[string]any{"banned": false})
	h.settings(map[string]any{"maintenance": true})
	if r := h.do("POST", "/orders", a.key, map[string]any{"pid": pidPubg, "trxid": "cache-1", "userId": "5123456"}); r.str("code") != "MAINTENANCE" {
		t.Errorf("right after maintenance was set: %v", r)
	}
	h.settings(map[string]any{"maintenance": false})
	h.adminOK(http.StatusOK, "DELETE", "/admin/keys/"+a.keyID, nil)
	if r := h.do("GET", "/balance", a.key, nil); r.status != http.StatusUnauthorized || r.str("code") != "INVALID_API_KEY" {
		t.Errorf("right after revoking the key: %v", r)
	}
}
