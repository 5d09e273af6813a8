package console_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// packNow is one pack as the admin API holds it.
func packNow(t *testing.T, h *topupdtest.T, pid string) map[string]any {
	t.Helper()
	products, _ := h.AdminOK(http.StatusOK, "GET", "/admin/products", nil).Body["products"].([]any)
	for _, p := range products {
		if p := p.(map[string]any); p["pid"] == pid {
			return p
		}
	}
	t.Fatalf("no pack %s", pid)
	return nil
}

// numOf is a JSON number of a reply as written, "" when absent.
func numOf(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return ""
}

// priceNow and costNow are a pack's price and cost as the admin API
// writes them ("0.8").
func priceNow(t *testing.T, h *topupdtest.T, pid string) string {
	return numOf(packNow(t, h, pid)["priceUsd"])
}

func costNow(t *testing.T, h *topupdtest.T, pid string) string {
	return numOf(packNow(t, h, pid)["costUsd"])
}

// ruleNames are the pricing rules the admin API holds, by name.
func ruleNames(t *testing.T, h *topupdtest.T) []string {
	t.Helper()
	var out []string
	for _, r := range h.AdminOK(http.StatusOK, "GET", "/admin/pricing-rules", nil).Body["rules"].([]any) {
		out = append(out, r.(map[string]any)["name"].(string))
	}
	return out
}

// wantIn fails the test unless got holds each of want.
func wantIn(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q, want %q in it", what, got, w)
		}
	}
}

