package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestStopsAndOffSale (issue 22, points 11 and 13), on one server:
//   - orders off: the setting reads in plain words ("Stop taking orders",
//     "Take orders again"), and while orders are stopped every console
//     page shows a banner that says so;
//   - taking a line or a pack off sale asks first, with the safe choice
//     focused, and says how many of its orders are processing; going back
//     leaves it on sale.
func TestStopsAndOffSale(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.h.Settings(map[string]any{"simDelayMs": 86_400_000}) // top-ups stay processing
	own := b.setUp("own", "owner")
	b.signIn(own)

	t.Run("orders off", func(t *testing.T) {
		b.open("/console/")
		if b.has("#orders-off") {
			t.Errorf("a banner while orders are taken: %q", b.text("#orders-off"))
		}
		b.open("/console/settings")
		if got := b.text("#setting-ordersDisabled button"); got != "Stop taking orders…" {
			t.Errorf("the switch while orders are taken: %q, want Stop taking orders…", got)
		}
		b.click("#setting-ordersDisabled button")
		if got := b.text("#question"); !strings.HasPrefix(got, "Stop taking orders?") {
			t.Errorf("the confirmation: %q", got)
		}
		b.click("#confirm")
		for _, path := range []string{"/console/", "/console/orders", "/console/catalog", "/console/settings"} {
			b.open(path)
			if !b.has("#orders-off") || !strings.Contains(b.text("#orders-off"), "Orders are stopped") {
				t.Errorf("%s with orders stopped: no banner", path)
			}
		}
		if got := b.text("#setting-ordersDisabled button"); got != "Take orders again…" {
			t.Errorf("the switch while orders are stopped: %q, want Take orders again…", got)
		}
		b.confirm("#setting-ordersDisabled button")
		if b.has("#orders-off") {
			t.Errorf("the banner stays once orders are taken again")
		}
	})

	t.Run("off sale", func(t *testing.T) {
		a := b.h.NewAccount("50", nil)
		for range 2 {
			b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123", "trxid": b.h.Trx()})
		}
		focused := func() string {
			t.Helper()
			id, err := run(b, chromedp.Evaluate[string](`document.activeElement.id`))
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		status := func(pid string) string {
			t.Helper()
			packs, err := b.h.AdminClient.Products(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packs {
				if p.PID == pid {
					return p.Status
				}
			}
			return "missing"
		}
		pack := `form[action="/console/catalog/packs/` + topupdtest.PIDPubg + `/status"] button`
		b.open("/console/catalog")
		b.click(pack)
		if !b.has("#confirm") {
			t.Fatalf("taking a pack off sale asks nothing: %s", b.page())
		}
		if got := b.text("#question"); !strings.Contains(got, "2 of its orders are processing") {
			t.Errorf("the confirmation: %q, want the 2 orders processing", got)
		}
		if got := focused(); got != "back" {
			t.Errorf("the focus is on %q, want the safe choice (back)", got)
		}
		b.click("#back")
		if got := status(topupdtest.PIDPubg); got != "active" {
			t.Errorf("after going back the pack is %s", got)
		}
		b.open("/console/catalog")
		b.confirm(pack)
		if got := status(topupdtest.PIDPubg); got != "disabled" {
			t.Errorf("after confirming the pack is %s", got)
		}

		b.open("/console/catalog")
		b.click(`form[action="/console/catalog/lines/ffmena/status"] button`)
		if got := b.text("#question"); !strings.Contains(got, "None of its orders is processing") {
			t.Errorf("the line's confirmation: %q", got)
		}
		b.open("/console/catalog/lines/pubg")
		b.fill(map[string]string{"[name=status]": "disabled"})
		b.click("#save-line")
		if got := b.text("#question"); !strings.Contains(got, "2 of its orders are processing") {
			t.Errorf("the line form's confirmation: %q", got)
		}

		// A pack form that both takes the pack off sale and changes its
		// price a lot asks about both at once: one "yes" is not taken for
		// the other.
		b.open("/console/catalog/packs/" + topupdtest.PIDPubgBig)
		b.fill(map[string]string{"[name=status]": "disabled", "#price": "100"})
		b.click("#save-pack")
		if got := b.text("#question"); !strings.Contains(got, "large price") || !strings.Contains(got, "off sale") {
			t.Errorf("the pack form's confirmation: %q, want the price and the sale", got)
		}
		b.click("#confirm")
		if got := status(topupdtest.PIDPubgBig); got != "disabled" {
			t.Errorf("after confirming the pack form the pack is %s", got)
		}
	})
}
