package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestBelowCostCountsSuppliers: the below-cost guard takes a pack's cost
// to be the highest of its costUsd and its suppliers' costUsd, on every
// path that sets a price (the pack's own, a tier's listed price or markup,
// an account's own price) and when a supplier's cost is raised; each
// passes with allowBelowCost.
func TestBelowCostCountsSuppliers(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		pubg := "/admin/products/" + topupdtest.PIDPubg // 0.89, no costUsd
		dear := []any{map[string]any{"provider": "sim", "costUsd": usd("0.80")}, map[string]any{"provider": "manual", "costUsd": usd("1.00")}}

		// A supplier's cost above the price, the pack's costUsd unset or lower.
		wantCode(t, h.AdminDo("PATCH", pubg, map[string]any{"suppliers": dear}), 409, "BELOW_COST", "a supplier's cost above the price")
		wantCode(t, h.AdminDo("PATCH", pubg, map[string]any{"costUsd": usd("0.50"), "suppliers": dear}), 409, "BELOW_COST",
			"a supplier's cost above the price, costUsd below it")
		wantCode(t, h.AdminDo("PUT", "/admin/products/pubg-new", map[string]any{"slug": "pubg", "name": "New UC", "priceUsd": usd("0.95"),
			"status": "active", "suppliers": dear}), 400, "BELOW_COST", "a new pack priced below a supplier's cost")
		if r := h.AdminOK(http.StatusOK, "GET", "/admin/products", nil); packOf(r, topupdtest.PIDPubg)["suppliers"] != nil {
			t.Errorf("a refused edit changed the pack: %v", packOf(r, topupdtest.PIDPubg))
		}

		// Suppliers at or under the price pass; a price edit under the
		// dearest supplier, or a supplier's cost raised above the price, is refused.
		fair := []any{map[string]any{"provider": "sim", "costUsd": usd("0.60")}, map[string]any{"provider": "manual", "costUsd": usd("0.80")}}
		h.AdminOK(http.StatusOK, "PATCH", pubg, map[string]any{"costUsd": usd("0.50"), "suppliers": fair})
		wantCode(t, h.AdminDo("PATCH", pubg, map[string]any{"priceUsd": usd("0.79")}), 400, "BELOW_COST", "a price under a supplier's cost")
		h.AdminOK(http.StatusOK, "PATCH", pubg, map[string]any{"priceUsd": usd("0.80")})
		wantCode(t, h.AdminDo("PATCH", pubg, map[string]any{"suppliers": dear}), 409, "BELOW_COST", "a supplier's cost raised above the price")

		// Tiers and accounts' own prices are held to the dearest supplier too.
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDPubg: usd("0.70")}}),
			400, "BELOW_COST", "a tier price above costUsd, under a supplier's cost")
		// 0.50 + 10% = 0.55: above costUsd, below the 0.80 supplier.
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"markupPercent": usd("10")}),
			400, "BELOW_COST", "a markup on costUsd under a supplier's cost")
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", map[string]any{"markupPercent": usd("60")}) // 0.80
		a := h.NewAccount("10", nil)
		own := "/admin/accounts/" + a.ID + "/prices/" + topupdtest.PIDPubg
		wantCode(t, h.AdminDo("PUT", own, map[string]any{"priceUsd": usd("0.75")}), 400, "BELOW_COST", "an own price under a supplier's cost")
		h.AdminOK(http.StatusOK, "PUT", own, map[string]any{"priceUsd": usd("0.80")})

		// allowBelowCost lets each through.
		h.AdminOK(http.StatusOK, "PATCH", pubg, map[string]any{"suppliers": dear, "allowBelowCost": true})
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/silver", map[string]any{"prices": map[string]any{topupdtest.PIDPubg: usd("0.70")}, "allowBelowCost": true})
		h.AdminOK(http.StatusOK, "PUT", own, map[string]any{"priceUsd": usd("0.75"), "allowBelowCost": true})
		if got := catalogPrice(t, h, a, topupdtest.PIDPubg); got != "0.75" {
			t.Errorf("the account's own price: %s, want 0.75", got)
		}
	})
}

// packOf finds a pack in GET /admin/products.
func packOf(r topupdtest.Reply, pid string) map[string]any {
	list, _ := r.Body["products"].([]any)
	for _, p := range list {
		if p, _ := p.(map[string]any); p["pid"] == pid {
			return p
		}
	}
	return nil
}
