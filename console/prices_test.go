package console_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestAccountPricesAndLimits: finance puts an account on a tier and sets
// its spending limits on the account's page; the page lists what the
// account pays and why, the reseller catalog shows the tier's price, and
// an order above the limit is refused. A bad amount changes nothing.
// Support sees the terms but has no form.
func TestAccountPricesAndLimits(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{topupdtest.PIDPubg: json.Number("0.85")}})
	a := b.h.NewAccount("20", nil)
	fin := b.setUp("fin", "finance")
	b.signIn(fin)
	b.open("/console/accounts/" + a.ID)
	b.fill(map[string]string{"#max-order": "two"})
	b.click("#save-terms")
	if got := b.text("#max-order-error"); !strings.Contains(got, "Most an order") {
		t.Errorf("a bad limit: %q", got)
	}
	b.open("/console/accounts/" + a.ID)
	b.eval(`document.querySelector("#tier").value = "gold"`)
	b.fill(map[string]string{"#max-order": "2", "#daily-limit": "100.5"})
	b.click("#save-terms")
	if got := b.text("#flash"); !strings.Contains(got, "saved") {
		t.Errorf("after saving the terms: %q", got)
	}
	acct := b.h.AdminOK(http.StatusOK, "GET", "/admin/accounts/"+a.ID, nil)
	if acct.Str("tier") != "gold" || acct.Num("maxOrderUsd") != "2" || acct.Num("dailyLimitUsd") != "100.5" {
		t.Errorf("the account after the form: %v", acct)
	}
	b.eval(`document.querySelector("#terms details").open = true`)
	if got := strings.Join(strings.Fields(b.text("#account-prices")), " "); !strings.Contains(got, topupdtest.PIDPubg+" 0.85 tier") {
		t.Errorf("what the account pays: %q", got)
	}
	if r := b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "trxid": b.h.Trx(), "userId": "5123"}); r.Num("amountUsd") != "0.85" {
		t.Errorf("an order on the tier: %v", r)
	}
	if r := b.h.Do("POST", "/orders", a.Key, map[string]any{"pid": topupdtest.PIDPubgBig, "trxid": b.h.Trx(), "userId": "5123"}); r.Str("error") != "SPEND LIMIT EXCEEDED" {
		t.Errorf("an order above the limit: %v", r)
	}

	s := b.also()
	sup := s.setUp("sup", "support")
	s.signIn(sup)
	s.open("/console/accounts/" + a.ID)
	if s.has("#save-terms") {
		t.Errorf("support has the terms form")
	}
	if got := s.text("#terms-text"); got != "Tier: gold. Most an order: 2.00. Most a day: 100.50." {
		t.Errorf("support sees %q", got)
	}
}

// TestPackCost: an owner sets a pack's cost in the pack form. A cost above
// the price is refused (BELOW_COST), naming the price, and changes
// nothing, unless the form allows a price below cost; emptying the field
// clears the cost.
func TestPackCost(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	own := b.setUp("own", "owner")
	b.signIn(own)
	page := "/console/catalog/packs/" + topupdtest.PIDPubg
	costOf := func() string {
		products, _ := b.h.AdminOK(http.StatusOK, "GET", "/admin/products", nil).Body["products"].([]any)
		for _, p := range products {
			if p := p.(map[string]any); p["pid"] == topupdtest.PIDPubg {
				if c, ok := p["costUsd"].(json.Number); ok {
					return string(c)
				}
				return ""
			}
		}
		t.Fatalf("no pack %s", topupdtest.PIDPubg)
		return ""
	}
	b.open(page)
	b.fill(map[string]string{"#cost": "0.90"})
	b.click("#save-pack")
	if got := b.text("#cost-error"); !strings.Contains(got, "the cost $0.90 is above a price the pack is sold at: its own price $0.89") {
		t.Errorf("a cost above the price: %q", got)
	}
	if got := costOf(); got != "" {
		t.Errorf("after the refusal the cost is %q", got)
	}
	b.open(page)
	b.fill(map[string]string{"#cost": "0.90"})
	b.eval(`document.querySelector("#allow-below-cost").checked = true`)
	b.click("#save-pack")
	if got := costOf(); got != "0.9" {
		t.Errorf("after allowing, the cost is %q", got)
	}
	b.open(page)
	if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector("#cost").value`)); err != nil || got != "0.90" {
		t.Errorf("the form shows the cost %q (%v)", got, err)
	}
	b.fill(map[string]string{"#cost": ""})
	b.click("#save-pack")
	if got := costOf(); got != "" {
		t.Errorf("after emptying the field, the cost is %q", got)
	}
}
