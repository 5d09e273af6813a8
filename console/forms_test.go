package console_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// value is the value of the form field sel finds.
func (b *tab) value(sel string) string {
	b.t.Helper()
	v, err := run(b, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector(%q).value`, sel)))
	if err != nil {
		b.t.Fatalf("reading the value of %s: %v (at %s)", sel, err, b.url())
	}
	return v
}

// fieldError is the error shown beside a field (its id + "-error"), ""
// when there is none.
func (b *tab) fieldError(id string) string {
	b.t.Helper()
	if !b.has("#" + id + "-error") {
		return ""
	}
	return b.text("#" + id + "-error")
}

// shots saves screenshots of the page at a desktop's and a phone's width
// (390 px), as name-desktop.png and name-phone.png.
func (b *tab) shots(name string) {
	b.t.Helper()
	if os.Getenv("TOPUPD_SCREENSHOTS") == "" {
		return // only when someone will look at them
	}
	topupdtest.Screenshot(b.t, b.ctx, name+"-desktop.png")
	b.do(chromedp.EmulateViewport(390, 844))
	topupdtest.Screenshot(b.t, b.ctx, name+"-phone.png")
	b.do(chromedp.EmulateViewport(1280, 800))
}

// rawWords are what an operator must never be shown: API codes, Go
// values, advice for API callers.
var rawWords = []string{"INVALID_BODY", "BELOW_COST", "allowBelowCost", "<nil>", "e+0", "Bad Request", "LAST_OWNER", "map["}

// plain fails the test when a message holds raw words.
func plain(t *testing.T, what, msg string) {
	t.Helper()
	if msg == "" {
		t.Errorf("%s: no message", what)
	}
	for _, w := range rawWords {
		if strings.Contains(msg, w) {
			t.Errorf("%s: %q holds %q", what, msg, w)
		}
	}
}

// TestConsoleForms: on one server, an owner meets what used to break in
// the console's forms: the setup page's QR code, the action log's
// columns, money typed into forms, the last owner demoting herself, a
// form's errors, and the focus on a confirmation page.
func TestConsoleForms(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	own := b.setUp("own", "owner")
	b.signIn(own)
	a := b.h.NewAccount("25.5", nil)
	accountPage := "/console/accounts/" + a.ID

	t.Run("QR code", func(t *testing.T) {
		b.t = t
		b.h.NewOperator("scan", "viewer")
		link := b.h.AdminOK(http.StatusCreated, "POST", "/admin/operators/scan/setup-link", nil).Str("url")
		b.h.Logs.Secret(link[strings.LastIndex(link, "/")+1:], "scan's setup link")
		s := b.also()
		s.do(chromedp.Navigate(link))
		width, err := run(s, chromedp.Evaluate[int](`(() => { const i = document.querySelector(".qr img"); return i && i.complete ? i.naturalWidth : -1 })()`))
		if err != nil || width <= 0 {
			t.Errorf("the QR code's image is %d px wide (%v): %s", width, err, s.page())
		}
		s.shots("console-setup")
	})

	t.Run("action log", func(t *testing.T) {
		b.t = t
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/accounts/"+a.ID, map[string]any{"maxOrderUsd": topupdtest.USD("1234.5")})
		b.h.AdminOK(http.StatusOK, "POST", "/admin/accounts/"+a.ID+"/credits", map[string]any{"amountUsd": topupdtest.USD("999902744.83"), "reference": "big"})
		b.open("/console/actions?accountId=" + a.ID + "&action=account.update")
		if got := b.text("#actions tbody tr td:nth-child(3)"); got != "account.update" {
			t.Errorf("the Action column: %q", got)
		}
		if got := b.text("#actions tbody tr .changes"); got != "maxOrderUsd: not set → $1,234.50" {
			t.Errorf("the limit's change: %q", got)
		}
		b.open("/console/actions?accountId=" + a.ID + "&action=account.credit")
		got := b.text("#actions tbody tr .changes")
		for _, want := range []string{"balanceUsd: $25.50 → $999,902,770.33", "amountUsd: $999,902,744.83", "reference: big"} {
			if !strings.Contains(got, want) {
				t.Errorf("the credit's changes %q lack %q", got, want)
			}
		}
		plain(t, "the credit's changes", got)
		b.shots("console-actions")
	})

	t.Run("credit amounts", func(t *testing.T) {
		b.t = t
		balance := b.h.Balance(a)
		for _, bad := range []string{"1e9", "0.001", "0", "12.345", "ten"} {
			b.open(accountPage)
			b.fill(map[string]string{"[name=amount]": bad, "[name=reference]": "ref-" + bad})
			b.click("#credit")
			msg := b.fieldError("amount")
			plain(t, "a credit of "+bad, msg)
			if got := b.value("#credit-form [name=amount]"); got != bad {
				t.Errorf("after a credit of %q the amount field holds %q", bad, got)
			}
			if got := b.value("#credit-form [name=reference]"); got != "ref-"+bad {
				t.Errorf("after a credit of %q the reference field holds %q", bad, got)
			}
		}
		b.shots("console-credit-error")
		// A correction below zero: the service's refusal, beside the field.
		b.open(accountPage)
		b.fill(map[string]string{"[name=amount]": "-999999999", "[name=reference]": "too-much"})
		b.click("#credit")
		if !b.has("#confirm") {
			t.Fatalf("no confirmation of a large correction: %s", b.page())
		}
		b.click("#confirm")
		plain(t, "a correction below zero", b.fieldError("amount"))
		if got := b.h.Balance(a); got != balance {
			t.Errorf("after refused credits the balance is %s, was %s", got, balance)
		}

		b.open(accountPage)
		b.fill(map[string]string{"[name=amount]": "1,500", "[name=reference]": "bank-9"})
		b.click("#credit")
		q := b.text("#question")
		if !strings.Contains(q, "$1,500.00") || !strings.Contains(q, "$999,904,270.33") {
			t.Errorf("a large credit's question: %q", q)
		}
		b.shots("console-credit-confirm")
		b.click("#confirm")
		if got := b.text("#flash"); got != "Credited $1,500.00; the balance is $999,904,270.33." {
			t.Errorf("after the credit: %q", got)
		}
	})

	t.Run("pack price", func(t *testing.T) {
		b.t = t
		page := "/console/catalog/packs/" + topupdtest.PIDPubg
		priceOf := func() string {
			packs, err := b.h.AdminClient.Products(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packs {
				if p.PID == topupdtest.PIDPubg {
					return p.PriceUSD.String()
				}
			}
			return "none"
		}
		b.open(page)
		b.fill(map[string]string{"#price": "1e6"})
		b.click("#save-pack")
		plain(t, "a price of 1e6", b.fieldError("price"))
		if got := b.value("#price"); got != "1e6" {
			t.Errorf("the price field after 1e6: %q", got)
		}
		b.open(page)
		b.fill(map[string]string{"#price": "1000000"})
		b.click("#save-pack")
		if !b.has("#confirm") {
			t.Fatalf("a price of 1,000,000 was not confirmed: %s", b.page())
		}
		if q := b.text("#question"); !strings.Contains(q, "$0.89") || !strings.Contains(q, "$1,000,000.00") {
			t.Errorf("the question: %q", q)
		}
		b.click("#back")
		if got := priceOf(); got != "0.89" {
			t.Errorf("after going back the price is %s", got)
		}
		b.open(page)
		b.fill(map[string]string{"#cost": "0.95"})
		b.click("#save-pack")
		msg := b.fieldError("cost") // a cost raised above the price: said beside the cost (pricing_cost.go)
		plain(t, "a price below cost", msg)
		if !strings.Contains(msg, "$0.95") || !strings.Contains(msg, "its own price $0.89") {
			t.Errorf("the below-cost message does not name the cost and the price: %q", msg)
		}
		if got := b.value("#cost"); got != "0.95" {
			t.Errorf("the cost field after the refusal: %q", got)
		}
		b.shots("console-pack-error")
	})

	t.Run("allow-list", func(t *testing.T) {
		b.t = t
		b.open(accountPage)
		typed := "203.0.113.7\n300.1.1.1"
		b.fill(map[string]string{"#allowlist": typed})
		b.click("#save-allowlist")
		msg := b.fieldError("allowlist")
		plain(t, "a bad allow-list", msg)
		if !strings.Contains(msg, "300.1.1.1") {
			t.Errorf("the message does not name the bad entry: %q", msg)
		}
		if got := b.value("#allowlist"); got != typed {
			t.Errorf("the allow-list field after the refusal: %q", got)
		}
	})

	t.Run("operator name", func(t *testing.T) {
		b.t = t
		b.open("/console/operators")
		check := func(v string) bool {
			ok, err := run(b, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const e = document.querySelector("#new-operator-name"); e.value = %q; return e.validity.patternMismatch })()`, v)))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !check("Bad Name") || check("good.name-2") {
			t.Errorf("the browser checks no pattern: %q mismatches %v, %q mismatches %v", "Bad Name", check("Bad Name"), "good.name-2", check("good.name-2"))
		}
		b.eval(`document.querySelector("#new-operator-name").removeAttribute("pattern")`)
		b.fill(map[string]string{"#new-operator-name": "Bad Name"})
		b.click("#add-operator")
		plain(t, "a bad operator name", b.fieldError("new-operator-name"))
		if got := b.value("#new-operator-name"); got != "Bad Name" {
			t.Errorf("the name field after the refusal: %q", got)
		}
		b.shots("console-operators-error")
	})

	consolePolish(t, b, a)

	t.Run("last owner", func(t *testing.T) {
		b.t = t
		b.open("/console/operators")
		b.eval(`document.querySelector("#role-own").value = "viewer"`)
		b.click("#change-role-own")
		if !b.has("#confirm") {
			t.Fatalf("demoting oneself is not confirmed: %s", b.page())
		}
		// Enter on the confirmation goes back: the focus is on the safe choice.
		if got, err := run(b, chromedp.Evaluate[string](`document.activeElement.id`)); err != nil || got != "back" {
			t.Errorf("the focus on a confirmation is on %q (%v)", got, err)
		}
		b.shots("console-confirm")
		if _, err := chromedp.RunResponse(b.ctx, chromedp.KeyEvent("\r")); err != nil {
			t.Fatal(err)
		}
		if got := b.path(); got != "/console/operators" {
			t.Errorf("Enter on the confirmation went to %s", got)
		}
		b.eval(`document.querySelector("#role-own").value = "viewer"`)
		b.click("#change-role-own")
		b.click("#confirm")
		plain(t, "demoting the last owner", b.text("#error"))
		if r := b.h.AdminDo("PATCH", "/admin/operators/own", map[string]any{"disabled": true}); r.Status != http.StatusConflict || r.Str("code") != "LAST_OWNER" {
			t.Errorf("disabling the last owner through the admin API: %v", r)
		}
		if r := b.h.AdminDo("PATCH", "/admin/operators/own", map[string]any{"role": "finance"}); r.Status != http.StatusConflict || r.Str("code") != "LAST_OWNER" {
			t.Errorf("demoting the last owner through the admin API: %v", r)
		}
		ops, err := b.h.AdminClient.Operators(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range ops {
			if o.Name == "own" && (o.Role != "owner" || o.Disabled) {
				t.Errorf("own after the refusals: %+v", o)
			}
		}
		b.h.NewOperator("heir", "owner")
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/operators/heir", map[string]any{"role": "viewer"})
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/operators/heir", map[string]any{"role": "owner"})
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/operators/own", map[string]any{"role": "finance"})
		if r := b.h.AdminDo("PATCH", "/admin/operators/heir", map[string]any{"disabled": true}); r.Status != http.StatusConflict {
			t.Errorf("disabling the new last owner: %v", r)
		}
	})
}
