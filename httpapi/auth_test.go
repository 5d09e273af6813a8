package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestAuthentication checks every authentication failure of the spec, with
// its status, code and error, and that both header forms admit a good key.
func TestAuthentication(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	good := h.NewAccount("10", nil)
	revoked := h.NewAccount("10", nil)
	h.AdminOK(http.StatusOK, "DELETE", "/admin/keys/"+revoked.KeyID, nil)
	// A well-formed key nobody was ever given.
	unknown := "tpd_" + strings.Repeat("A", 43)

	tests := []struct {
		name string
		hdr  topupdtest.Headers
		want errorBody // Status 200: admitted
	}{
		{"no header", topupdtest.Headers{}, errorBody{401, "MISSING_API_KEY", "MISSING_API_KEY"}},
		{"empty X-API-Key", topupdtest.Headers{"X-API-Key": ""}, errorBody{401, "MISSING_API_KEY", "MISSING_API_KEY"}},
		{"malformed: no prefix", topupdtest.Headers{"X-API-Key": "hello"}, errorBody{401, "INVALID_API_KEY_FORMAT", "INVALID_API_KEY_FORMAT"}},
		{"malformed: short", topupdtest.Headers{"X-API-Key": "tpd_abc"}, errorBody{401, "INVALID_API_KEY_FORMAT", "INVALID_API_KEY_FORMAT"}},
		{"malformed: bad character", topupdtest.Headers{"X-API-Key": "tpd_" + strings.Repeat("A", 42) + "!"}, errorBody{401, "INVALID_API_KEY_FORMAT", "INVALID_API_KEY_FORMAT"}},
		{"malformed: wrong auth scheme", topupdtest.Headers{"Authorization": "Basic " + good.Key}, errorBody{401, "INVALID_API_KEY_FORMAT", "INVALID_API_KEY_FORMAT"}},
		{"unknown key", topupdtest.Headers{"X-API-Key": unknown}, errorBody{401, "INVALID_API_KEY", "INVALID_API_KEY"}},
		{"unknown key as bearer", topupdtest.Headers{"Authorization": "Bearer " + unknown}, errorBody{401, "INVALID_API_KEY", "INVALID_API_KEY"}},
		{"revoked key", topupdtest.Headers{"X-API-Key": revoked.Key}, errorBody{401, "INVALID_API_KEY", "INVALID_API_KEY"}},
		{"revoked key as bearer", topupdtest.Headers{"Authorization": "Bearer " + revoked.Key}, errorBody{401, "INVALID_API_KEY", "INVALID_API_KEY"}},
		{"X-API-Key", topupdtest.Headers{"X-API-Key": good.Key}, errorBody{Status: 200}},
		{"Authorization: Bearer", topupdtest.Headers{"Authorization": "Bearer " + good.Key}, errorBody{Status: 200}},
		{"Authorization: bearer (any case)", topupdtest.Headers{"Authorization": "bearer " + good.Key}, errorBody{Status: 200}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/balance", "/products"} {
				r := h.DoH("GET", path, tc.hdr, nil)
				if diff := cmp.Diff(tc.want, errorOf(r)); diff != "" {
					t.Errorf("GET %s (-want +got):\n%s\nbody: %s", path, diff, r.Raw)
				}
				if tc.want.Status != 200 && r.Body["success"] != false {
					t.Errorf("GET %s: success = %v, want false", path, r.Body["success"])
				}
			}
		})
	}

	// The revoked key's account is fine: only the key was revoked.
	fresh := h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+revoked.ID+"/keys", nil).Str("apiKey")
	if r := h.Do("GET", "/balance", fresh, nil); r.Status != 200 || r.Num("balanceUsd") != "10" {
		t.Errorf("a new key of the revoked key's account: %v", r)
	}
}

