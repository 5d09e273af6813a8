package console_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestHeaders: every console page has a Content-Security-Policy that
// allows no inline script, and no page has one; the sign-in form's cookie
// is HttpOnly, SameSite=Strict and scoped to /console/.
func TestHeaders(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	for _, path := range []string{"/console/login", "/console/setup/nothing-here", "/console/assets/console.css"} {
		resp, err := http.Get(h.Admin.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`).Match(body) {
			t.Errorf("%s has an inline script", path)
		}
		if path == "/console/login" {
			c := resp.Header.Get("Set-Cookie")
			if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Strict") || !strings.Contains(c, "Path=/console/") {
				t.Errorf("the sign-in cookie: %s", c)
			}
		}
	}
}
