package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// undercutOf reads a refusal's undercut list as kind:name-or-account:price.
func undercutOf(r topupdtest.Reply) []string {
	list, _ := r.Body["undercut"].([]any)
	var out []string
	for _, u := range list {
		u := u.(map[string]any)
		who := ""
		if n, ok := u["name"].(string); ok {
			who = n
		}
		if a, ok := u["accountId"].(string); ok {
			who = a
		}
		out = append(out, u["kind"].(string)+":"+who+":"+num(u["priceUsd"]))
	}
	return out
}

// TestWholeCents, on SQLite and PostgreSQL (back-office.md 4 (a)): a
// pack's, a tier's and an account's own price with more than 2 decimals,
// and a tier's roundToUsd of 0 or a fraction of a cent, are 400
// INVALID_BODY naming the field and change nothing; a tier's markup and
// discount round up to the cent by default (roundToUsd 0.01 shown), so
// the catalog and the charge are whole cents.
func TestWholeCents(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		pubg := "/admin/products/" + topupdtest.PIDPubg
		a := h.NewAccount("10", nil)
		own := "/admin/accounts/" + a.ID + "/prices/" + topupdtest.PIDPubg
		for what, c := range map[string]struct {
			method, path string
			body         map[string]any
			field        string
		}{
			"a pack price of 3 decimals":  {"PATCH", pubg, map[string]any{"priceUsd": usd("0.895")}, "priceUsd"},
			"a new pack of 4 decimals":    {"PUT", "/admin/products/pubg-x", map[string]any{"slug": "pubg", "name": "X", "priceUsd": usd("1.0001"), "status": "active"}, "priceUsd"},
			"a tier price of 3 decimals":  {"PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDPubg: usd("0.891")}}, "prices." + topupdtest.PIDPubg},
			"a tier rounding of 0.005":    {"PUT", "/admin/tiers/gold", map[string]any{"markupPercent": usd("10"), "roundToUsd": usd("0.005")}, "roundToUsd"},
			"a tier rounding of 0":        {"PUT", "/admin/tiers/gold", map[string]any{"markupPercent": usd("10"), "roundToUsd": usd("0")}, "roundToUsd"},
			"an own price of 3 decimals":  {"PUT", own, map[string]any{"priceUsd": usd("0.999")}, "priceUsd"},
			"a rounding of 1.005 dollars": {"PUT", "/admin/tiers/gold", map[string]any{"percentOffList": usd("5"), "roundToUsd": usd("1.005")}, "roundToUsd"},
		} {
			r := h.AdminDo(c.method, c.path, c.body)
			if r.Status != 400 || r.Str("code") != "INVALID_BODY" || !strings.Contains(r.Str("detail"), c.field) {
				t.Errorf("%s: %v, want 400 INVALID_BODY naming %s", what, r, c.field)
			}
		}
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/tiers", nil); len(r.Body["tiers"].([]any)) != 0 {
			t.Errorf("a refused tier was stored: %v", r)
		}
		if got := catalogPrice(t, h, a, topupdtest.PIDPubg); got != "0.89" {
			t.Errorf("the pack's price after refused edits: %s", got)
		}

		// A markup of 7% on 0.50 is 0.535: 0.54 by default; 5% off 0.95 is
		// 0.9025: 0.91. Both tiers show roundToUsd 0.01.
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDWW, map[string]any{"costUsd": usd("0.5")})
		silver := h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/silver", map[string]any{"markupPercent": usd("7")})
		off := h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/off", map[string]any{"percentOffList": usd("5")})
		if num(silver.Body["roundToUsd"]) != "0.01" || num(off.Body["roundToUsd"]) != "0.01" || num(off.Body["percentOffList"]) != "5" ||
			off.Body["markupPercent"] != nil {
			t.Errorf("the tiers as stored: %v %v", silver, off)
		}
		s, d := h.NewAccount("10", map[string]any{"tier": "silver"}), h.NewAccount("10", map[string]any{"tier": "off"})
		for _, c := range []struct {
			acct      topupdtest.Account
			pid, want string
		}{{s, topupdtest.PIDWW, "0.54"}, {d, topupdtest.PIDFF, "0.91"}, {d, topupdtest.PIDWW, "0.91"}} {
			if got := catalogPrice(t, h, c.acct, c.pid); got != c.want {
				t.Errorf("%s's catalog price of %s: %s, want %s", c.acct.ID, c.pid, got, c.want)
			}
			body := map[string]any{"pid": c.pid, "trxid": h.Trx(), "userId": "123456789"}
			if c.pid == topupdtest.PIDWW {
				body["serverId"] = "europe"
			}
			if o := h.Place(c.acct, body); num(o.Body["amountUsd"]) != c.want {
				t.Errorf("%s's order of %s charged %v, want %s", c.acct.ID, c.pid, o, c.want)
			}
		}
		prices := h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+d.ID+"/prices", nil)
		for _, p := range prices.Body["prices"].([]any) {
			if p := p.(map[string]any); p["pid"] == topupdtest.PIDFF && (p["source"] != "discount" || num(p["priceUsd"]) != "0.91") {
				t.Errorf("a discounted price in the account's prices: %v", p)
			}
		}
	})
}

