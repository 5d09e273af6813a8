package console_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// polishPhone: at a phone's width (390 px) every menu entry and the
// signed-in name are on the screen, and an order list shows each order's
// amount and status without scrolling sideways.
func polishPhone(t *testing.T, b *tab, a topupdtest.Account) {
	t.Run("phone width", func(t *testing.T) {
		b.t = t
		b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "trxid": b.h.Trx(), "userId": "5123"})
		b.do(chromedp.EmulateViewport(390, 844))
		defer b.do(chromedp.EmulateReset())
		b.open("/console/orders")
		// Each element the operator needs, and whether it lies on the
		// screen: visible, and neither cut off nor scrolled away.
		off, err := run(b, chromedp.Evaluate[[]string](`new Promise(done => {
			const check = () => {
				const out = [];
				const onScreen = (el, what) => {
					if (!el) { out.push(what + ": missing"); return; }
					const r = el.getBoundingClientRect();
					if (r.width === 0 || r.height === 0 || r.left < 0 || r.right > window.innerWidth + 0.5) {
						out.push(what + " at " + Math.round(r.left) + "–" + Math.round(r.right) + " of " + window.innerWidth);
					}
				};
				document.querySelectorAll("header nav a").forEach(a => onScreen(a, "menu " + a.textContent.trim()));
				onScreen(document.querySelector("#whoami"), "signed-in name");
				const row = document.querySelector("table.orders tbody tr");
				onScreen(row && row.querySelector("td.num"), "amount");
				onScreen(row && row.querySelector(".badge"), "status");
				done(out);
			};
			document.readyState === "complete" ? check() : window.addEventListener("load", check);
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range off {
			t.Errorf("at 390 px: %s", o)
		}
		topupdtest.Screenshot(t, b.ctx, "console-phone-orders.png")
	})
}