// TestPricingPage (back-office.md 4 (c), (e)): finance previews a rule on
// Catalog → Pricing (the packs whose price would change, old → new,
// nothing saved yet), then saves it from the preview and the price
// changes; a bad markup and a scope another rule has are refused beside
// their fields, keeping what was typed; a preview of a big rise marks it
// held. Cost changes hold two rises: one is applied (asked first, saying
// "higher"), the other discarded (the price stays). A rule is deleted
// after a question, prices staying. A scheduled price change is listed
// and deleted. A viewer sees the page without a form, and a forged save
// is refused.
func TestPricingPage(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.LoadCatalog()
	ww, ff := topupdtest.PIDWW, topupdtest.PIDFF // both 0.95
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+ww, map[string]any{"costUsd": topupdtest.USD("0.5")})
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+ff, map[string]any{"costUsd": topupdtest.USD("0.6")})
	b.signIn(b.setUp("fin", "finance"))

	t.Run("preview then save", func(t *testing.T) {
		b.t = t
		b.open("/console/catalog")
		b.click("#pricing-link")
		if got := b.text("#rules"); !strings.Contains(got, "No rules") {
			t.Errorf("the rules before any: %q", got)
		}
		b.fill(map[string]string{"#rule-name": "ww-line", "#rule-scope": "line:wutheringwaves", "#rule-markup": "fifty",
			"#rule-fixed": "0.05", "#rule-min-margin": "0.10"})
		b.click("#preview-rule")
		plain(t, "a markup of fifty", b.fieldError("rule-markup"))
		if b.value("#rule-markup") != "fifty" || b.value("#rule-fixed") != "0.05" || b.value("#rule-scope") != "line:wutheringwaves" || b.has("#preview") {
			t.Errorf("the form after a refused markup: %q %q %q, preview %v", b.value("#rule-markup"), b.value("#rule-fixed"), b.value("#rule-scope"), b.has("#preview"))
		}
		b.fill(map[string]string{"#rule-markup": "50"})
		b.click("#preview-rule")
		row := b.text("#preview-" + ww) // 0.5 × 1.5 + 0.05 = 0.80
		wantIn(t, "the previewed change", row, "$0.95", "$0.80", "$0.15 lower")
		if b.has("#preview-"+ff) || b.has("#preview-"+ww+" .held .badge") {
			t.Errorf("the preview lists a pack of another line, or holds a drop: %q", b.text("#preview"))
		}
		if got := priceNow(t, h, ww); got != "0.95" || len(ruleNames(t, h)) != 0 {
			t.Errorf("a preview changed something: price %s, rules %v", got, ruleNames(t, h))
		}
		b.click("#save-rule")
		plain(t, "a rule saved", b.text("#flash"))
		wantIn(t, "the flash", b.text("#flash"), "Rule ww-line is saved", "priced 1 pack")
		if got := priceNow(t, h, ww); got != "0.8" {
			t.Errorf("ww-60 after the rule is saved: %s, want 0.8", got)
		}
		wantIn(t, "the rule's row", b.text("#rule-ww-line"), "line wutheringwaves", "50%", "$0.05", "$0.10", "$0.01")

		// Another rule for the same line is refused beside the scope.
		b.fill(map[string]string{"#rule-name": "ww-again", "#rule-scope": "line:wutheringwaves", "#rule-markup": "5"})
		b.click("#preview-rule")
		msg := b.fieldError("rule-scope")
		plain(t, "a second rule for a line", msg)
		wantIn(t, "a second rule for a line", msg, "ww-line")
		if b.value("#rule-name") != "ww-again" {
			t.Errorf("the name after the refusal: %q", b.value("#rule-name"))
		}

		// Editing the rule fills the form; a big rise is marked held, and
		// leaving the preview unsaved changes nothing.
		b.click("#edit-rule-ww-line")
		if b.value("#rule-name") != "ww-line" || b.value("#rule-markup") != "50" || b.value("#rule-min-margin") != "0.10" {
			t.Errorf("the form of the rule to edit: %q %q %q", b.value("#rule-name"), b.value("#rule-markup"), b.value("#rule-min-margin"))
		}
		b.fill(map[string]string{"#rule-markup": "200"})
		b.click("#preview-rule")
		wantIn(t, "a big rise previewed", b.text("#preview-"+ww), "$0.80", "$1.55", "higher", "held") // 0.5 × 3 + 0.05
		wantIn(t, "the preview's summary", b.text("#preview-summary"), "replaces rule ww-line")
		b.shots("console-pricing-preview")
		if got := priceNow(t, h, ww); got != "0.8" {
			t.Errorf("after an unsaved preview: %s", got)
		}
		// A rule for every pack prices ffmena-100 (0.6 × 1.1 = 0.66).
		b.open("/console/pricing")
		b.fill(map[string]string{"#rule-name": "all", "#rule-markup": "10"})
		b.click("#preview-rule")
		b.click("#save-rule")
		if got := priceNow(t, h, ff); got != "0.66" {
			t.Errorf("ffmena-100 under the rule for every pack: %s", got)
		}
	})

	t.Run("held prices", func(t *testing.T) {
		b.t = t
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+ww, map[string]any{"costUsd": topupdtest.USD("0.7")})  // 1.10: held
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+ff, map[string]any{"costUsd": topupdtest.USD("0.66")}) // 0.73: held
		b.open("/console/catalog")
		if got := b.text("#held-count"); got != "2 held prices" {
			t.Errorf("the catalog's count of held prices: %q", got)
		}
		b.open("/console/pricing")
		wantIn(t, "ww-60's held price", b.text("#held-"+ww), "ww-line", "$0.70", "$0.80", "$1.10", "$0.30 higher")
		b.shots("console-pricing-held")
		b.click("#apply-" + ww)
		wantIn(t, "the question", b.text("#question"), "Raise the price of ww-60 from $0.80 to $1.10", "$0.30 higher")
		if got := priceNow(t, h, ww); got != "0.8" {
			t.Errorf("before the answer: %s", got)
		}
		b.click("#confirm")
		plain(t, "a held price applied", b.text("#flash"))
		if got := priceNow(t, h, ww); got != "1.1" {
			t.Errorf("after applying: %s, want 1.1", got)
		}
		b.click("#discard-" + ff)
		wantIn(t, "a discard", b.text("#flash"), "discarded", "stays at $0.66")
		if got := priceNow(t, h, ff); got != "0.66" {
			t.Errorf("after discarding: %s, want 0.66", got)
		}
		if got := b.text("#held"); !strings.Contains(got, "No held prices") {
			t.Errorf("the held prices after both: %q", got)
		}
		b.forge("/console/pricing/held/"+ww+"/apply", map[string]string{"newPriceUsd": "1.10", "confirmed": "yes"})
		got := b.text("#error")
		plain(t, "applying twice", got)
		wantIn(t, "applying twice", got, "no held price now")
	})

	t.Run("delete a rule", func(t *testing.T) {
		b.t = t
		b.open("/console/pricing")
		b.click("#delete-rule-all")
		wantIn(t, "the question", b.text("#question"), "Delete pricing rule all", "Prices stay as they are", "no rule prices it")
		b.click("#back")
		if len(ruleNames(t, h)) != 2 {
			t.Errorf("after going back: %v", ruleNames(t, h))
		}
		b.open("/console/pricing")
		b.confirm("#delete-rule-all")
		plain(t, "a rule deleted", b.text("#flash"))
		if got := ruleNames(t, h); len(got) != 1 || got[0] != "ww-line" || b.has("#rule-all") {
			t.Errorf("the rules after the deletion: %v", got)
		}
		if got := priceNow(t, h, ff); got != "0.66" {
			t.Errorf("a deletion changed a price: %s", got)
		}
	})

	t.Run("scheduled changes", func(t *testing.T) {
		b.t = t
		at := b.clock.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)
		id := h.AdminOK(http.StatusCreated, "POST", "/admin/price-changes", map[string]any{"pid": topupdtest.PIDPubg, "priceUsd": topupdtest.USD("0.79"),
			"effectiveAt": at}).Str("id")
		b.open("/console/pricing")
		wantIn(t, "the scheduled change", b.text("#change-"+id), topupdtest.PIDPubg, "$0.89", "$0.79", "$0.10 lower")
		b.confirm("#delete-change-" + id)
		plain(t, "a change deleted", b.text("#flash"))
		if b.has("#change-"+id) || !strings.Contains(b.text("#scheduled"), "No scheduled changes") {
			t.Errorf("after the deletion: %q", b.text("#scheduled"))
		}
		r := h.AdminOK(http.StatusOK, "GET", "/admin/price-changes?state=scheduled", nil)
		if list, ok := r.Body["priceChanges"].([]any); !ok || len(list) != 0 {
			t.Errorf("the admin API's scheduled changes: %v", r)
		}
	})

	t.Run("viewer", func(t *testing.T) {
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+ww, map[string]any{"costUsd": topupdtest.USD("1")}) // 1.55: held
		vb := b.also()
		vb.t = t
		vb.signIn(vb.setUp("vic", "viewer"))
		vb.open("/console/pricing")
		wantIn(t, "the viewer's rules", vb.text("#rule-ww-line"), "line wutheringwaves")
		wantIn(t, "the viewer's held prices", vb.text("#held-"+ww), "$1.55")
		for _, sel := range []string{"#rule-form", "#apply-" + ww, "#discard-" + ww, "#delete-rule-ww-line", "#edit-rule-ww-line"} {
			if vb.has(sel) {
				t.Errorf("the viewer is offered %s", sel)
			}
		}
		vb.forge("/console/pricing/rules", map[string]string{"name": "sneak", "markupPercent": "1"})
		if got := vb.text("#error"); !strings.Contains(got, "may not") {
			t.Errorf("a viewer's forged rule: %q", got)
		}
		if got := ruleNames(t, h); len(got) != 1 {
			t.Errorf("the rules after the viewer's forgery: %v", got)
		}
	})
}

