package telegram_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/telegram"
)

// ticketText finds a new ticket's id, amount and memo in the bot's answer.
var ticketText = regexp.MustCompile(`Deposit ticket (dep_\w+) is open\.\nTransfer exactly ([0-9.]+) USD to BCA, account 0123456789 \(PT Topup Jaya\), ` +
	`with the memo (TPD-\w+) in the transfer's reference, before (\d{4}-\d\d-\d\d \d\d:\d\d) UTC\.`)

// TestDepositFromChat, on both stores: /deposit refuses bad amounts and,
// without a deposit bank, opens nothing; /deposit <usd> opens a ticket
// and answers the exact amount, the memo, the bank and the expiry, as the
// admin API holds them; a redelivered /deposit opens no second ticket;
// /deposit alone lists the pending ones (and one awaiting a second
// operator); a fourth is refused. The account's chats are told once of a
// confirmation, with the amount credited beside the amount asked and the
// balance (and not told of the credit again), of a rejection with its
// reason, and of an expiry; another account's chat hears nothing. The
// openings are in the action log under the chat.
func TestDepositFromChat(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a, b := e.h.NewAccount("10", nil), e.h.NewAccount("10", nil)
		shop, other, stranger := private(1001, "shop"), private(1002, "shop2"), private(1003, "b")
		e.link(shop, a.ID)
		e.link(other, a.ID)
		e.link(stranger, b.ID)
		notice := func(c botapitest.Chat, want string) {
			t.Helper()
			e.api.WaitMessage(c.ID, func(m botapitest.Message) bool {
				return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, want)
			}, wait)
		}

		e.expect(shop, "/deposit 50", "Refused: the operator has set no deposit bank")
		e.h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"depositBank": map[string]any{"bankName": "BCA",
			"accountNumber": "0123456789", "accountHolder": "PT Topup Jaya"}, "depositTicketHours": 24, "depositSecondApprovalAboveUsd": 500})
		for _, bad := range []string{"/deposit lots", "/deposit 0.99", "/deposit 100000.01", "/deposit 10.125", "/deposit -5"} {
			e.expect(shop, bad, "must be a number of USD from 1 to 100000")
		}
		e.expect(shop, "/deposit 10 20", "Send /deposit <usd>")
		e.expect(shop, "/deposit", "No deposit ticket is pending")

		open := func(c botapitest.Chat, text string) (id, amount, memo string) {
			t.Helper()
			m := e.say(c, text)
			got := ticketText.FindStringSubmatch(m.Text)
			if got == nil {
				t.Fatalf("%q: the bot said %q, not a ticket", text, m.Text)
			}
			d := e.h.AdminOK(http.StatusOK, "GET", "/admin/deposits/"+got[1], nil)
			expires, _ := time.Parse(time.RFC3339, d.Str("expiresAt"))
			if d.Str("accountId") != a.ID || fmt.Sprint(d.Body["amountUsd"]) != strings.TrimRight(strings.TrimRight(got[2], "0"), ".") || d.Str("memo") != got[3] || d.Str("status") != "pending" ||
				expires.UTC().Format("2006-01-02 15:04") != got[4] {
				t.Errorf("the ticket the bot told of (%q) is held as %s", m.Text, d)
			}
			return got[1], got[2], got[3]
		}
		first, firstAmount, firstMemo := open(shop, "/deposit 100")
		if !strings.HasPrefix(firstAmount, "100.") || firstAmount == "100.00" {
			t.Errorf("a ticket for 100 asks for %s, not 100 and some cents", firstAmount)
		}

		// A /deposit acted on, then delivered again, opens one ticket.
		tickets := func() int {
			r := e.h.AdminOK(http.StatusOK, "GET", "/admin/deposits?accountId="+a.ID, nil)
			return len(r.Body["deposits"].([]any))
		}
		e.api.SetBlocked(shop.ID, true)
		upd := e.api.Send(shop, "/deposit 600")
		for deadline := time.Now().Add(wait); tickets() != 2 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if n := tickets(); n != 2 {
			t.Fatalf("after /deposit 600: %d tickets, want 2", n)
		}
		e.api.SetBlocked(shop.ID, false)
		e.api.RequeueFrom(upd)
		list := e.expect(shop, "/deposit", "Pending deposit tickets:")
		if n := tickets(); n != 2 {
			t.Errorf("after the update came again: %d tickets, want 2", n)
		}
		big := ""
		for _, d := range e.h.AdminOK(http.StatusOK, "GET", "/admin/deposits?accountId="+a.ID, nil).Body["deposits"].([]any) {
			if id := d.(map[string]any)["depositId"].(string); id != first {
				big = id
			}
		}
		if !strings.Contains(list.Text, first+": Transfer exactly "+firstAmount+" USD") || !strings.Contains(list.Text, firstMemo) ||
			!strings.Contains(list.Text, big+": Transfer exactly 600.") {
			t.Errorf("/deposit lists %q", list.Text)
		}
		third, _, _ := open(other, "/deposit 20")
		e.expect(shop, "/deposit 30", "Refused: 3 tickets are pending")

		// Above the threshold, the first confirmation awaits a second.
		fin := e.h.NewOperator("fin", "finance")
		e.h.AdminOK(http.StatusOK, "POST", "/admin/deposits/"+big+"/confirm", map[string]any{"bankRef": "BNK-600", "receivedUsd": 600})
		if got := e.say(shop, "/deposit").Text; !strings.Contains(got, big+": 600.00 USD received, waiting for a second operator") {
			t.Errorf("/deposit with one awaiting a second: %q", got)
		}
		if r := e.h.AdminAs(fin, "POST", "/admin/deposits/"+big+"/confirm", map[string]any{"bankRef": "BNK-600"}); r.Status != 200 {
			t.Fatalf("the second confirmation: %s", r)
		}
		notice(shop, "Deposit "+big+" is confirmed: 600.00 USD credited (the ticket asked for ")
		notice(other, "600.00 USD arrived); the balance is 610.00 USD.")

		e.h.AdminOK(http.StatusOK, "POST", "/admin/deposits/"+first+"/reject", map[string]any{"reason": "no transfer with this memo arrived"})
		notice(other, "Deposit "+first+" ("+firstAmount+" USD, memo "+firstMemo+") was rejected: no transfer with this memo arrived")
		e.clock.Advance(25 * time.Hour)
		notice(shop, "Deposit "+third+" (20.")
		notice(shop, "expired unpaid")
		e.expect(shop, "/balance", "Balance: 610.00 USD")

		for _, c := range []botapitest.Chat{shop, other} {
			if n := countMessages(e.api.Messages(c.ID), "is confirmed"); n != 1 {
				t.Errorf("chat %d was told of the confirmation %d times", c.ID, n)
			}
			if n := countMessages(e.api.Messages(c.ID), "A credit of"); n != 0 {
				t.Errorf("chat %d was told of the deposit's credit apart from its confirmation", c.ID)
			}
		}
		for _, m := range e.api.Messages(stranger.ID) {
			if strings.HasPrefix(m.Text, telegram.NoticePrefix) {
				t.Errorf("another account's chat was told: %q", m.Text)
			}
		}
		acts, err := e.h.AdminClient.Actions(t.Context(), url.Values{"action": {"deposit.open"}, "limit": {"100"}})
		if err != nil {
			t.Fatal(err)
		}
		var by []string
		for i := len(acts.Actions) - 1; i >= 0; i-- {
			by = append(by, acts.Actions[i].Operator)
		}
		if got := strings.Join(by, " "); got != "chat:1001 chat:1001 chat:1002" {
			t.Errorf("the openings in the action log are by %q", got)
		}
	})
}
