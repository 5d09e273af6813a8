package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDeleteUpstream, on SQLite and PostgreSQL: an upstream a pack names,
// as its upstream or among its suppliers, or that a processing order is
// at, is 409 UPSTREAM_IN_USE naming the packs, and stays; a free one is
// removed, logged as upstream.delete, and gone from the list; an unknown
// one is 404; only an owner may.
func TestDeleteUpstream(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		for _, name := range []string{"single", "listed", "busy", "free"} {
			// Nothing listens on port 1: an order there stays processing.
			h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-" + name, "check": false})
		}
		h.PutPack("via-single", map[string]any{"slug": "pubg", "name": "60 UC, single", "priceUsd": topupdtest.USD("1.5"), "status": "active",
			"provider": "upstream", "upstream": "single", "upstreamPid": "x"})
		h.PutPack("via-list", map[string]any{"slug": "pubg", "name": "60 UC, listed", "priceUsd": topupdtest.USD("1.5"), "status": "active",
			"suppliers": []any{map[string]any{"provider": "sim"}, map[string]any{"provider": "upstream", "upstream": "listed", "upstreamPid": "y"}}})
		h.PutPack("via-busy", map[string]any{"slug": "pubg", "name": "60 UC, busy", "priceUsd": topupdtest.USD("1.5"), "status": "active",
			"provider": "upstream", "upstream": "busy", "upstreamPid": "z"})
		a := h.NewAccount("10", nil)
		if r := h.Place(a, map[string]any{"pid": "via-busy", "trxid": h.Trx(), "userId": "5551234"}); r.Str("status") != "processing" {
			t.Fatalf("an order at an upstream that does not answer: %s", r)
		}
		// The pack moves away; its order is still there.
		h.PutPack("via-busy", map[string]any{"slug": "pubg", "name": "60 UC, busy", "priceUsd": topupdtest.USD("1.5"), "status": "active"})
		support := h.NewOperator("sam", "support")
		if r := h.AdminAs(support, "DELETE", "/admin/upstreams/free", nil); r.Status != 403 || r.Str("code") != "ROLE_FORBIDDEN" {
			t.Errorf("support deleting: %s", r)
		}
		for name, names := range map[string]string{"single": "via-single", "listed": "via-list", "busy": "1 processing orders"} {
			r := h.AdminDo("DELETE", "/admin/upstreams/"+name, nil)
			if r.Status != 409 || r.Str("code") != "UPSTREAM_IN_USE" || !strings.Contains(r.Str("detail"), names) {
				t.Errorf("deleting %s: %s; want 409 UPSTREAM_IN_USE naming %s", name, r, names)
			}
		}
		if r := h.AdminDo("DELETE", "/admin/upstreams/nobody", nil); r.Status != 404 || r.Str("code") != "NOT_FOUND" {
			t.Errorf("deleting an unknown upstream: %s", r)
		}
		h.AdminOK(http.StatusOK, "DELETE", "/admin/upstreams/free", nil)
		if r := h.AdminDo("DELETE", "/admin/upstreams/free", nil); r.Status != 404 {
			t.Errorf("deleting it again: %s", r)
		}
		var listed []string
		for _, u := range h.AdminOK(http.StatusOK, "GET", "/admin/upstreams", nil).Body["upstreams"].([]any) {
			listed = append(listed, u.(map[string]any)["name"].(string))
		}
		if strings.Join(listed, ",") != "busy,listed,single" {
			t.Errorf("upstreams after the delete: %v", listed)
		}
		acts := actionsOf(t, h, "?action=upstream.delete")
		if len(acts) != 1 || acts[0]["target"] != "free" {
			t.Errorf("the action log: %v", acts)
		}
	})
}
