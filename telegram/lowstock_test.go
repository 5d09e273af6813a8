package telegram_test

import (
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// TestLowStockAtAlerts: a pack's lowStockAt replaces the default for the
// operator's chat: its alert is told once when orders bring the stock to
// it (not again for the orders after), and once cleared when stock is
// added above it; a pack whose level is below its stock is not low,
// under 10 codes or not.
func TestLowStockAtAlerts(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog() // 10 keys, 5 gift cards: the cards are low by the default
		e.h.AdminOK(200, "PATCH", "/admin/products/"+topupdtest.PIDKey, map[string]any{"lowStockAt": 8})
		a := e.h.NewAccount("100", nil)
		e.h.NewOperator("sup", "support")
		code, err := e.h.AdminClient.OperatorChatLink(t.Context(), "sup")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "an operator's link code")
		sup := private(5003, "sup")
		deadline := time.Now().Add(wait)
		for time.Now().Before(deadline) { // the cards' alert, before the chat is linked
			if told, err := e.h.Store.BotAlerts(t.Context()); err == nil && len(told) > 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		e.expect(sup, "/start "+code.Code, "Alerts now:")
		waitFor := func(text string) {
			t.Helper()
			e.api.WaitMessage(sup.ID, func(m botapitest.Message) bool { return m.Text == text }, wait)
		}
		low := "pack " + topupdtest.PIDKey + " is low on stock (8 codes or fewer)."
		e.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": e.h.Trx(), "quantity": 2})
		waitFor(telegram.AlertPrefix + low)
		e.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": e.h.Trx(), "quantity": 1})
		e.h.AddStock(topupdtest.PIDKey, 5) // 12
		waitFor(telegram.ClearedPrefix + low)
		e.h.AdminOK(200, "PATCH", "/admin/products/"+topupdtest.PIDGift, map[string]any{"lowStockAt": 2})
		cards := telegram.ClearedPrefix + "pack " + topupdtest.PIDGift + " is low on stock (under 10 codes)."
		waitFor(cards)
		for _, text := range []string{telegram.AlertPrefix + low, telegram.ClearedPrefix + low, cards} {
			n := 0
			for _, m := range e.api.Messages(sup.ID) {
				if m.Text == text {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%q told %d times", text, n)
			}
		}
	})
}
