package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// wrongSignIn sends one wrong sign-in as if forwarded for addr by a proxy,
// and returns its status: 401 when the guess was checked, 429 when refused.
func wrongSignIn(t *testing.T, h *topupdtest.T, name, addr string) int {
	t.Helper()
	token := formToken(t, h)
	form := url.Values{"csrf": {token}, "name": {name}, "password": {"wrong password"}, "code": {"123456"}}
	req, _ := http.NewRequest("POST", h.Admin.URL+"/console/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", addr)
	req.AddCookie(&http.Cookie{Name: "topupd_login", Value: token})
	resp, err := h.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestConsoleBehindProxy: behind a proxy in --trusted-proxies, the console
// counts failed sign-ins per address the proxy forwards, so one address
// that fails too often is refused while another is not; with no trusted
// proxy, X-Forwarded-For is not believed and every request is the peer's.
// The admin API's action log records the forwarded address too.
func TestConsoleBehindProxy(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{true, false} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			t.Parallel()
			var opts []topupdtest.Option
			if trusted {
				opts = append(opts, topupdtest.WithTrustedProxies("127.0.0.0/8"))
			}
			h := topupdtest.New(t, opts...)
			for i := range 25 { // past what one address may fail
				wrongSignIn(t, h, fmt.Sprintf("name-%d", i), "203.0.113.1")
			}
			if got := wrongSignIn(t, h, "name-a", "203.0.113.1"); got != http.StatusTooManyRequests {
				t.Errorf("the address that failed 25 times: %d, want 429", got)
			}
			got := wrongSignIn(t, h, "name-b", "203.0.113.2")
			if want := map[bool]int{true: http.StatusUnauthorized, false: http.StatusTooManyRequests}[trusted]; got != want {
				t.Errorf("another address: %d, want %d", got, want)
			}

			r, err := h.Call(h.Admin.URL, "POST", "/admin/accounts", topupdtest.Headers{"Authorization": "Bearer " + h.Token,
				"X-Forwarded-For": "198.51.100.9"}, map[string]any{"name": "shop"})
			if err != nil || r.Status != http.StatusCreated {
				t.Fatalf("create an account: %v %v", r, err)
			}
			actions := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action=account.create", nil).Body["actions"].([]any)
			ip := actions[0].(map[string]any)["ip"]
			if want := map[bool]string{true: "198.51.100.9", false: "127.0.0.1"}[trusted]; ip != want {
				t.Errorf("the action log's ip %v, want %s", ip, want)
			}
		})
	}
}
