package telegram_test

import (
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/telegram"
)

// TestSuppliers: /suppliers lists each upstream's known balance, runway,
// balance alert and state to an operator's chat, and a reseller's chat
// does not know it; an upstream gone dry (critical) is told to operators'
// chats once, and once cleared by a top-up; an upstream whose last call
// failed, as the database holds it, too; a reseller's chat hears none of
// it.
func TestSuppliers(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.h.NewOperator("sup", "support")
		code, err := e.h.AdminClient.OperatorChatLink(ctx, "sup")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "an operator's link code")
		sup := private(5002, "sup")
		e.expect(sup, "/start "+code.Code, "linked to operator sup")

		for _, name := range []string{"b", "c"} {
			u := topupd.Upstream{Name: name, BaseURL: "https://" + name + ".example", APIKey: "key-" + name, UpdatedAt: e.clock.Now()}
			if err := e.h.Store.PutUpstream(ctx, nil, u); err != nil {
				t.Fatal(err)
			}
		}
		read := func(bal topupd.Money) {
			t.Helper()
			if _, err := e.h.Store.RecordSupplierRead(ctx, topupd.SupplierRead{Upstream: "b", Balance: bal, At: e.clock.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		read(topupd.USD(12) + topupd.MoneyScale/2)
		got := e.say(sup, "/suppliers").Text
		want := "b: balance 12.50 USD, runway —, balanceAlert none, state ok\nc: balance unknown, runway —, balanceAlert none, state unchecked"
		if got != want {
			t.Errorf("/suppliers: the bot said\n%s\nwant\n%s", got, want)
		}
		e.expect(shop, "/suppliers", "I do not know that command.")

		count := func(chat int64, text string) int {
			n := 0
			for _, m := range e.api.Messages(chat) {
				if m.Text == text {
					n++
				}
			}
			return n
		}
		waitFor := func(text string) {
			t.Helper()
			e.api.WaitMessage(sup.ID, func(m botapitest.Message) bool { return m.Text == text }, wait)
		}
		low := "supplier upstream b's balance is low (critical): see /suppliers."
		if err := e.h.Store.RecordSupplierDry(ctx, "b", e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		waitFor(telegram.AlertPrefix + low)
		e.expect(sup, "/suppliers", "b: balance 0.00 USD, runway —, balanceAlert critical, state ok")
		read(topupd.USD(50)) // a top-up, with no burn: none
		waitFor(telegram.ClearedPrefix + low)

		failing := "supplier upstream (b) is failing or needs you (see /stuck)."
		if err := e.h.Store.RecordSupplierCall(ctx, "b", false, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		waitFor(telegram.AlertPrefix + failing)
		e.expect(sup, "/stuck", "Supplier upstream (b): alert, state failing, balanceAlert none")
		if err := e.h.Store.RecordSupplierCall(ctx, "b", true, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		waitFor(telegram.ClearedPrefix + failing)

		// A reconciliation with a mismatch: the supplier, the day, the count.
		day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		rec, err := e.h.Store.AddReconciliation(ctx, nil, topupd.Reconciliation{ID: topupd.NewID("rec_"), Supplier: "b",
			Period: topupd.ReconPeriod{From: day, To: day}, Source: topupd.ReconCSV, CreatedAt: e.clock.Now(), Operator: "sup",
			Mismatches: []topupd.Mismatch{{ID: 1, Kind: topupd.MismatchMissingHere, Reference: "topupd-x"}}})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(telegram.AlertPrefix + "reconciliation " + rec.ID + " with supplier b (2026-12-01) found 1 mismatches: see the console.")

		for _, text := range []string{telegram.AlertPrefix + low, telegram.ClearedPrefix + low,
			telegram.AlertPrefix + failing, telegram.ClearedPrefix + failing} {
			if n := count(sup.ID, text); n != 1 {
				t.Errorf("%q told %d times, want once", text, n)
			}
		}
		for _, m := range e.api.Messages(shop.ID) {
			if strings.HasPrefix(m.Text, telegram.AlertPrefix) || strings.HasPrefix(m.Text, telegram.ClearedPrefix) || strings.Contains(m.Text, "supplier") {
				t.Errorf("a reseller's chat heard of a supplier: %q", m.Text)
			}
		}
	})
}
