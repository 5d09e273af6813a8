package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDebugProfiles: the runtime profiles answer on the admin API to the
// owner alone (root and a named owner): without a token they are 401, for
// every other role 403 ROLE_FORBIDDEN. The command line, which holds flags
// such as --telegram-token, is 404 for everyone.
func TestDebugProfiles(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		get := h.AdminText
		profiles := []string{"/admin/debug/pprof/", "/admin/debug/pprof/goroutine?debug=1", "/admin/debug/pprof/symbol", "/admin/debug/pprof/heap?debug=1"}
		for _, path := range profiles {
			if status, body := get(path, ""); status != http.StatusUnauthorized || !strings.Contains(body, "UNAUTHORIZED") {
				t.Errorf("%s without the token: %d %s", path, status, body)
			}
			if status, _ := get(path, "wrong"); status != http.StatusUnauthorized {
				t.Errorf("%s with a wrong token: %d", path, status)
			}
		}
		tokens := map[string]string{"root": h.Token}
		for _, role := range []string{"owner", "finance", "support", "viewer"} {
			tokens[role] = h.NewOperator("op-"+role, role)
		}
		for who, tok := range tokens {
			for _, path := range profiles {
				status, body := get(path, tok)
				if who == "root" || who == "owner" {
					if status != http.StatusOK {
						t.Errorf("%s, the owner: %s: %d %.200s", who, path, status, body)
					}
					continue
				}
				if status != http.StatusForbidden || !strings.Contains(body, `"ROLE_FORBIDDEN"`) {
					t.Errorf("%s: %s: %d %.200s, want 403 ROLE_FORBIDDEN", who, path, status, body)
				}
			}
			for _, path := range []string{"/admin/debug/pprof/cmdline", "/admin/debug/pprof/cmdline?debug=1"} {
				status, body := get(path, tok)
				if status != http.StatusNotFound || !strings.Contains(body, `"NOT_FOUND"`) {
					t.Errorf("%s: %s: %d %.200s, want 404 NOT_FOUND", who, path, status, body)
				}
				if strings.Contains(body, "topupd") || strings.Contains(body, ".test") {
					t.Errorf("%s: %s shows the command line: %.200s", who, path, body)
				}
			}
		}
		if status, body := get("/admin/debug/pprof/", h.Token); status != http.StatusOK || !strings.Contains(body, "goroutine") {
			t.Errorf("index: %d %.200s", status, body)
		}
		if status, body := get("/admin/debug/pprof/goroutine?debug=1", h.Token); status != http.StatusOK || !strings.Contains(body, "goroutine profile") {
			t.Errorf("goroutine profile: %d %.200s", status, body)
		}
		// Refused before the profile starts: no CPU profile runs here,
		// since the two stores' servers share one process.
		if status, body := get("/admin/debug/pprof/profile?seconds=1", tokens["viewer"]); status != http.StatusForbidden {
			t.Errorf("CPU profile for a viewer: %d, %.200s", status, body)
		}
	})
}

// TestDebugCPUProfile: the owner takes a CPU profile (one at a time per
// process, so it is a test of its own, not run on both stores at once).
func TestDebugCPUProfile(t *testing.T) {
	h := topupdtest.New(t)
	owner := h.NewOperator("op-owner", "owner")
	if status, body := h.AdminText("/admin/debug/pprof/profile?seconds=1", owner); status != http.StatusOK || len(body) == 0 {
		t.Errorf("CPU profile: %d, %d bytes", status, len(body))
	}
}
