package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/topupdtest"
)

// TestDebugProfiles: the runtime profiles answer on the admin API with the
// admin token and not without it.
func TestDebugProfiles(t *testing.T) {
	h := topupdtest.New(t)
	get := h.AdminText
	for _, path := range []string{"/admin/debug/pprof/", "/admin/debug/pprof/goroutine?debug=1", "/admin/debug/pprof/cmdline"} {
		if status, body := get(path, ""); status != http.StatusUnauthorized || !strings.Contains(body, "UNAUTHORIZED") {
			t.Errorf("%s without the token: %d %s", path, status, body)
		}
		if status, _ := get(path, "wrong"); status != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d", path, status)
		}
	}
	if status, body := get("/admin/debug/pprof/", h.Token); status != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("index: %d %.200s", status, body)
	}
	if status, body := get("/admin/debug/pprof/goroutine?debug=1", h.Token); status != http.StatusOK || !strings.Contains(body, "goroutine profile") {
		t.Errorf("goroutine profile: %d %.200s", status, body)
	}
	if status, body := get("/admin/debug/pprof/profile?seconds=1", h.Token); status != http.StatusOK || len(body) == 0 {
		t.Errorf("CPU profile: %d, %d bytes", status, len(body))
	}
}
