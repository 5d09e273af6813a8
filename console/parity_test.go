package console_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestConsoleDoesWhatTheAPIDoes: on one server, an owner does in the
// console what only the admin API did before: settings beyond the two
// switches, price tiers, an account's own prices, a pack's suppliers, and
// codes pasted into the stock page. Each refused value shows the form
// again, with what was typed and the refusal in plain words.
func TestConsoleDoesWhatTheAPIDoes(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.signIn(b.setUp("own", "owner"))
	reseller := b.h.NewAccount("10", nil)

	t.Run("settings", func(t *testing.T) {
		b.t = t
		settings := func() (topupd.Money, string, string) {
			r := b.h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil)
			m, err := topupd.ParseMoney(r.Num("eligibilityMinTopupUsd"))
			if err != nil {
				t.Fatalf("settings: %v: %v", r, err)
			}
			return m, r.Num("simDelayMs"), r.Num("simCallMs")
		}
		b.open("/console/settings")
		b.fill(map[string]string{"#eligibility": "12.345", "#sim-delay": "1500"})
		b.click("#save-rules")
		plain(t, "an eligibility of 12.345", b.fieldError("eligibility"))
		if got := b.value("#eligibility"); got != "12.345" {
			t.Errorf("the eligibility field after the refusal: %q", got)
		}
		if got := b.value("#sim-delay"); got != "1500" {
			t.Errorf("the sim delay field after the refusal: %q", got)
		}
		b.fill(map[string]string{"#eligibility": "50", "#sim-delay": "1.5s"})
		b.click("#save-rules")
		plain(t, "a sim delay of 1.5s", b.fieldError("sim-delay"))
		if m, delay, _ := settings(); m != 0 || delay != "0" {
			t.Errorf("after refusals the settings are %s and %s ms", m.Dollars(), delay)
		}
		b.fill(map[string]string{"#eligibility": "2,000", "#sim-delay": "1500"})
		b.click("#save-rules")
		if q := b.text("#question"); !strings.Contains(q, "$2,000.00") {
			t.Errorf("a large eligibility's question: %q", q)
		}
		b.click("#back")
		b.fill(map[string]string{"#eligibility": "50", "#sim-delay": "1500"})
		b.click("#save-rules")
		plain(t, "the settings saved", b.text("#flash"))
		if m, delay, call := settings(); m != topupd.USD(50) || delay != "1500" || call != "0" {
			t.Errorf("the settings saved are %s, %s ms and %s ms", m.Dollars(), delay, call)
		}
		if got := b.value("#eligibility"); got != "50.00" {
			t.Errorf("the eligibility field shows %q", got)
		}
		b.shots("console-settings-rules")
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"eligibilityMinTopupUsd": 0, "simDelayMs": 0})
	})

	t.Run("paste codes", func(t *testing.T) {
		b.t = t
		stock := func() string { return b.h.Stock(reseller)[topupdtest.PIDGift] }
		was := stock()
		b.open("/console/stock")
		typed := "GIFT-PASTE-A\n\nGIFT-PASTE-B\ncode\nGIFT-PASTE-A\n"
		b.eval(`document.querySelector("#paste-pid").value = "` + topupdtest.PIDGift + `"`)
		b.fill(map[string]string{"#paste-codes": typed, "#paste-cost": "0.12345", "#paste-note": "pasted"})
		b.click("#paste")
		plain(t, "a cost of 0.12345", b.fieldError("paste-cost"))
		if got := b.value("#paste-codes"); got != typed {
			t.Errorf("the codes after the refusal: %q", got)
		}
		if got := b.value("#paste-pid"); got != topupdtest.PIDGift {
			t.Errorf("the pack after the refusal: %q", got)
		}
		if got := stock(); got != was {
			t.Errorf("a refused paste changed the stock from %s to %s", was, got)
		}
		b.fill(map[string]string{"#paste-codes": "\n \n"})
		b.click("#paste")
		plain(t, "no codes", b.fieldError("paste-codes"))
		b.fill(map[string]string{"#paste-codes": typed, "#paste-cost": "8.5"})
		b.click("#paste")
		if got := b.text("#flash"); !strings.Contains(got, "2 added, 1 duplicate,") {
			t.Errorf("after pasting 3 codes, one twice: %q", got)
		}
		if got, want := stock(), fmt.Sprint(atoi(t, was)+2); got != want {
			t.Errorf("the stock after the paste: %s, want %s", got, want)
		}
		r := b.h.AdminOK(http.StatusOK, "GET", "/admin/products/"+topupdtest.PIDGift+"/batches", nil)
		if got := fmt.Sprint(r.Body["batches"]); !strings.Contains(got, "pasted") || !strings.Contains(got, "8.5") {
			t.Errorf("the batch of the paste: %s", got)
		}
		b.open("/console/stock")
		b.eval(`document.querySelector("#paste-pid").value = "` + topupdtest.PIDGift + `"`)
		b.fill(map[string]string{"#paste-codes": "GIFT-PASTE-B"})
		b.click("#paste")
		if got := b.text("#flash"); !strings.Contains(got, "0 added, 1 duplicate,") {
			t.Errorf("pasting a code in stock again: %q", got)
		}
		b.shots("console-stock-paste")
	})

	t.Run("account prices", func(t *testing.T) {
		b.t = t
		page := "/console/accounts/" + reseller.ID
		pays := func() (string, string) {
			ap, err := b.h.AdminClient.AccountPrices(t.Context(), reseller.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ap.Prices {
				if p.PID == topupdtest.PIDPubg {
					return p.PriceUSD.String(), p.Source
				}
			}
			return "", "none"
		}
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubg, map[string]any{"costUsd": topupdtest.USD("0.5")})
		setPrice := func(price string) {
			b.open(page)
			b.eval(`document.querySelector("#own-price-pid").value = "` + topupdtest.PIDPubg + `"`)
			b.fill(map[string]string{"#own-price": price})
			b.click("#set-own-price")
		}
		for _, bad := range []string{"0.45", "1e3", "0.00001", "0"} {
			setPrice(bad)
			msg := b.fieldError("own-price")
			plain(t, "an own price of "+bad, msg)
			if bad == "0.45" && !strings.Contains(msg, "$0.50") {
				t.Errorf("the below-cost refusal does not name the cost: %q", msg)
			}
			if got := b.value("#own-price"); got != bad {
				t.Errorf("the price field after %s: %q", bad, got)
			}
			if got := b.value("#own-price-pid"); got != topupdtest.PIDPubg {
				t.Errorf("the pack after %s: %q", bad, got)
			}
		}
		setPrice("5")
		if q := b.text("#question"); !strings.Contains(q, "$5.00") || !strings.Contains(q, "$0.89") {
			t.Errorf("a large change's question: %q", q)
		}
		b.click("#back")
		if price, source := pays(); price != "0.89" || source != "pack" {
			t.Errorf("after refusals the account pays %s (%s)", price, source)
		}
		setPrice("0.85")
		plain(t, "an own price set", b.text("#flash"))
		if price, source := pays(); price != "0.85" || source != "account" {
			t.Errorf("after setting 0.85 the account pays %s (%s)", price, source)
		}
		b.shots("console-account-prices")
		b.click("#remove-price-" + topupdtest.PIDPubg)
		if got := b.text("#flash"); !strings.Contains(got, "$0.89") {
			t.Errorf("after removing the price: %q", got)
		}
		if price, source := pays(); price != "0.89" || source != "pack" {
			t.Errorf("after removing its price the account pays %s (%s)", price, source)
		}
		if b.has("#remove-price-" + topupdtest.PIDPubg) {
			t.Errorf("a removed price can be removed again")
		}
	})

	t.Run("tiers", func(t *testing.T) {
		b.t = t
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubg, map[string]any{"costUsd": topupdtest.USD("0.5")})
		gold := func() (markup, round, price string) {
			tiers, err := b.h.AdminClient.Tiers(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range tiers {
				if tr.Name == "gold" {
					if tr.MarkupPercent != nil {
						markup = tr.MarkupPercent.String()
					}
					if tr.RoundToUSD != nil {
						round = tr.RoundToUSD.String()
					}
					if p, ok := tr.Prices[topupdtest.PIDPubg]; ok {
						price = p.String()
					}
					return
				}
			}
			return "none", "none", "none"
		}
		b.open("/console/catalog")
		b.click("#tiers-link")
		b.fill(map[string]string{"#new-tier-name": "Gold Tier", "#new-tier-markup": "10"})
		b.click("#create-tier")
		plain(t, "a tier named Gold Tier", b.fieldError("new-tier-name"))
		if got := b.value("#new-tier-name"); got != "Gold Tier" {
			t.Errorf("the name after the refusal: %q", got)
		}
		if got := b.value("#new-tier-markup"); got != "10" {
			t.Errorf("the markup after the refusal: %q", got)
		}
		b.fill(map[string]string{"#new-tier-name": "gold", "#new-tier-markup": "10", "#new-tier-round": "0.05"})
		b.click("#create-tier")
		plain(t, "a tier created", b.text("#flash"))
		if got := b.path(); got != "/console/catalog/tiers/gold" {
			t.Errorf("after creating a tier the console is at %s", got)
		}
		if m, r, p := gold(); m != "10" || r != "0.05" || p != "" {
			t.Errorf("the tier created: markup %q, rounding %q, pubg price %q", m, r, p)
		}
		b.open("/console/catalog/tiers")
		b.fill(map[string]string{"#new-tier-name": "gold"})
		b.click("#create-tier")
		plain(t, "a second tier named gold", b.fieldError("new-tier-name"))

		page := "/console/catalog/tiers/gold"
		price := "#tier-price-" + topupdtest.PIDPubg
		b.open(page)
		b.fill(map[string]string{"#tier-markup": "-20"})
		b.click("#save-tier")
		msg := b.fieldError("tier-markup")
		plain(t, "a markup below cost", msg)
		if !strings.Contains(msg, "$0.50") {
			t.Errorf("the refusal of a markup below cost does not name the cost: %q", msg)
		}
		if got := b.value("#tier-markup"); got != "-20" {
			t.Errorf("the markup after the refusal: %q", got)
		}
		b.fill(map[string]string{"#tier-markup": "10", price: "0.123456"})
		b.click("#save-tier")
		plain(t, "a tier price of 0.123456", b.fieldError("tier-price-"+topupdtest.PIDPubg))
		if got := b.value(price); got != "0.123456" {
			t.Errorf("the tier's price after the refusal: %q", got)
		}
		b.fill(map[string]string{price: "5"})
		b.click("#save-tier")
		if q := b.text("#question"); !strings.Contains(q, "$0.89") || !strings.Contains(q, "$5.00") {
			t.Errorf("a large tier price's question: %q", q)
		}
		b.click("#back")
		if _, _, p := gold(); p != "" {
			t.Errorf("after going back the tier prices pubg at %q", p)
		}
		b.fill(map[string]string{price: "0.8"})
		b.click("#save-tier")
		plain(t, "a tier saved", b.text("#flash"))
		if m, r, p := gold(); m != "10" || r != "0.05" || p != "0.8" {
			t.Errorf("the tier saved: markup %q, rounding %q, pubg price %q", m, r, p)
		}
		b.shots("console-tier")

		// The account's own price was removed above: the tier prices it.
		b.open("/console/accounts/" + reseller.ID)
		b.eval(`document.querySelector("#tier").value = "gold"`)
		b.click("#save-terms")
		ap, err := b.h.AdminClient.AccountPrices(t.Context(), reseller.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ap.Prices {
			if p.PID == topupdtest.PIDPubg && (p.PriceUSD.String() != "0.8" || p.Source != "tier") {
				t.Errorf("an account on gold pays %s (%s) for pubg", p.PriceUSD, p.Source)
			}
		}
		b.open(page)
		b.fill(map[string]string{price: ""})
		b.click("#save-tier")
		if _, _, p := gold(); p != "" {
			t.Errorf("after emptying its price the tier prices pubg at %q", p)
		}
		if got := b.text("#tiers-accounts"); !strings.HasPrefix(got, "1 account") {
			t.Errorf("the tier's page says %q", got)
		}
	})

	t.Run("suppliers", func(t *testing.T) {
		b.t = t
		b.h.AdminCall("PUT", "/admin/upstreams/up", map[string]any{"baseUrl": "http://127.0.0.1:9/", "apiKey": "tpd_live_unused", "check": false}, nil)
		pid := topupdtest.PIDPubgManual
		page := "/console/catalog/packs/" + pid
		suppliers := func() string {
			packs, err := b.h.AdminClient.Products(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packs {
				if p.PID == pid {
					var out []string
					for _, s := range p.Suppliers {
						w := s.Provider + " " + s.Upstream + " " + s.UpstreamPID
						if s.CostUSD != nil {
							w += " " + s.CostUSD.String()
						}
						out = append(out, strings.TrimSpace(w))
					}
					return p.Provider + ": " + strings.Join(out, ", ")
				}
			}
			return "none"
		}
		b.open(page)
		if got := b.value("#supplier-provider-1"); got != "manual" {
			t.Fatalf("row 1 of a manual pack: %q", got)
		}
		refused := func(what string, fields map[string]string) {
			t.Helper()
			b.open(page)
			b.eval(`document.querySelector("#supplier-provider-2").value = "upstream"`)
			b.fill(fields)
			b.click("#save-suppliers")
			msg := b.fieldError("suppliers")
			plain(t, what, msg)
			for sel, v := range fields {
				if got := b.value(sel); got != v {
					t.Errorf("%s: %s holds %q after the refusal, not %q", what, sel, got, v)
				}
			}
			if got := b.value("#supplier-provider-2"); got != "upstream" {
				t.Errorf("%s: row 2's provider after the refusal: %q", what, got)
			}
			if got := suppliers(); got != "manual: " {
				t.Errorf("%s: the pack's suppliers changed to %q", what, got)
			}
		}
		refused("an upstream not set up", map[string]string{"#supplier-upstream-2": "nope", "#supplier-pid-2": topupdtest.PIDPubg})
		refused("an upstream without its pack id", map[string]string{"#supplier-upstream-2": "up", "#supplier-pid-2": ""})
		refused("a supplier's cost above the price", map[string]string{"#supplier-upstream-2": "up", "#supplier-pid-2": topupdtest.PIDPubg, "#supplier-cost-2": "3"})
		refused("a cost of 1e2", map[string]string{"#supplier-upstream-2": "up", "#supplier-pid-2": topupdtest.PIDPubg, "#supplier-cost-2": "1e2"})

		b.open(page)
		b.eval(`document.querySelector("#supplier-provider-2").value = "upstream"`)
		b.fill(map[string]string{"#supplier-upstream-2": "up", "#supplier-pid-2": topupdtest.PIDPubg, "#supplier-cost-2": "1.2",
			"#supplier-order-1": "2", "#supplier-order-2": "1"})
		b.click("#save-suppliers")
		plain(t, "the suppliers saved", b.text("#flash"))
		if got, want := suppliers(), "upstream: upstream up "+topupdtest.PIDPubg+" 1.2, manual"; got != want {
			t.Errorf("the suppliers saved: %q, want %q", got, want)
		}
		if got := b.value("#supplier-provider-1"); got != "upstream" {
			t.Errorf("row 1 after the reorder: %q", got)
		}
		if !b.has("#supplier-provider-4") || b.has("#supplier-provider-5") {
			t.Errorf("two suppliers are not shown with two spare rows")
		}
		b.shots("console-pack-suppliers")
		b.fill(map[string]string{"#supplier-order-1": "2", "#supplier-order-2": "1"})
		b.click("#save-suppliers")
		if got, want := suppliers(), "manual: manual, upstream up "+topupdtest.PIDPubg+" 1.2"; got != want {
			t.Errorf("the suppliers reordered: %q, want %q", got, want)
		}
		b.eval(`document.querySelector("#supplier-provider-2").value = ""`)
		b.fill(map[string]string{"#supplier-upstream-2": "", "#supplier-pid-2": "", "#supplier-cost-2": ""})
		b.click("#save-suppliers")
		if got := suppliers(); got != "manual: " {
			t.Errorf("after dropping the upstream the suppliers are %q", got)
		}
	})

	t.Run("roles", func(t *testing.T) {
		b.t = t
		sup := b.also()
		sup.t = t
		sup.signIn(sup.setUp("sup", "support"))
		for page, form := range map[string]string{"/console/settings": "#rules-form", "/console/stock": "#stock-paste",
			"/console/accounts/" + reseller.ID: "#own-price-form", "/console/catalog/tiers": "#new-tier-form", "/console/catalog/tiers/gold": "#tier-form"} {
			sup.open(page)
			if sup.has(form) {
				t.Errorf("support sees %s on %s", form, page)
			}
		}
		sup.open("/console/catalog/tiers/gold")
		if got := sup.text("#tier-prices"); !strings.Contains(got, "0.89") {
			t.Errorf("support reads no tier: %q", got)
		}
		// Post a tier as if the form were there: refused, and no tier is made.
		csrf, err := run(sup, chromedp.Evaluate[string](`document.querySelector("meta[name=csrf-token]").content`))
		if err != nil {
			t.Fatal(err)
		}
		sup.eval(fmt.Sprintf(`(() => { const f = document.createElement("form"); f.method = "post"; f.action = "/console/catalog/tiers";
			for (const [k, v] of [["csrf", %q], ["name", "sneaky"]]) { const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i) }
			f.id = "sneak"; document.body.appendChild(f); return true })()`, csrf))
		sup.eval(`document.getElementById("sneak").submit()`)
		sup.do(chromedp.WaitVisible(chromedp.CSS("#error")))
		if got := sup.text("#error"); !strings.Contains(got, "may not") {
			t.Errorf("support posting a tier: %q", got)
		}
		tiers, err := b.h.AdminClient.Tiers(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range tiers {
			if tr.Name == "sneaky" {
				t.Errorf("support made a tier")
			}
		}
	})
}

// atoi reads a count the API wrote.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is no count", s)
	}
	return n
}
