package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/racer"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestUpstreamDeposits, on SQLite and PostgreSQL: finance records money
// sent to a supplier once per reference (a repeat answers the first, 200,
// and logs nothing; eight at once record one); bad amounts and references
// change nothing; support may not; the list pages newest first and
// filters by day.
func TestUpstreamDeposits(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.AdminOK(http.StatusOK, "PUT", "/admin/upstreams/b", map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k", "check": false})
		fin, support := h.NewOperator("fin", "finance"), h.NewOperator("sam", "support")
		path := "/admin/upstreams/b/deposits"
		first := h.AdminAs(fin, "POST", path, map[string]any{"amountUsd": topupdtest.USD("250.5"), "reference": "TT-1", "at": "2026-12-01T10:00:00Z"})
		if first.Status != 201 || first.Str("id") == "" || first.Str("upstream") != "b" || first.Body["amountUsd"].(interface{ String() string }).String() != "250.5" ||
			first.Str("reference") != "TT-1" || first.Str("at") != "2026-12-01T10:00:00Z" || first.Str("operator") != "fin" {
			t.Fatalf("a deposit: %s", first)
		}
		again := h.AdminAs(fin, "POST", path, map[string]any{"amountUsd": topupdtest.USD("999"), "reference": "TT-1"})
		if again.Status != 200 || again.Str("id") != first.Str("id") || again.Body["amountUsd"].(interface{ String() string }).String() != "250.5" {
			t.Errorf("the reference again: %s; want 200 and the first", again)
		}
		for what, body := range map[string]map[string]any{
			"no amount":          {"reference": "X-1"},
			"a zero amount":      {"amountUsd": 0, "reference": "X-2"},
			"a negative amount":  {"amountUsd": -5, "reference": "X-3"},
			"three decimals":     {"amountUsd": topupdtest.USD("1.005"), "reference": "X-4"},
			"no reference":       {"amountUsd": 5},
			"a blank reference":  {"amountUsd": 5, "reference": "  "},
			"a long reference":   {"amountUsd": 5, "reference": strings.Repeat("r", 201)},
			"an unknown field":   {"amountUsd": 5, "reference": "X-5", "note": "?"},
			"a time that is not": {"amountUsd": 5, "reference": "X-6", "at": "yesterday"},
		} {
			if r := h.AdminAs(fin, "POST", path, body); r.Status != 400 || r.Str("code") != "INVALID_BODY" {
				t.Errorf("%s: %s; want 400 INVALID_BODY", what, r)
			}
		}
		if r := h.AdminAs(support, "POST", path, map[string]any{"amountUsd": 5, "reference": "S-1"}); r.Status != 403 || r.Str("code") != "ROLE_FORBIDDEN" {
			t.Errorf("support: %s", r)
		}
		if r := h.AdminAs(fin, "POST", "/admin/upstreams/nobody/deposits", map[string]any{"amountUsd": 5, "reference": "N-1"}); r.Status != 404 {
			t.Errorf("an unknown upstream: %s", r)
		}
		answers := racer.Run(8, func(int) topupdtest.Reply {
			return h.AdminAs(fin, "POST", path, map[string]any{"amountUsd": 7, "reference": "RACE", "at": "2026-12-02T08:00:00Z"})
		})
		created := 0
		for _, r := range answers {
			if r.Status == 201 {
				created++
			}
			if (r.Status != 201 && r.Status != 200) || r.Str("id") != answers[0].Str("id") {
				t.Errorf("one of eight at once: %s; want the one deposit", r)
			}
		}
		if created != 1 {
			t.Errorf("%d of eight at once were recorded, want 1", created)
		}
		h.AdminAs(fin, "POST", path, map[string]any{"amountUsd": 3, "reference": "TT-3", "at": "2026-12-03T09:00:00Z"})

		ids := func(r topupdtest.Reply) (out []string) {
			for _, d := range r.Body["deposits"].([]any) {
				out = append(out, d.(map[string]any)["reference"].(string))
			}
			return out
		}
		page := h.AdminOK(http.StatusOK, "GET", path+"?limit=2", nil)
		if got := strings.Join(ids(page), ","); got != "TT-3,RACE" || page.Str("nextCursor") == "" {
			t.Errorf("the first page: %v, next %v", got, page.Body["nextCursor"])
		}
		page = h.AdminOK(http.StatusOK, "GET", path+"?limit=2&cursor="+page.Str("nextCursor"), nil)
		if got := strings.Join(ids(page), ","); got != "TT-1" || page.Body["nextCursor"] != nil {
			t.Errorf("the second page: %v, next %v", got, page.Body["nextCursor"])
		}
		if got := strings.Join(ids(h.AdminOK(http.StatusOK, "GET", path+"?from=2026-12-02&to=2026-12-02", nil)), ","); got != "RACE" {
			t.Errorf("the deposits of 2026-12-02: %v", got)
		}
		for _, q := range []string{"?day=2026-12-01", "?from=yesterday", "?cursor=x:1.2", "?limit=0"} {
			if r := h.AdminDo("GET", path+q, nil); r.Status != 400 || r.Str("code") != "INVALID_REQUEST" {
				t.Errorf("GET %s: %s; want 400 INVALID_REQUEST", q, r)
			}
		}
		if r := h.AdminDo("GET", "/admin/upstreams/nobody/deposits", nil); r.Status != 404 {
			t.Errorf("the deposits of an unknown upstream: %s", r)
		}
		if acts := actionsOf(t, h, "?action=upstream.deposit"); len(acts) != 3 {
			t.Errorf("%d upstream.deposit entries, want 3 (repeats log nothing): %v", len(acts), acts)
		}
	})
}