// TestCostRaiseGuard, on SQLite and PostgreSQL (back-office.md 4 (b)): a
// PATCH or PUT that raises a pack's cost (its costUsd or a supplier's)
// above any price it is sold at (its own, a tier's listed, marked-up or
// discounted price, an account's own) is 409 BELOW_COST listing each, and
// changes nothing; with allowBelowCost it is saved and the prices stay; a
// raise that undercuts nothing passes; setting a price below the cost
// stays 400; a tier and an own price are checked against the cost as it
// stands.
func TestCostRaiseGuard(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		ww := "/admin/products/" + topupdtest.PIDWW // 0.95
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.5")})
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDWW: usd("0.80")}})
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/markup", map[string]any{"markupPercent": usd("20")}) // 0.60
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/off", map[string]any{"percentOffList": usd("20")})   // 0.76
		a := h.NewAccount("10", nil)
		h.AdminOK(http.StatusOK, "PUT", "/admin/accounts/"+a.ID+"/prices/"+topupdtest.PIDWW, map[string]any{"priceUsd": usd("0.70")})

		// 0.65: every price stays above it (the markup tier's follows the
		// pack's costUsd: 0.78).
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.65")})
		// 0.79: above the own price (0.70) and the discount (0.76).
		r := h.AdminDo("PATCH", ww, map[string]any{"costUsd": usd("0.79")})
		want := []string{"tier:off:0.76", "account:" + a.ID + ":0.7"}
		if r.Status != 409 || r.Str("code") != "BELOW_COST" || !cmp.Equal(undercutOf(r), want) {
			t.Errorf("a cost raised above two prices: %v; want 409 BELOW_COST undercutting %v", r, want)
		}
		// A supplier's cost raised to 1.00: above every price, the pack's own
		// too, and the markup tier's on the pack's costUsd.
		sup := []any{map[string]any{"provider": "sim", "costUsd": usd("1.00")}}
		r = h.AdminDo("PATCH", ww, map[string]any{"suppliers": sup})
		want = []string{"pack::0.95", "tier:gold:0.8", "tier:markup:0.78", "tier:off:0.76", "account:" + a.ID + ":0.7"}
		if r.Status != 409 || !cmp.Equal(undercutOf(r), want) {
			t.Errorf("a supplier's cost raised above every price: %v; want 409 undercutting %v", r, want)
		}
		// A PUT keeping the price and raising the cost: the same.
		r = h.AdminDo("PUT", ww, map[string]any{"slug": "wutheringwaves", "name": "60 Lunite", "priceUsd": usd("0.95"), "status": "active",
			"costUsd": usd("0.90")})
		want = []string{"tier:gold:0.8", "tier:off:0.76", "account:" + a.ID + ":0.7"}
		if r.Status != 409 || !cmp.Equal(undercutOf(r), want) {
			t.Errorf("a PUT raising the cost: %v; want 409 undercutting %v", r, want)
		}
		if p := packOf(h.AdminOK(http.StatusOK, "GET", "/admin/products", nil), topupdtest.PIDWW); num(p["costUsd"]) != "0.65" || p["suppliers"] != nil {
			t.Errorf("refused raises changed the pack: %v", p)
		}
		// Setting a price below the cost stays 400.
		wantCode(t, h.AdminDo("PATCH", ww, map[string]any{"priceUsd": usd("0.60")}), 400, "BELOW_COST", "a price set below the cost")
		wantCode(t, h.AdminDo("PATCH", ww, map[string]any{"priceUsd": usd("0.60"), "costUsd": usd("0.50")}), 200, "", "a price and a lower cost")

		// With allowBelowCost the raise is saved and the prices stay.
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"priceUsd": usd("0.95"), "costUsd": usd("0.65")})
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"costUsd": usd("0.79"), "allowBelowCost": true})
		if got := catalogPrice(t, h, a, topupdtest.PIDWW); got != "0.7" {
			t.Errorf("the own price after a raise allowed below it: %s", got)
		}
		// The cost as it stands guards new prices.
		wantCode(t, h.AdminDo("PUT", "/admin/accounts/"+a.ID+"/prices/"+topupdtest.PIDWW, map[string]any{"priceUsd": usd("0.75")}),
			400, "BELOW_COST", "an own price below the raised cost")
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/off", map[string]any{"percentOffList": usd("20")}), 400, "BELOW_COST",
			"a discount below the raised cost")
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/both", map[string]any{"percentOffList": usd("20"), "markupPercent": usd("5")}), 400,
			"INVALID_BODY", "a markup and a discount")
		// A price kept below the cost: naming it again is checked, an edit
		// of something else is not.
		h.AdminOK(http.StatusOK, "PATCH", ww, map[string]any{"priceUsd": usd("0.70"), "allowBelowCost": true})
		wantCode(t, h.AdminDo("PATCH", ww, map[string]any{"priceUsd": usd("0.70")}), 400, "BELOW_COST", "the same price below cost, named again")
		wantCode(t, h.AdminDo("PATCH", ww, map[string]any{"name": "60 Lunite!"}), 200, "", "a name edit of a pack priced below cost")
		for _, off := range []string{"0", "100", "-1"} {
			wantCode(t, h.AdminDo("PUT", "/admin/tiers/x", map[string]any{"percentOffList": usd(off)}), 400, "INVALID_BODY", "percentOffList "+off)
		}
	})
}
