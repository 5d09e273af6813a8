package webhooks_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

var secretRe = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

// wantCode fails unless r is a failure with this status and code.
func wantCode(t *testing.T, what string, r topupdtest.Reply, status int, code string) {
	t.Helper()
	if r.Status != status || r.Str("code") != code || r.Body["success"] != false {
		t.Errorf("%s: got %v, want %d %s", what, r, status, code)
	}
}

// TestEndpointURLRules: without --webhook-allow-private, a URL that is not
// https, or whose host is or resolves to a loopback, private, link-local
// or unspecified address, is 400 WEBHOOK_URL_FORBIDDEN; any other bad URL
// or body is 400 INVALID_BODY; nothing is made.
func TestEndpointURLRules(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	a := h.NewAccount("", nil)
	path := "/admin/accounts/" + a.ID + "/webhooks"
	for _, u := range []string{"http://example.com/hook", "https://127.0.0.1/hook", "https://localhost:8443/hook", "https://10.1.2.3/",
		"https://192.168.0.1/", "https://172.16.5.5/", "https://169.254.169.254/latest", "https://0.0.0.0/", "https://[::1]/",
		"https://[fe80::1]/", "https://[::ffff:127.0.0.1]/", "https://[fd00::1]/"} {
		wantCode(t, u, h.AdminDo("POST", path, map[string]any{"url": u}), 400, "WEBHOOK_URL_FORBIDDEN")
	}
	for _, body := range []map[string]any{
		{"url": "ftp://example.com/"}, {"url": "https://user:pw@example.com/"}, {"url": "https://example.com/" + strings.Repeat("a", 2000)},
		{"url": "/relative"}, {"url": ""}, {}, {"url": 5}, {"url": "https://example.com/", "events": []string{"order.lost"}},
		{"url": "https://example.com/", "events": []string{"order.completed", "order.completed"}},
		{"url": "https://example.com/", "secret": "whsec_mine"}, {"url": "https://example.com/#frag"},
	} {
		wantCode(t, "body "+string(mustJSON(t, body)), h.AdminDo("POST", path, body), 400, "INVALID_BODY")
	}
	if r := h.AdminOK(http.StatusOK, "GET", path, nil); len(r.Body["webhooks"].([]any)) != 0 {
		t.Errorf("endpoints made: %s", r.Raw)
	}
	id, _ := endpoint(t, h, a.ID, "https://203.0.113.7/hook", nil)
	wantCode(t, "PATCH to loopback", h.AdminDo("PATCH", "/admin/webhooks/"+id, map[string]any{"url": "https://127.0.0.2/"}), 400, "WEBHOOK_URL_FORBIDDEN")
}

// TestEndpoints: an endpoint is made with its secret shown once, listed
// and read without it, patched, given a new secret, deleted; an account
// has at most 5 (409 WEBHOOK_LIMIT); unknown ones are 404; each change is
// in the action log with the endpoint's id as its target, the secret never.
func TestEndpoints(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t, topupdtest.WithWebhookReceivers(0))
	a := h.NewAccount("", nil)
	path := "/admin/accounts/" + a.ID + "/webhooks"
	r := h.AdminOK(http.StatusCreated, "POST", path, map[string]any{"url": "https://203.0.113.7/hook", "events": []string{"order.completed"},
		"description": "shop"})
	secret, id := r.Str("secret"), r.Str("id")
	h.Logs.Secret(secret, "a webhook secret")
	if !secretRe.MatchString(secret) || !strings.HasPrefix(id, "whe_") {
		t.Fatalf("made: %s", r.Raw)
	}
	want := map[string]any{"success": true, "id": id, "accountId": a.ID, "url": "https://203.0.113.7/hook", "events": []any{"order.completed"},
		"description": "shop", "enabled": true, "disabledReason": nil, "createdAt": r.Str("createdAt")}
	got := h.AdminOK(http.StatusOK, "GET", "/admin/webhooks/"+id, nil)
	if diff := cmp.Diff(want, got.Body); diff != "" {
		t.Errorf("GET (-want +got):\n%s", diff)
	}
	list := h.AdminOK(http.StatusOK, "GET", path, nil)
	delete(want, "success")
	if diff := cmp.Diff(map[string]any{"success": true, "webhooks": []any{want}}, list.Body); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	p := h.AdminOK(http.StatusOK, "PATCH", "/admin/webhooks/"+id, map[string]any{"enabled": false, "events": nil, "description": "",
		"url": "http://127.0.0.1:9/h"})
	if p.Body["enabled"] != false || len(p.Body["events"].([]any)) != 0 || p.Str("url") != "http://127.0.0.1:9/h" || p.Body["secret"] != nil {
		t.Errorf("patched: %s", p.Raw)
	}
	rot := h.AdminOK(http.StatusCreated, "POST", "/admin/webhooks/"+id+"/rotate-secret", nil)
	h.Logs.Secret(rot.Str("secret"), "a rotated webhook secret")
	if !secretRe.MatchString(rot.Str("secret")) || rot.Str("secret") == secret {
		t.Errorf("rotated: %s", rot.Raw)
	}
	for i := 0; i < 4; i++ {
		endpoint(t, h, a.ID, "https://203.0.113.7/more", nil)
	}
	wantCode(t, "a sixth", h.AdminDo("POST", path, map[string]any{"url": "https://203.0.113.7/six"}), 409, "WEBHOOK_LIMIT")
	h.AdminOK(http.StatusOK, "DELETE", "/admin/webhooks/"+id, nil)
	for _, c := range []struct{ method, path string }{{"GET", "/admin/webhooks/" + id}, {"DELETE", "/admin/webhooks/" + id},
		{"PATCH", "/admin/webhooks/whe_nope"}, {"POST", "/admin/webhooks/" + id + "/test"}, {"GET", "/admin/webhooks/" + id + "/deliveries"},
		{"GET", "/admin/accounts/acc_nope/webhooks"}} {
		var body any
		if c.method == "PATCH" {
			body = map[string]any{"enabled": true}
		}
		wantCode(t, c.method+" "+c.path, h.AdminDo(c.method, c.path, body), 404, "NOT_FOUND")
	}
	endpoint(t, h, a.ID, "https://203.0.113.7/again", nil) // room again

	acts := h.AdminOK(http.StatusOK, "GET", "/admin/actions?accountId="+a.ID, nil).Body["actions"].([]any)
	var seen []string
	for _, x := range acts {
		act := x.(map[string]any)
		if act["target"] == id {
			seen = append(seen, act["action"].(string))
		}
	}
	if diff := cmp.Diff([]string{"webhook.delete", "webhook.rotate-secret", "webhook.update", "webhook.create"}, seen); diff != "" {
		t.Errorf("the action log's entries of %s (-want +got):\n%s", id, diff)
	}
}