// TestPackCostUndercuts (back-office.md 4 (b)): the owner raises ww-60's
// cost above its own price, a tier's, an account's own and a scheduled
// one: nothing is saved, the page names each price in words, keeps what
// was typed and offers Reprice and Keep below cost. Reprice has the
// pack's rule set its price, and names what still undercuts; Keep below
// cost then saves the cost with the rule's price. A pack without a rule
// says Reprice cannot help, and Keep below cost saves its cost with the
// prices as they were; a price set below the cost is still refused
// beside the price. The price can be pinned. A large price drop asks
// with "lower", a large rise with "higher".
func TestPackCostUndercuts(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.LoadCatalog()
	ww, ff := topupdtest.PIDWW, topupdtest.PIDFF
	for _, pid := range []string{ww, ff} {
		h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+pid, map[string]any{"costUsd": topupdtest.USD("0.5")})
	}
	h.AdminOK(http.StatusOK, "PUT", "/admin/pricing-rules/ww", map[string]any{"scope": map[string]any{"pid": ww}, "markupPercent": topupdtest.USD("50")})
	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+ww, map[string]any{"priceUsd": topupdtest.USD("0.95")}) // by hand, over the rule's 0.75
	h.AdminOK(http.StatusOK, "PUT", "/admin/tiers/gold", map[string]any{"prices": map[string]any{ww: topupdtest.USD("0.80"), ff: topupdtest.USD("0.80")}})
	a := h.NewAccount("10", nil)
	h.AdminOK(http.StatusOK, "PUT", "/admin/accounts/"+a.ID+"/prices/"+ww, map[string]any{"priceUsd": topupdtest.USD("0.70")})
	h.AdminOK(http.StatusCreated, "POST", "/admin/price-changes", map[string]any{"pid": ww, "priceUsd": topupdtest.USD("0.90"),
		"effectiveAt": b.clock.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)})
	b.signIn(b.setUp("own", "owner"))

	t.Run("undercut", func(t *testing.T) {
		b.t = t
		b.open("/console/catalog/packs/" + ww)
		wantIn(t, "the pack's rule", b.text("#pack-rule"), "Rule ww prices it")
		b.fill(map[string]string{"#cost": "0.96", "[name=name]": "60 Lunite!"})
		b.click("#save-pack")
		msg := b.fieldError("cost")
		plain(t, "a cost above four prices", msg)
		wantIn(t, "a cost above four prices", msg, "Nothing was saved", "the cost $0.96", "its own price $0.95", "tier gold sells it at $0.80",
			"account "+a.ID+"'s own price $0.70", "the scheduled price $0.90")
		if !b.has("#reprice") || !b.has("#keep-below-cost") {
			t.Errorf("the choices offered: reprice %v, keep %v", b.has("#reprice"), b.has("#keep-below-cost"))
		}
		wantIn(t, "what Reprice does", b.text("#undercut-help"), "rule ww sets its own price to $1.44")
		b.shots("console-pack-undercut")
		if b.value("#cost") != "0.96" || b.value("[name=name]") != "60 Lunite!" {
			t.Errorf("the form after the refusal: cost %q, name %q", b.value("#cost"), b.value("[name=name]"))
		}
		if c, p := costNow(t, h, ww), priceNow(t, h, ww); c != "0.5" || p != "0.95" {
			t.Errorf("a refused cost changed the pack: cost %s, price %s", c, p)
		}

		b.click("#reprice") // 0.96 × 1.5 = 1.44: the pack's own is fine, the others still undercut
		msg = b.fieldError("cost")
		plain(t, "a reprice that still undercuts", msg)
		wantIn(t, "a reprice that still undercuts", msg, "rule ww's price $1.44", "still above", "tier gold sells it at $0.80")
		if strings.Contains(msg, "its own price") || costNow(t, h, ww) != "0.5" {
			t.Errorf("after Reprice: %q, cost %s", msg, costNow(t, h, ww))
		}
		b.click("#keep-below-cost")
		wantIn(t, "the flash", b.text("#flash"), "its pricing rule set its price to $1.44")
		if c, p, n := costNow(t, h, ww), priceNow(t, h, ww), packNow(t, h, ww)["name"]; c != "0.96" || p != "1.44" || n != "60 Lunite!" {
			t.Errorf("after Reprice and Keep below cost: cost %s, price %s, name %v; want 0.96, 1.44 and the name typed", c, p, n)
		}
	})

	t.Run("no rule", func(t *testing.T) {
		b.t = t
		b.open("/console/catalog/packs/" + ff)
		b.fill(map[string]string{"#cost": "0.85"})
		b.click("#save-pack")
		wantIn(t, "a cost above a tier's price", b.fieldError("cost"), "tier gold sells it at $0.80")
		wantIn(t, "what Reprice does", b.text("#undercut-help"), "No pricing rule prices it")
		b.click("#reprice")
		msg := b.fieldError("cost")
		plain(t, "Reprice without a rule", msg)
		wantIn(t, "Reprice without a rule", msg, "No pricing rule prices it", "tier gold sells it at $0.80")
		b.click("#keep-below-cost")
		plain(t, "kept below cost", b.text("#flash"))
		if c, p := costNow(t, h, ff), priceNow(t, h, ff); c != "0.85" || p != "0.95" {
			t.Errorf("after Keep below cost: cost %s, price %s; want 0.85 and 0.95", c, p)
		}
		// A price set below the cost is refused beside the price, as before.
		b.open("/console/catalog/packs/" + ff)
		b.fill(map[string]string{"#price": "0.80"})
		b.click("#save-pack")
		wantIn(t, "a price below the cost", b.fieldError("price"), "$0.80", "below the cost $0.85")
		if b.has("#reprice") || priceNow(t, h, ff) != "0.95" {
			t.Errorf("a price below the cost offers Reprice, or changed the price to %s", priceNow(t, h, ff))
		}
	})

	t.Run("pinned", func(t *testing.T) {
		b.t = t
		b.open("/console/catalog/packs/" + ww)
		b.eval(`document.querySelector("#price-pinned").checked = true`)
		b.click("#save-pack")
		if got := packNow(t, h, ww)["pricePinned"]; got != true {
			t.Errorf("after pinning: pricePinned %v", got)
		}
		b.open("/console/catalog/packs/" + ww)
		wantIn(t, "a pinned pack's rule", b.text("#pack-rule"), "pinned")
		b.eval(`document.querySelector("#price-pinned").checked = false`)
		b.click("#save-pack")
		if got := packNow(t, h, ww)["pricePinned"]; got == true {
			t.Errorf("after unpinning: pricePinned %v", got)
		}
	})

	t.Run("lower or higher", func(t *testing.T) {
		b.t = t
		b.open("/console/catalog/packs/" + topupdtest.PIDPubgBig) // 4.45
		b.fill(map[string]string{"#price": "1.00"})
		b.click("#save-pack")
		q := b.text("#question")
		wantIn(t, "a drop's question", q, "Lower the price of pubg-325 from $4.45 to $1.00", "$3.45 lower")
		if strings.Contains(q, "higher") {
			t.Errorf("a drop's question says higher: %q", q)
		}
		b.click("#back")
		b.fill(map[string]string{"#price": "10"})
		b.click("#save-pack")
		q = b.text("#question")
		wantIn(t, "a rise's question", q, "Raise the price of pubg-325 from $4.45 to $10.00", "$5.55 higher")
		if strings.Contains(q, "lower") {
			t.Errorf("a rise's question says lower: %q", q)
		}
		b.click("#confirm")
		if got := priceNow(t, h, topupdtest.PIDPubgBig); got != "10" {
			t.Errorf("after confirming: %s", got)
		}
	})
}

