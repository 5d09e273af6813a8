package telegram_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/botapitest"
)

// TestBadTextChat: a command holding a NUL byte is refused in words, on
// both databases, in a reseller's and an operator's chat alike: never
// "something went wrong", never looked up, nothing made. (Invalid UTF-8
// cannot arrive: the Bot API's JSON carries text.)
func TestBadTextChat(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a := e.h.NewAccount("10", nil)
		shop := private(7001, "shop")
		e.link(shop, a.ID)
		e.h.NewOperator("sup", "support")
		code, err := e.h.AdminClient.OperatorChatLink(t.Context(), "sup")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "an operator's link code")
		sup := private(7002, "sup")
		e.expect(sup, "/start "+code.Code, "linked to operator sup")
		for _, c := range []struct {
			name string
			chat botapitest.Chat
			text string
		}{
			{"a reseller's /order", shop, "/order trx\x00-1"},
			{"a reseller's /order of an order id", shop, "/order ord_\x00abc"},
			{"a reseller's /newkey", shop, "/newkey shop\x00bot"},
			{"an operator's /find", sup, "/find trx\x00-1"},
		} {
			m := e.say(c.chat, c.text)
			if !strings.Contains(m.Text, "NUL byte") {
				t.Errorf("%s: the bot said %q, want the text refused", c.name, m.Text)
			}
		}
		e.expect(shop, "/order nothing-here", "No order")
		keys, err := e.h.AdminClient.Keys(t.Context(), a.ID)
		if err != nil || len(keys) != 1 {
			t.Errorf("keys after a refused /newkey: %+v, %v", keys, err)
		}
	})
}
