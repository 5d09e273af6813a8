package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// usd is an exact JSON number for a body.
func usd(s string) json.Number { return json.Number(s) }

// catalogPrice is what GET /products shows the account for one pack.
func catalogPrice(t *testing.T, h *topupdtest.T, a topupdtest.Account, pid string) string {
	t.Helper()
	r := h.Do("GET", "/products", a.Key, nil)
	products, _ := r.Body["products"].([]any)
	for _, p := range products {
		p, _ := p.(map[string]any)
		if p["id"] == pid {
			return string(p["price"].(json.Number))
		}
	}
	t.Fatalf("no %s in the catalog: %v", pid, r)
	return ""
}

// wantCode fails unless a reply has the status and error code.
func wantCode(t *testing.T, r topupdtest.Reply, status int, code, doing string) {
	t.Helper()
	if r.Status != status || r.Str("code") != code {
		t.Errorf("%s: %v, want %d %s", doing, r, status, code)
	}
}

// TestPrices: tiers, markups rounded up, accounts' own prices, what each
// caller's catalog shows and what its orders charge, the below-cost guard
// on every path that sets a price, who may set prices, and the action log.
func TestPrices(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		pubg := "/admin/products/" + topupdtest.PIDPubg

		// A pack's own price below its cost.
		h.AdminOK(http.StatusOK, "PATCH", pubg, map[string]any{"costUsd": usd("0.70")})
		wantCode(t, h.AdminDo("PATCH", pubg, map[string]any{"priceUsd": usd("0.69")}), 400, "BELOW_COST", "a pack price below cost")
		wantCode(t, h.AdminDo("PATCH", pubg, map[string]any{"costUsd": usd("0.90")}), 409, "BELOW_COST", "a cost above the pack's price")
		h.AdminOK(http.StatusOK, "PATCH", pubg, map[string]any{"priceUsd": usd("0.69"), "allowBelowCost": true})
		if r := h.AdminOK(http.StatusOK, "PATCH", pubg, map[string]any{"priceUsd": usd("0.89")}); r.Num("costUsd") != "0.7" {
			t.Errorf("pack after edits: %v", r)
		}

		// Tiers.
		gold := map[string]any{"markupPercent": usd("10"), "roundToUsd": usd("0.05"), "prices": map[string]any{topupdtest.PIDFF: usd("0.90")}}
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDPubg: usd("0.65")}}),
			400, "BELOW_COST", "a tier price below cost")
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"markupPercent": usd("-5")}), 400, "BELOW_COST", "a negative markup")
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{"no-such-pack": usd("1")}}),
			400, "INVALID_BODY", "a tier price of no pack")
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"markupPercent": usd("10.00001")}), 400, "INVALID_BODY", "a markup past 4 decimals")
		wantCode(t, h.AdminDo("PUT", "/admin/tiers/gold", map[string]any{"markup": usd("10")}), 400, "INVALID_BODY", "an unknown field")
		if r := h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", gold); r.Num("markupPercent") != "10" || r.Num("roundToUsd") != "0.05" {
			t.Errorf("PUT tier: %v", r)
		}
		h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/cheap", map[string]any{"markupPercent": usd("-50"), "allowBelowCost": true})

		a, b, c := h.NewAccount("50", nil), h.NewAccount("50", nil), h.NewAccount("50", nil)
		wantCode(t, h.AdminDo("PATCH", "/admin/accounts/"+a.ID, map[string]any{"tier": "nope"}), 400, "INVALID_BODY", "an unknown tier")
		for _, acct := range []topupdtest.Account{a, c} {
			if r := h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+acct.ID, map[string]any{"tier": "gold"}); r.Str("tier") != "gold" {
				t.Errorf("PATCH tier: %v", r)
			}
		}
		own := "/admin/accounts/" + c.ID + "/prices/" + topupdtest.PIDPubg
		wantCode(t, h.AdminDo("PUT", own, map[string]any{"priceUsd": usd("0.5")}), 400, "BELOW_COST", "an own price below cost")
		wantCode(t, h.AdminDo("PUT", "/admin/accounts/"+c.ID+"/prices/no-such-pack", map[string]any{"priceUsd": usd("1")}), 404, "NOT_FOUND", "an own price of no pack")
		h.AdminOK(http.StatusOK, "PUT", own, map[string]any{"priceUsd": usd("0.75")})

		// 0.70 + 10% = 0.77, rounded up to 0.80; the tier's own 0.90; the
		// pack's price where the tier has neither; the account's own price.
		for _, want := range []struct {
			acct       topupdtest.Account
			pid, price string
		}{
			{a, topupdtest.PIDPubg, "0.8"}, {a, topupdtest.PIDFF, "0.9"}, {a, topupdtest.PIDPubgBig, "4.45"},
			{b, topupdtest.PIDPubg, "0.89"}, {b, topupdtest.PIDFF, "0.95"},
			{c, topupdtest.PIDPubg, "0.75"}, {c, topupdtest.PIDFF, "0.9"},
		} {
			if got := catalogPrice(t, h, want.acct, want.pid); got != want.price {
				t.Errorf("catalog of %s: %s at %s, want %s", want.acct.ID, want.pid, got, want.price)
			}
			r := h.Place(want.acct, order{"pid": want.pid, "trxid": h.Trx(), "userId": "51234567"})
			if r.Num("amountUsd") != want.price {
				t.Errorf("order of %s for %s charged %s, want %s: %v", want.acct.ID, want.pid, r.Num("amountUsd"), want.price, r)
			}
		}
		for acct, want := range map[topupdtest.Account]string{a: "43.85", b: "48.16", c: "48.35"} {
			if got := h.Balance(acct); got != want {
				t.Errorf("balance of %s = %s, want %s", acct.ID, got, want)
			}
		}
		prices := h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+c.ID+"/prices", nil)
		if !containsPrice(prices, topupdtest.PIDPubg, "0.75", "account") || !containsPrice(prices, topupdtest.PIDFF, "0.9", "tier") ||
			!containsPrice(prices, topupdtest.PIDPubgBig, "4.45", "pack") {
			t.Errorf("prices of c: %v", prices)
		}
		h.AdminOK(http.StatusOK, "DELETE", own, nil)
		wantCode(t, h.AdminDo("DELETE", own, nil), 404, "NOT_FOUND", "deleting a price twice")
		if got := catalogPrice(t, h, c, topupdtest.PIDPubg); got != "0.8" {
			t.Errorf("after deleting c's own price, c sees %s, want the tier's 0.8", got)
		}
		if r := h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+a.ID, map[string]any{"tier": nil}); r.Body["tier"] != nil {
			t.Errorf("PATCH tier null: %v", r)
		}
		if got := catalogPrice(t, h, a, topupdtest.PIDPubg); got != "0.89" {
			t.Errorf("off its tier, a sees %s, want 0.89", got)
		}
		tiers := h.AdminOK(http.StatusOK, "GET", "/admin/tiers", nil)
		list, _ := tiers.Body["tiers"].([]any)
		if len(list) != 2 || list[1].(map[string]any)["name"] != "gold" || list[1].(map[string]any)["accounts"] != json.Number("1") {
			t.Errorf("tiers: %v", tiers)
		}

		// Roles: finance sets prices; support and viewers do not.
		finance, support := h.NewOperator("fin", "finance"), h.NewOperator("sup", "support")
		if r := h.AdminAs(finance, "PUT", own, map[string]any{"priceUsd": usd("0.79")}); r.Status != 200 {
			t.Errorf("finance sets a price: %v", r)
		}
		wantCode(t, h.AdminAs(support, "PUT", own, map[string]any{"priceUsd": usd("0.8")}), 403, "ROLE_FORBIDDEN", "support sets a price")
		wantCode(t, h.AdminAs(support, "PUT", "/admin/tiers/x", map[string]any{}), 403, "ROLE_FORBIDDEN", "support puts a tier")
		wantCode(t, h.AdminAs(support, "PATCH", "/admin/accounts/"+b.ID, map[string]any{"tier": "gold"}), 403, "ROLE_FORBIDDEN", "support moves a tier")
		if r := h.AdminAs(support, "PATCH", "/admin/accounts/"+b.ID, map[string]any{"banned": false}); r.Status != 200 {
			t.Errorf("support patches a flag: %v", r)
		}
		if got := catalogPrice(t, h, b, topupdtest.PIDPubg); got != "0.89" {
			t.Errorf("after the refused PATCH, b sees %s", got)
		}

		// Every change is in the action log.
		for action, want := range map[string]int{"tier.put": 2, "price.set": 2, "price.delete": 1} {
			r := h.AdminOK(http.StatusOK, "GET", "/admin/actions?action="+action, nil)
			if got, _ := r.Body["actions"].([]any); len(got) != want {
				t.Errorf("%d %s actions, want %d: %v", len(got), action, want, r)
			}
		}
		h.AuditClean()
	})
}

