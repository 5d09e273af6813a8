package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// adminPrice is a pack's price as the admin API holds it.
func adminPrice(t *testing.T, h *topupdtest.T, pid string) string {
	t.Helper()
	return num(packOf(h.AdminOK(http.StatusOK, "GET", "/admin/products", nil), pid)["priceUsd"])
}

// TestPricingRules, on SQLite and PostgreSQL (back-office.md 4 (c)): a
// rule's refusals; saving one prices the packs it governs at once (the
// pid's rule over the line's over the unscoped one; a pack without a cost
// or pinned has none), a scope another rule has is 409 CONFLICT; a
// preview says what the rules, or rules as if saved, would price and
// changes nothing; a cost change applies the rule's price when lower or
// at most holdAbovePercent higher, and holds a bigger rise (price.held,
// GET /admin/pricing/held) until applied or discarded; a price set by
// hand stays until the cost changes; reprice applies a rise at once, and
// with it the cost guard lets the raise through; deleting a rule leaves
// prices; roles and the action log.
func TestPricingRules(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		ww, ff := "/admin/products/"+topupdtest.PIDWW, "/admin/products/"+topupdtest.PIDFF
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.5")})
		h.AdminOK(http.StatusOK, "PATCH", ff, map[string]any{"costUsd": usd("0.6")})
		for what, body := range map[string]map[string]any{
			"no markup":            {"scope": map[string]any{"line": "wutheringwaves"}},
			"a markup of 1001":     {"markupPercent": usd("1001")},
			"a negative markup":    {"markupPercent": usd("-1")},
			"both scopes":          {"markupPercent": usd("10"), "scope": map[string]any{"line": "wutheringwaves", "pid": topupdtest.PIDWW}},
			"an unknown line":      {"markupPercent": usd("10"), "scope": map[string]any{"line": "nope"}},
			"an unknown pack":      {"markupPercent": usd("10"), "scope": map[string]any{"pid": "nope"}},
			"a scope field":        {"markupPercent": usd("10"), "scope": map[string]any{"game": "x"}},
			"fixed of 3 decimals":  {"markupPercent": usd("10"), "fixedUsd": usd("0.005")},
			"a negative margin":    {"markupPercent": usd("10"), "minMarginUsd": usd("-0.01")},
			"a rounding of 0":      {"markupPercent": usd("10"), "roundToUsd": usd("0")},
			"an unknown field":     {"markupPercent": usd("10"), "markup": usd("10")},
			"a rounding of 0.005":  {"markupPercent": usd("10"), "roundToUsd": usd("0.005")},
			"a markup as a string": {"markupPercent": "10"},
		} {
			wantCode(t, h.AdminDo("PUT", "/admin/pricing-rules/r1", body), 400, "INVALID_BODY", what)
		}
		wantCode(t, h.AdminDo("PUT", "/admin/pricing-rules/bad%20name", map[string]any{"markupPercent": usd("10")}), 400, "INVALID_BODY", "a bad name")
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/pricing-rules", nil); len(r.Body["rules"].([]any)) != 0 {
			t.Fatalf("refused rules were stored: %v", r)
		}

		// The line's rule: 0.5 × 1.5 + 0.05 = 0.80 for ww-60 at once.
		line := h.AdminOK(http.StatusOK, "PUT", "/admin/pricing-rules/ww-line", map[string]any{"scope": map[string]any{"line": "wutheringwaves"},
			"markupPercent": usd("50"), "fixedUsd": usd("0.05"), "minMarginUsd": usd("0.10")})
		if num(line.Body["roundToUsd"]) != "0.01" || line.Body["scope"].(map[string]any)["line"] != "wutheringwaves" {
			t.Errorf("the rule as stored: %v", line)
		}
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "0.8" {
			t.Errorf("ww-60 under its line's rule: %s, want 0.8", got)
		}
		wantCode(t, h.AdminDo("PUT", "/admin/pricing-rules/ww-again", map[string]any{"scope": map[string]any{"line": "wutheringwaves"},
			"markupPercent": usd("5")}), 409, "CONFLICT", "a second rule for the line")
		// Every pack with a cost: ffmena-100 at 0.6 × 1.1 = 0.66; packs without a cost keep theirs.
		h.AdminOK(http.StatusOK, "PUT", "/admin/pricing-rules/all", map[string]any{"markupPercent": usd("10")})
		if ffp, wwp, mlbb := adminPrice(t, h, topupdtest.PIDFF), adminPrice(t, h, topupdtest.PIDWW), adminPrice(t, h, topupdtest.PIDMLBB); ffp != "0.66" ||
			wwp != "0.8" || mlbb != "1.45" {
			t.Errorf("under the unscoped rule: ff %s (want 0.66), ww %s (0.8: its line's rule wins), mlbb %s (1.45: no cost)", ffp, wwp, mlbb)
		}
		// The minimum margin: 0.6 + 0.25 = 0.85 > 0.66.
		h.AdminOK(http.StatusOK, "PUT", "/admin/pricing-rules/ff", map[string]any{"scope": map[string]any{"pid": topupdtest.PIDFF},
			"markupPercent": usd("10"), "minMarginUsd": usd("0.25")})
		if got := adminPrice(t, h, topupdtest.PIDFF); got != "0.85" {
			t.Errorf("ff under its pid's rule with a minimum margin: %s, want 0.85", got)
		}

		// A preview of the rules as they are: nothing to change. Of a rule as
		// if saved: ww-60 at 0.5 × 3 = 1.50, a rise of 87.5%: held.
		if r := h.AdminOK(http.StatusOK, "POST", "/admin/pricing/preview", map[string]any{}); len(r.Body["changes"].([]any)) != 0 {
			t.Errorf("a preview of the saved rules: %v", r)
		}
		r := h.AdminOK(http.StatusOK, "POST", "/admin/pricing/preview", map[string]any{"rules": []any{map[string]any{"name": "ww-line",
			"scope": map[string]any{"line": "wutheringwaves"}, "markupPercent": usd("200")}}})
		if got := r.Body["changes"].([]any); len(got) != 1 || got[0].(map[string]any)["pid"] != topupdtest.PIDWW ||
			num(got[0].(map[string]any)["newPriceUsd"]) != "1.5" || num(got[0].(map[string]any)["oldPriceUsd"]) != "0.8" || got[0].(map[string]any)["held"] != true {
			t.Errorf("a preview of a rule as if saved: %v", r)
		}
		wantCode(t, h.AdminDo("POST", "/admin/pricing/preview", map[string]any{"rules": []any{map[string]any{"markupPercent": usd("5")}}}), 400,
			"INVALID_BODY", "a previewed rule without its name")
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "0.8" {
			t.Errorf("a preview changed the price: %s", got)
		}

		// A cost change: a drop applies (0.45 × 1.5 + 0.05 = 0.73); a rise
		// of at most 10% applies (0.5: 0.80, +9.6%); a bigger rise is held.
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.45")})
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "0.73" {
			t.Errorf("after a cost drop: %s, want 0.73", got)
		}
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.5")})
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "0.8" {
			t.Errorf("after a small rise: %s, want 0.8", got)
		}
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.7")}) // 1.10: +37.5%
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "0.8" {
			t.Errorf("after a big rise: %s, want 0.8 (held)", got)
		}
		held := h.AdminOK(http.StatusOK, "GET", "/admin/pricing/held", nil).Body["held"].([]any)
		if len(held) != 1 || held[0].(map[string]any)["pid"] != topupdtest.PIDWW || num(held[0].(map[string]any)["newPriceUsd"]) != "1.1" ||
			num(held[0].(map[string]any)["oldPriceUsd"]) != "0.8" || num(held[0].(map[string]any)["costUsd"]) != "0.7" ||
			held[0].(map[string]any)["rule"] != "ww-line" {
			t.Errorf("the held prices: %v", held)
		}
		if _, text := h.AdminText("/metrics", h.MetricsToken); !strings.Contains(text, "\ntopupd_prices_held 1\n") {
			t.Errorf("the metric while a price is held: %s", grepLines(text, "topupd_prices_held"))
		}
		ev := operatorEvents(t, h, "?limit=20", func(r topupdtest.Reply) bool { return strings.Contains(string(r.Raw), `"price.held"`) })
		if !strings.Contains(string(ev.Raw), `"newPriceUsd":1.1`) {
			t.Errorf("the price.held event: %s", ev)
		}
		if got := catalogPrice(t, h, h.NewAccount("1", nil), topupdtest.PIDWW); got != "0.8" {
			t.Errorf("the catalog while a price is held: %s", got)
		}
		applied := h.AdminOK(http.StatusOK, "POST", "/admin/pricing/held/"+topupdtest.PIDWW+"/apply", nil)
		if num(applied.Body["priceUsd"]) != "1.1" || adminPrice(t, h, topupdtest.PIDWW) != "1.1" {
			t.Errorf("applying the held price: %v", applied)
		}
		wantCode(t, h.AdminDo("POST", "/admin/pricing/held/"+topupdtest.PIDWW+"/apply", nil), 404, "NOT_FOUND", "applying it again")
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.9")}) // 1.40: +27%: held
		h.AdminOK(http.StatusOK, "POST", "/admin/pricing/held/"+topupdtest.PIDWW+"/discard", nil)
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "1.1" {
			t.Errorf("after a discard: %s, want 1.1", got)
		}
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/pricing/held", nil); len(r.Body["held"].([]any)) != 0 {
			t.Errorf("held after a discard: %v", r)
		}
		wantCode(t, h.AdminDo("POST", "/admin/pricing/held/"+topupdtest.PIDWW+"/discard", nil), 404, "NOT_FOUND", "discarding it again")

		// A price set by hand stays until the cost changes; pinned, it stays then too.
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"priceUsd": usd("1.99")})
		h.AdminOK(http.StatusOK, "PUT", "/admin/pricing-rules/all", map[string]any{"markupPercent": usd("10")}) // not ww's rule
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "1.99" {
			t.Errorf("a hand price after another rule was saved: %s", got)
		}
		pinned := h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"pricePinned": true})
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.8")})
		if pinned.Body["pricePinned"] != true || adminPrice(t, h, topupdtest.PIDWW) != "1.99" {
			t.Errorf("a pinned pack after a cost change: %v, price %s", pinned, adminPrice(t, h, topupdtest.PIDWW))
		}
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"pricePinned": false, "costUsd": usd("0.9")}) // 1.40, a drop: applied
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "1.4" {
			t.Errorf("unpinned, after a cost change: %s, want 1.4", got)
		}

		// A raise above the price: the rise is held and the price undercut
		// (409); with reprice the rule's price applies at once and passes.
		r = h.AdminDo("PATCH", ww, map[string]any{"costUsd": usd("2")})
		if r.Status != 409 || r.Str("code") != "BELOW_COST" || !strings.Contains(strings.Join(undercutOf(r), " "), "pack::1.4") {
			t.Errorf("a raise above the price, held: %v", r)
		}
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/pricing/held", nil); len(r.Body["held"].([]any)) != 0 {
			t.Errorf("a refused raise left a held price: %v", r)
		}
		if r := h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("2"), "reprice": true}); num(r.Body["priceUsd"]) != "3.05" {
			t.Errorf("a raise with reprice: %v, want 3.05", r)
		}

		// Roles, deletion, the action log.
		fin, sup := h.NewOperator("fin", "finance"), h.NewOperator("sup", "support")
		if r := h.AdminAs(fin, "PUT", "/admin/pricing-rules/fin", map[string]any{"scope": map[string]any{"line": "valorant"}, "markupPercent": usd("5")}); r.Status != 200 {
			t.Errorf("finance puts a rule: %v", r)
		}
		wantCode(t, h.AdminAs(sup, "PUT", "/admin/pricing-rules/sup", map[string]any{"markupPercent": usd("5")}), 403, "ROLE_FORBIDDEN", "support puts a rule")
		wantCode(t, h.AdminAs(sup, "POST", "/admin/pricing/preview", map[string]any{}), 403, "ROLE_FORBIDDEN", "support previews")
		if r := h.AdminAs(sup, "GET", "/admin/pricing-rules", nil); r.Status != 200 || len(r.Body["rules"].([]any)) != 4 {
			t.Errorf("support reads the rules: %v", r)
		}
		h.AdminOK(http.StatusOK, "DELETE", "/admin/pricing-rules/ww-line", nil)
		wantCode(t, h.AdminDo("DELETE", "/admin/pricing-rules/ww-line", nil), 404, "NOT_FOUND", "deleting it again")
		if got := adminPrice(t, h, topupdtest.PIDWW); got != "3.05" {
			t.Errorf("after the rule was deleted: %s, want 3.05", got)
		}
		// The Go client reads the same.
		if rules, err := h.AdminClient.PricingRules(t.Context()); err != nil || len(rules) != 3 || rules[0].Name != "all" ||
			rules[1].Scope.PID != topupdtest.PIDFF || rules[1].MinMarginUSD.String() != "0.25" {
			t.Errorf("the client's rules: %+v, %v", rules, err)
		}
		err := h.AdminClient.Do(t.Context(), "PATCH", ww, map[string]any{"costUsd": usd("4")}, nil)
		if e, ok := client.AsError(err); !ok || e.StatusCode != 409 || len(e.Undercut) != 1 || e.Undercut[0].Kind != "pack" ||
			e.Undercut[0].PriceUSD.String() != "3.05" {
			t.Errorf("the client's refusal of a cost raise: %+v", err)
		}
		acts, err := h.AdminClient.Actions(t.Context(), url.Values{"limit": {"200"}})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, a := range acts.Actions {
			seen[a.Action]++
		}
		for action, n := range map[string]int{"pricing-rule.put": 5, "pricing-rule.delete": 1, "pricing.held-apply": 1, "pricing.held-discard": 1} {
			if seen[action] != n {
				t.Errorf("the action log has %d %s, want %d", seen[action], action, n)
			}
		}
	})
}
