package telegram_test

import (
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// TestDisputeFromChat, on both stores: /dispute refuses a bad form and a
// bad reason, and in words an unknown order and a second open dispute;
// it disputes a whole completed order and answers its id and dueAt, as
// the reseller API reads it; an operator's chat is told of the new
// dispute, and again when it is overdue, once each.
func TestDisputeFromChat(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.h.NewOperator("fin", "finance")
		code, err := e.h.AdminClient.OperatorChatLink(t.Context(), "fin")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "an operator's link code")
		fin := private(5001, "fin")
		e.expect(fin, "/start "+code.Code, "linked to operator fin")
		o := e.h.WaitOrder(a, e.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": e.h.Trx()}).Str("orderId"))

		e.expect(shop, "/dispute", "Send /dispute <orderId> <reason> [detail]")
		e.expect(shop, "/dispute "+o.Str("orderId")+" broken", "the reason is one of code_invalid")
		e.expect(shop, "/dispute ord_nope code_used", "Refused")
		m := e.expect(shop, "/dispute "+o.Str("orderId")+" code_used the store says redeemed", "is open; the operator answers by")
		id := strings.Fields(m.Text)[1]
		if r := e.h.Do("GET", "/disputes/"+id, a.Key, nil); r.Status != 200 || r.Str("reason") != "code_used" || r.Str("detail") != "the store says redeemed" ||
			len(r.Body["codes"].([]any)) != 1 {
			t.Errorf("the chat's dispute as the API reads it: %s", r)
		}
		e.expect(shop, "/dispute "+o.Str("orderId")+" other", "Refused")

		opened := telegram.AlertPrefix + "dispute " + id + " of order " + o.Str("orderId") + " (code_used) is open"
		e.api.WaitMessage(fin.ID, func(m botapitest.Message) bool { return strings.HasPrefix(m.Text, opened) }, wait)
		e.clock.Advance(49 * time.Hour)
		overdue := telegram.AlertPrefix + "dispute " + id + " of order " + o.Str("orderId") + " is overdue"
		e.api.WaitMessage(fin.ID, func(m botapitest.Message) bool { return strings.HasPrefix(m.Text, overdue) }, wait)
		for _, prefix := range []string{opened, overdue} {
			if n := countPrefixed(e.api.Messages(fin.ID), prefix); n != 1 {
				t.Errorf("%q told %d times", prefix, n)
			}
		}
		for _, m := range e.api.Messages(shop.ID) {
			if strings.HasPrefix(m.Text, telegram.AlertPrefix) {
				t.Errorf("a reseller's chat heard an operator alert: %q", m.Text)
			}
		}
	})
}

// countPrefixed counts the messages that start with prefix.
func countPrefixed(ms []botapitest.Message, prefix string) int {
	n := 0
	for _, m := range ms {
		if strings.HasPrefix(m.Text, prefix) {
			n++
		}
	}
	return n
}