// TestTierDiscount (back-office.md 4 (d)): finance makes a tier of 5% off
// the list price; a markup and a discount both, a discount of 100, and a
// rounding of half a cent are refused beside their fields; an account on
// the tier pays the list price less 5%, rounded up to the cent, and its
// page says so; a discount that prices a pack below its cost is refused,
// naming the cost.
func TestTierDiscount(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	h := b.h
	h.LoadCatalog()
	b.signIn(b.setUp("fin", "finance"))
	b.open("/console/catalog/tiers")
	b.fill(map[string]string{"#new-tier-name": "off", "#new-tier-markup": "10", "#new-tier-off": "5"})
	b.click("#create-tier")
	plain(t, "a markup and a discount", b.fieldError("new-tier-off"))
	if b.value("#new-tier-markup") != "10" || b.value("#new-tier-off") != "5" {
		t.Errorf("the form after the refusal: %q %q", b.value("#new-tier-markup"), b.value("#new-tier-off"))
	}
	b.fill(map[string]string{"#new-tier-markup": "", "#new-tier-off": "100"})
	b.click("#create-tier")
	plain(t, "a discount of 100", b.fieldError("new-tier-off"))
	b.fill(map[string]string{"#new-tier-off": "5", "#new-tier-round": "0.005"})
	b.click("#create-tier")
	plain(t, "a rounding of half a cent", b.fieldError("new-tier-round"))
	b.fill(map[string]string{"#new-tier-round": ""})
	b.click("#create-tier")
	plain(t, "a tier created", b.text("#flash"))
	tiers := h.AdminOK(http.StatusOK, "GET", "/admin/tiers", nil).Body["tiers"].([]any)
	if len(tiers) != 1 || numOf(tiers[0].(map[string]any)["percentOffList"]) != "5" || numOf(tiers[0].(map[string]any)["roundToUsd"]) != "0.01" ||
		tiers[0].(map[string]any)["markupPercent"] != nil {
		t.Errorf("the tiers: %v", tiers)
	}
	if b.value("#tier-off") != "5" || b.value("#tier-round") != "0.01" {
		t.Errorf("the tier's form: off %q, rounding %q", b.value("#tier-off"), b.value("#tier-round"))
	}
	b.open("/console/catalog/tiers")
	wantIn(t, "the tier's row", b.text("#tiers"), "5%")

	a := h.NewAccount("10", map[string]any{"tier": "off"})
	b.open("/console/accounts/" + a.ID)
	b.eval(`document.querySelector("#terms details").open = true`)
	// 0.95 less 5% is 0.9025: 0.91.
	if got := strings.Join(strings.Fields(b.text("#account-prices")), " "); !strings.Contains(got, topupdtest.PIDFF+" 0.91 discount") {
		t.Errorf("what the account pays: %q", got)
	}

	h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDFF, map[string]any{"costUsd": topupdtest.USD("0.93"), "allowBelowCost": true})
	b.open("/console/catalog/tiers/off")
	b.fill(map[string]string{"#tier-off": "5"})
	b.click("#save-tier")
	msg := b.fieldError("tier-off")
	plain(t, "a discount below the cost", msg)
	wantIn(t, "a discount below the cost", msg, topupdtest.PIDFF, "$0.91", "$0.93")
}