// TestAccountFlags checks each account flag alone, with its status, code
// and error, and that a key works again once the flag is lifted.
func TestAccountFlags(t *testing.T) {
	t.Parallel()
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name     string
		flags    map[string]any
		settings map[string]any
		want     errorBody
		lift     map[string]any // flags that admit the account again
	}{
		{"banned", map[string]any{"banned": true}, nil,
			errorBody{403, "ACCOUNT_BANNED", "ACCOUNT_BANNED"}, map[string]any{"banned": false}},
		{"adminDisabled", map[string]any{"adminDisabled": true}, nil,
			errorBody{403, "API_DISABLED_BY_ADMIN", "API_DISABLED_BY_ADMIN"}, map[string]any{"adminDisabled": false}},
		{"apiEnabled false", map[string]any{"apiEnabled": false}, nil,
			errorBody{403, "API_DISABLED", "API_DISABLED"}, map[string]any{"apiEnabled": true}},
		{"restricted until the future", map[string]any{"restrictedUntil": future}, nil,
			errorBody{403, "ACCOUNT_RESTRICTED", "ACCOUNT_RESTRICTED"}, map[string]any{"restrictedUntil": nil}},
		{"restricted until the past", map[string]any{"restrictedUntil": past}, nil,
			errorBody{Status: 200}, nil},
		{"not eligible", nil, map[string]any{"eligibilityMinTopupUsd": topupdtest.USD("10.0001")},
			errorBody{403, "API_NOT_ELIGIBLE", "API_NOT_ELIGIBLE"}, nil},
		{"eligible exactly", nil, map[string]any{"eligibilityMinTopupUsd": topupdtest.USD("10")},
			errorBody{Status: 200}, nil},
		{"allow-list required and empty", map[string]any{"ipAllowlistRequired": true}, nil,
			errorBody{403, "IP_ALLOWLIST_REQUIRED", "IP_ALLOWLIST_REQUIRED"}, map[string]any{"ipAllowlist": []string{"127.0.0.1"}}},
		{"allow-list required and matching", map[string]any{"ipAllowlistRequired": true, "ipAllowlist": []string{"127.0.0.0/8"}}, nil,
			errorBody{Status: 200}, nil},
		{"allow-list not matching", map[string]any{"ipAllowlist": []string{"203.0.113.9", "198.51.100.0/24"}}, nil,
			errorBody{403, "IP_NOT_ALLOWED", "IP_NOT_ALLOWED"}, map[string]any{"ipAllowlist": []string{"203.0.113.9", "127.0.0.1/32"}}},
		{"allow-list matching", map[string]any{"ipAllowlist": []string{"127.0.0.1"}}, nil,
			errorBody{Status: 200}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := topupdtest.New(t)
			h.LoadCatalog()
			a := h.NewAccount("10", tc.flags)
			if tc.settings != nil {
				h.Settings(tc.settings)
			}
			// Every route is guarded, POST /orders too; a refused order moves nothing.
			calls := []struct {
				method, path string
				body         any
			}{
				{"GET", "/services", nil}, {"GET", "/products", nil}, {"GET", "/catalog", nil}, {"GET", "/my-ip", nil},
				{"GET", "/balance", nil}, {"GET", "/history", nil}, {"GET", "/orders/ord_nope", nil},
				{"POST", "/orders", order{"pid": topupdtest.PIDPubg, "trxid": h.Trx(), "userId": "5123"}},
			}
			for _, c := range calls {
				r := h.Do(c.method, c.path, a.Key, c.body)
				got := errorOf(r)
				if tc.want.Status == 200 {
					if r.Status == 401 || r.Status == 403 {
						t.Errorf("%s %s: refused: %v", c.method, c.path, r)
					}
					continue
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s %s (-want +got):\n%s", c.method, c.path, diff)
				}
			}
			if tc.want.Status != 200 {
				h.PatchAccount(a, map[string]any{"banned": false, "adminDisabled": false, "apiEnabled": true, "restrictedUntil": nil, "ipAllowlistRequired": false, "ipAllowlist": []string{}})
				h.Settings(map[string]any{"eligibilityMinTopupUsd": 0})
				if got := h.Balance(a); got != "10" {
					t.Errorf("balance after refused order = %s, want 10", got)
				}
				if n := h.HistoryCount(a); n != 0 {
					t.Errorf("orders after refused order = %d, want 0", n)
				}
				if tc.lift != nil {
					// Put the flag back, then lift it the named way.
					h.PatchAccount(a, tc.flags)
					if tc.settings != nil {
						h.Settings(tc.settings)
					}
					h.PatchAccount(a, tc.lift)
					if r := h.Do("GET", "/balance", a.Key, nil); r.Status != 200 {
						t.Errorf("after lifting with %v: %v", tc.lift, r)
					}
				}
			}
		})
	}
}

// TestAccountFlagOrder sets several flags at once and checks that the one
// the operator contract lists first decides, dropping them one by one.
func TestAccountFlagOrder(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	// Every flag holds: eligibility needs 100 USD of credits, 10 were credited;
	// the allow-list (in the last step) does not list 127.0.0.1.
	a := h.NewAccount("10", map[string]any{
		"banned": true, "adminDisabled": true, "apiEnabled": false, "restrictedUntil": future,
		"ipAllowlistRequired": true,
	})
	h.Settings(map[string]any{"eligibilityMinTopupUsd": topupdtest.USD("100")})
	steps := []struct {
		want string
		lift map[string]any
	}{
		{"ACCOUNT_BANNED", map[string]any{"banned": false}},
		{"API_DISABLED_BY_ADMIN", map[string]any{"adminDisabled": false}},
		{"API_DISABLED", map[string]any{"apiEnabled": true}},
		{"ACCOUNT_RESTRICTED", map[string]any{"restrictedUntil": nil}},
		{"API_NOT_ELIGIBLE", nil}, // lifted by crediting
		{"IP_ALLOWLIST_REQUIRED", map[string]any{"ipAllowlist": []string{"192.0.2.1"}}},
		{"IP_NOT_ALLOWED", map[string]any{"ipAllowlist": []string{"192.0.2.1", "127.0.0.1"}}},
		{"", nil},
	}
	for _, s := range steps {
		r := h.Do("GET", "/balance", a.Key, nil)
		if s.want == "" {
			if r.Status != 200 {
				t.Fatalf("with every flag lifted: %v", r)
			}
			break
		}
		wantFailure(t, r, 403, s.want, s.want)
		if s.lift != nil {
			h.PatchAccount(a, s.lift)
		} else {
			h.Credit(a, "90")
		}
	}
}

// TestInvalidJSON: a malformed POST /orders body is 401 INVALID JSON with no code.
func TestInvalidJSON(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	h.LoadCatalog()
	a := h.NewAccount("10", nil)
	for _, body := range []string{`{`, `{"pid": "pubg-60",}`, `not json`, ``, `{"pid":"pubg-60"} trailing`, `{"a":1}{"b":2}`} {
		before := h.Snapshot(a)
		r := h.Do("POST", "/orders", a.Key, topupdtest.RawBody(body))
		if diff := cmp.Diff(errorBody{Status: 401, Error: "INVALID JSON"}, errorOf(r)); diff != "" {
			t.Errorf("body %q (-want +got):\n%s", body, diff)
		}
		if r.Has("code") {
			t.Errorf("body %q: answer carries a code: %s", body, r.Raw)
		}
		if r.Body["success"] != false {
			t.Errorf("body %q: success = %v", body, r.Body["success"])
		}
		if diff := cmp.Diff(before, h.Snapshot(a)); diff != "" {
			t.Errorf("body %q changed the account (-before +after):\n%s", body, diff)
		}
	}
}