// containsPrice reports whether GET /admin/accounts/{id}/prices lists a
// pack at a price from a source.
func containsPrice(r topupdtest.Reply, pid, price, source string) bool {
	list, _ := r.Body["prices"].([]any)
	for _, p := range list {
		p, _ := p.(map[string]any)
		if p["pid"] == pid && p["priceUsd"] == json.Number(price) && p["source"] == source {
			return true
		}
	}
	return false
}

// TestRacePriceEdit: an operator changes an account's own price for a pack
// again and again while orders for it and catalog reads run at once. Every
// order charges, and every catalog shows, a price that was in force at
// some moment between the request's start and its answer: never one set
// before the request that had already been replaced, never one set after
// it.
func TestRacePriceEdit(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("1000", nil)
		path := "/admin/accounts/" + a.ID + "/prices/" + topupdtest.PIDPubg
		const edits = 60
		// Price i is 1 + i cents: each price names its edit.
		priceOf := func(i int) string { return fmt.Sprintf("%d.%02d", 1+i/100, i%100) }
		type span struct{ start, end time.Time }
		setAt := make([]span, edits)
		setAt[0] = span{time.Time{}, time.Now()} // in force before anything starts
		h.AdminOK(http.StatusOK, "PUT", path, map[string]any{"priceUsd": usd(priceOf(0))})
		type seen struct {
			span
			price string
		}
		var mu sync.Mutex
		var orders, catalogs []seen
		done := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				for j := 0; ; j++ {
					select { // every worker makes one call at least, however the edits are scheduled
					case <-done:
						if j > 0 {
							return
						}
					default:
					}
					s := seen{span: span{start: time.Now()}}
					if w%2 == 0 {
						r, err := post(h, a, order{"pid": topupdtest.PIDPubg, "trxid": fmt.Sprintf("race-%d-%d", w, j), "userId": "5123"})
						if err != nil || r.Status != 200 {
							t.Errorf("order: %v %v", r, err)
							return
						}
						s.end, s.price = time.Now(), r.Num("amountUsd")
						mu.Lock()
						orders = append(orders, s)
						mu.Unlock()
					} else {
						r, err := h.Call(h.API.URL, "GET", "/products", topupdtest.Headers{"X-API-Key": a.Key}, nil)
						if err != nil || r.Status != 200 {
							t.Errorf("catalog: %v %v", r, err)
							return
						}
						s.end = time.Now()
						for _, p := range r.Body["products"].([]any) {
							if p := p.(map[string]any); p["id"] == topupdtest.PIDPubg {
								s.price = string(p["price"].(json.Number))
							}
						}
						mu.Lock()
						catalogs = append(catalogs, s)
						mu.Unlock()
					}
				}
			})
		}
		for i := 1; i < edits; i++ {
			start := time.Now()
			r, err := h.Call(h.Admin.URL, "PUT", path, topupdtest.Headers{"Authorization": "Bearer " + h.Token}, map[string]any{"priceUsd": usd(priceOf(i))})
			if err != nil || r.Status != 200 {
				t.Fatalf("edit %d: %v %v", i, r, err)
			}
			setAt[i] = span{start, time.Now()}
		}
		close(done)
		wg.Wait()
		index := map[string]int{}
		for i := range edits {
			index[strings.TrimRight(strings.TrimRight(priceOf(i), "0"), ".")] = i
		}
		// Price i may be seen by a request that ended after edit i started
		// and started before edit i+1 ended.
		check := func(what string, list []seen) {
			if len(list) == 0 {
				t.Errorf("no %s ran during the edits", what)
			}
			for _, s := range list {
				i, ok := index[s.price]
				switch {
				case !ok:
					t.Errorf("%s at %s: no edit set that price", what, s.price)
				case s.end.Before(setAt[i].start):
					t.Errorf("%s at %s answered before edit %d set it", what, s.price, i)
				case i+1 < edits && setAt[i+1].end.Before(s.start):
					t.Errorf("%s at %s started after edit %d had replaced it", what, s.price, i+1)
				}
			}
		}
		check("order", orders)
		check("catalog", catalogs)
		var charged client.Money
		for _, s := range orders {
			p, _ := client.ParseMoney(s.price)
			charged += p
		}
		want := client.USD(1000) - charged
		if got := h.Balance(a); got != want.String() {
			t.Errorf("balance %s, want 1000 less the %d charges shown, %s", got, len(orders), want)
		}
		h.AuditClean()
	})
}
