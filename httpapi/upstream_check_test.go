package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestUpstreamCheck, on SQLite and PostgreSQL, against a real topupd as
// the upstream: a save asks it for our balance first and saves nothing
// unless it answers one (our key refused: UPSTREAM_KEY_REFUSED; no answer:
// UPSTREAM_UNREACHABLE), or saves it unchecked when told; a check reads
// the balance as it stands and keeps it, and a failed one is 502 and
// leaves the upstream failing; thresholds change within their rules and
// a save keeps them.
func TestUpstreamCheck(t *testing.T) {
	t.Parallel()
	b := topupdtest.New(t)
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		ours := b.NewAccount("42.5", nil) // each store's own account at B
		h.Logs.Secret(ours.Key, "our key at B")
		row := func(name string) map[string]any {
			for _, u := range h.AdminOK(http.StatusOK, "GET", "/admin/upstreams", nil).Body["upstreams"].([]any) {
				if m := u.(map[string]any); m["name"] == name {
					return m
				}
			}
			return nil
		}
		num := func(v any) string {
			if s, ok := v.(interface{ String() string }); ok {
				return s.String()
			}
			return "null"
		}
		saved := h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
		if saved.Str("state") != "ok" || num(saved.Body["balanceUsd"]) != "42.5" || saved.Str("balanceAt") == "" ||
			num(saved.Body["warnHours"]) != "24" || num(saved.Body["criticalHours"]) != "4" || saved.Body["alert"] != false {
			t.Errorf("a checked save: %s", saved)
		}
		for name, c := range map[string]struct {
			url, key, code, detail string
		}{
			"wrongkey": {b.API.URL, "tpd_" + strings.Repeat("x", 40), "UPSTREAM_KEY_REFUSED", "401"},
			"gone":     {downURL(), ours.Key, "UPSTREAM_UNREACHABLE", "refused"},
		} {
			r := h.AdminDo("PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": c.url, "apiKey": c.key})
			if r.Status != 400 || r.Str("code") != c.code || !strings.Contains(r.Str("detail"), c.detail) {
				t.Errorf("saving %s: %s; want 400 %s saying %q", name, r, c.code, c.detail)
			}
			if row(name) != nil {
				t.Errorf("%s was saved after a failed check", name)
			}
			unchecked := h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": c.url, "apiKey": c.key, "check": false})
			if unchecked.Str("state") != "unchecked" || unchecked.Body["balanceUsd"] != nil {
				t.Errorf("%s saved unchecked: %s", name, unchecked)
			}
		}

		support := h.NewOperator("sam", "support")
		b.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+ours.ID+"/credits", map[string]any{"amountUsd": 10, "reference": h.Trx()})
		checked := h.AdminAs(support, "POST", "/admin/upstreams/b/check", nil)
		if checked.Status != 200 || checked.Str("name") != "b" || num(checked.Body["balanceUsd"]) != "52.5" || checked.Str("state") != "ok" ||
			checked.Str("balanceAt") == "" {
			t.Errorf("a check: %s", checked)
		}
		if got := row("b"); num(got["balanceUsd"]) != "52.5" {
			t.Errorf("b's row after its check: %v", got)
		}
		for name, code := range map[string]string{"gone": "UPSTREAM_UNREACHABLE", "wrongkey": "UPSTREAM_REFUSED"} {
			if r := h.AdminAs(support, "POST", "/admin/upstreams/"+name+"/check", nil); r.Status != 502 || r.Str("code") != code || r.Body["retryable"] != true {
				t.Errorf("checking %s: %s; want 502 %s", name, r, code)
			}
			if got := row(name); got["state"] != "failing" || got["alert"] != true {
				t.Errorf("%s after a failed check: %v", name, got)
			}
		}
		viewer := h.NewOperator("vic", "viewer")
		if r := h.AdminAs(viewer, "POST", "/admin/upstreams/b/check", nil); r.Status != 403 {
			t.Errorf("a viewer's check: %s", r)
		}
		if r := h.AdminDo("POST", "/admin/upstreams/nobody/check", nil); r.Status != 404 {
			t.Errorf("checking an unknown upstream: %s", r)
		}

		if r := h.AdminOK(http.StatusOK, "PATCH", "/admin/upstreams/b", map[string]any{"warnHours": 12, "criticalHours": 2.5}); num(r.Body["warnHours"]) != "12" ||
			num(r.Body["criticalHours"]) != "2.5" {
			t.Errorf("new thresholds: %s", r)
		}
		for what, body := range map[string]map[string]any{
			"critical above warn": {"criticalHours": 13},
			"a zero threshold":    {"warnHours": 0},
			"an unknown field":    {"alertHours": 3},
		} {
			if r := h.AdminDo("PATCH", "/admin/upstreams/b", body); r.Status != 400 || r.Str("code") != "INVALID_BODY" {
				t.Errorf("%s: %s", what, r)
			}
		}
		if r := h.AdminAs(support, "PATCH", "/admin/upstreams/b", map[string]any{"warnHours": 48}); r.Status != 403 {
			t.Errorf("support's thresholds: %s", r)
		}
		again := h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": b.API.URL, "apiKey": ours.Key})
		if num(again.Body["warnHours"]) != "12" || num(again.Body["criticalHours"]) != "2.5" {
			t.Errorf("a save lost the thresholds: %s", again)
		}
		if acts := actionsOf(t, h, "?action=upstream.check"); len(acts) != 3 {
			t.Errorf("%d upstream.check entries, want 3: %v", len(acts), acts)
		}
		if acts := actionsOf(t, h, "?action=upstream.update"); len(acts) != 1 {
			t.Errorf("%d upstream.update entries, want 1: %v", len(acts), acts)
		}
	})
}
