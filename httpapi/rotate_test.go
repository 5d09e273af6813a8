package httpapi_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestRotateKey: a rotation answers a new key (with the old key's label)
// and when the old one stops working, a day on; both work until then. A
// key of another account, or a revoked one, is 404; a viewer may not
// rotate; the action log has the rotation and never a key.
func TestRotateKey(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	a, b := h.NewAccount("10", nil), h.NewAccount("10", nil)
	r := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+a.ID+"/keys/"+a.KeyID+"/rotate", nil)
	key := r.Str("apiKey")
	h.Logs.Secret(key, "the rotated key")
	if at, err := time.Parse(time.RFC3339Nano, r.Str("oldKeyRevokedAt")); err != nil || !at.Equal(clock.Now().Add(24*time.Hour)) || r.Str("oldKeyId") != a.KeyID {
		t.Errorf("the rotation: %v", r)
	}
	for _, k := range []string{a.Key, key} {
		if got := h.Do("GET", "/balance", k, nil); got.Status != 200 {
			t.Errorf("a key during the overlap: %v", got)
		}
	}
	wantFailure(t, h.AdminDo("POST", "/admin/accounts/"+a.ID+"/keys/"+b.KeyID+"/rotate", nil), 404, "NOT_FOUND", "NOT FOUND")
	wantFailure(t, h.AdminAs(h.NewOperator("vic", "viewer"), "POST", "/admin/accounts/"+a.ID+"/keys/"+a.KeyID+"/rotate", nil), 403, "ROLE_FORBIDDEN", "ROLE FORBIDDEN")
	h.AdminOK(http.StatusOK, "DELETE", "/admin/keys/"+b.KeyID, nil)
	wantFailure(t, h.AdminDo("POST", "/admin/accounts/"+b.ID+"/keys/"+b.KeyID+"/rotate", nil), 404, "NOT_FOUND", "NOT FOUND")
	clock.Advance(24 * time.Hour)
	if got := h.Do("GET", "/balance", a.Key, nil); got.Status != 401 {
		t.Errorf("the old key a day on: %v", got)
	}
	acts, err := h.AdminClient.Actions(t.Context(), url.Values{"action": {"key.rotate"}})
	if err != nil || len(acts.Actions) != 1 || acts.Actions[0].Target != a.KeyID || acts.Actions[0].After["rotatedFrom"] != a.KeyID {
		t.Errorf("the action log: %+v %v", acts.Actions, err)
	}
}
