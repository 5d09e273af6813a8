package telegram_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// TestOperatorChat: an operator links their own chat with a code from the
// owner; finance credits an account after a confirmation (a reference used
// before credits nothing again), support may not; /find and /stuck answer,
// and refuse a disabled operator; the credit is in the action log under
// the operator's name.
func TestOperatorChat(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a := e.h.NewAccount("10", nil)
		linkOperator := func(name, role string, chatID int64) {
			t.Helper()
			e.h.NewOperator(name, role)
			code, err := e.h.AdminClient.OperatorChatLink(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			e.h.Logs.Secret(code.Code, "an operator's link code")
			e.expect(private(chatID, name), "/start "+code.Code, "linked to operator "+name)
		}
		linkOperator("fin", "finance", 5001)
		linkOperator("sup", "support", 5002)
		fin, sup := private(5001, "fin"), private(5002, "sup")

		ask := e.expect(fin, "/credit "+a.ID+" 25.5 bank-77", "Credit 25.50 USD to "+a.ID)
		done := e.press(fin, ask, button(t, ask, "Credit it"))
		if !strings.Contains(done.Text, "the balance is 35.50 USD") {
			t.Errorf("after the credit: %q", done.Text)
		}
		if got := e.h.Balance(a); got != "35.5" {
			t.Errorf("the balance: %s", got)
		}
		ask = e.expect(fin, "/credit "+a.ID+" 25.5 bank-77", "Credit 25.50 USD")
		if done := e.press(fin, ask, button(t, ask, "Credit it")); !strings.Contains(done.Text, "nothing was credited again") {
			t.Errorf("a repeated reference: %q", done.Text)
		}
		e.expect(fin, "/credit "+a.ID+" lots bank-78", "must be a number")
		e.expect(fin, "/credit acc_nobody 5 bank-79", "Refused")
		e.expect(sup, "/credit "+a.ID+" 5 bank-80", "may not credit")
		if got := e.h.Balance(a); got != "35.5" {
			t.Errorf("the balance after refused credits: %s", got)
		}

		trx := e.h.Trx()
		e.h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123456789", "trxid": trx})
		e.expect(sup, "/find "+trx, "of "+a.ID+": processing")
		e.expect(sup, "/find nothing-here", "No order")
		e.expect(sup, "/stuck", "Nothing is stuck")
		e.expect(sup, "/balance", "/help")
		if err := e.h.AdminClient.PatchOperator(t.Context(), "sup", map[string]any{"disabled": true}); err != nil {
			t.Fatal(err)
		}
		e.expect(sup, "/stuck", "Refused: operator sup is disabled")
		e.expect(sup, "/find "+trx, "Refused: operator sup is disabled")

		acts, err := e.h.AdminClient.Actions(t.Context(), url.Values{"operator": {"fin"}, "action": {"account.credit"}})
		if err != nil || len(acts.Actions) != 2 || acts.Actions[1].After["reference"] != "bank-77" {
			t.Errorf("fin's credits in the action log: %+v %v", acts.Actions, err)
		}
	})
}

// TestOperatorAlerts: an operator's chat hears of each alert once when it
// starts and once when it clears: a pack low on stock (the alerts already
// on are listed when the chat is linked), orders stuck past their
// deadline, and a pricing rule's rise held (back-office.md 4 (c)); a
// reseller's chat hears none of it.
func TestOperatorAlerts(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.h.NewOperator("sup", "support")
		code, err := e.h.AdminClient.OperatorChatLink(t.Context(), "sup")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "an operator's link code")
		sup := private(5002, "sup")
		// The first round of alerts may come just before or after the link.
		deadline := time.Now().Add(wait)
		var linked string
		for time.Now().Before(deadline) {
			told, err := e.h.Store.BotAlerts(t.Context())
			if err == nil && len(told) > 0 {
				linked = e.expect(sup, "/start "+code.Code, "Alerts now:").Text
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(linked, "pack "+topupdtest.PIDGift+" is low on stock") {
			t.Fatalf("the alerts listed at linking: %q", linked)
		}
		count := func(text string) int {
			n := 0
			for _, m := range e.api.Messages(sup.ID) {
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
		e.h.AddStock(topupdtest.PIDGift, 20)
		cleared := telegram.ClearedPrefix + "pack " + topupdtest.PIDGift + " is low on stock (under 10 codes)."
		waitFor(cleared)

		o := e.h.Place(a, map[string]any{"pid": topupdtest.PIDPubgManual, "userId": "5123456789", "trxid": e.h.Trx()})
		e.clock.Advance(time.Hour)
		stuck := "orders are stuck past their deadline or with an alert (see /stuck)."
		waitFor(telegram.AlertPrefix + stuck)
		e.h.AdminOK(200, "POST", "/admin/orders/"+o.Str("orderId")+"/complete", map[string]any{"codes": []string{}})
		waitFor(telegram.ClearedPrefix + stuck)
		// A pricing rule's rise held, then discarded.
		ww := "/admin/products/" + topupdtest.PIDWW
		e.h.AdminOK(200, "PATCH", ww, map[string]any{"costUsd": topupdtest.USD("0.5")})
		e.h.AdminOK(200, "PUT", "/admin/pricing-rules/ww", map[string]any{"scope": map[string]any{"pid": topupdtest.PIDWW},
			"markupPercent": topupdtest.USD("50"), "fixedUsd": topupdtest.USD("0.05")})
		e.h.AdminOK(200, "PATCH", ww, map[string]any{"costUsd": topupdtest.USD("0.7")})
		held := "pack " + topupdtest.PIDWW + "'s price is held: rule ww would raise it from 0.80 to 1.10 USD (cost 0.70); apply or discard it (Catalog, Pricing)."
		waitFor(telegram.AlertPrefix + held)
		e.h.AdminOK(200, "POST", "/admin/pricing/held/"+topupdtest.PIDWW+"/discard", nil)
		waitFor(telegram.ClearedPrefix + held)
		for _, text := range []string{cleared, telegram.AlertPrefix + stuck, telegram.ClearedPrefix + stuck, telegram.AlertPrefix + held} {
			if n := count(text); n != 1 {
				t.Errorf("%q told %d times", text, n)
			}
		}
		for _, m := range e.api.Messages(shop.ID) {
			if strings.HasPrefix(m.Text, telegram.AlertPrefix) || strings.HasPrefix(m.Text, telegram.ClearedPrefix) {
				t.Errorf("a reseller's chat heard an operator alert: %q", m.Text)
			}
		}
	})
}
