package telegram_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
	"github.com/topupd/topupd/telegram"
)

// TestUpdateActedOnOnce: the bot makes a key for /newkey but cannot
// answer (the answer is lost, as in a crash between acting and
// answering); Telegram delivers the update again, and no second key is
// made.
func TestUpdateActedOnOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		keys := func() int {
			ks, err := e.h.AdminClient.Keys(t.Context(), a.ID)
			if err != nil {
				t.Fatal(err)
			}
			return len(ks)
		}
		before := keys()
		e.api.SetBlocked(shop.ID, true)
		id := e.api.Send(shop, "/newkey once")
		deadline := time.Now().Add(wait)
		for keys() == before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if keys() != before+1 {
			t.Fatalf("the key was not made: %d keys", keys())
		}
		e.api.SetBlocked(shop.ID, false)
		e.api.RequeueFrom(id)
		e.expect(shop, "/keys", "once") // answered after the redelivered update
		if got := keys(); got != before+1 {
			t.Errorf("after the update came again: %d keys, want %d", got, before+1)
		}
		// The bot confirms updates with its next poll, which may come
		// after the answer above.
		for end := time.Now().Add(wait); e.api.Pending() != 0 && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		if e.api.Pending() != 0 {
			t.Errorf("%d updates left unconfirmed", e.api.Pending())
		}
	})
}

// TestRateLimit: a chat's 21st command in a minute is refused with one
// warning; the rest of that minute is silent; a minute on, it is
// answered again. Another chat is not held back.
func TestRateLimit(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a := e.h.NewAccount("10", nil)
		shop, other := private(1001, "shop"), private(1002, "other")
		e.link(shop, a.ID) // one command
		for range 19 {
			e.api.Send(shop, "/balance")
		}
		e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool { return len(e.api.Messages(shop.ID)) == 20 }, wait)
		e.expect(shop, "/balance", "Too many commands")
		for range 3 {
			e.api.Send(shop, "/balance")
		}
		e.expect(other, "/help", "/start") // updates are handled in order: the silent ones are behind us
		if n := len(e.api.Messages(shop.ID)); n != 21 {
			t.Errorf("%d answers in the chat, want 20 and one warning", n)
		}
		e.clock.Advance(time.Minute)
		e.expect(shop, "/balance", "Balance: 10.00 USD")
	})
}

// TestNotices: every chat of an account hears of changes to it, whoever
// made them (the operator, or another chat), and of credits; a chat of
// another account hears nothing.
func TestNotices(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a, b := e.h.NewAccount("10", nil), e.h.NewAccount("10", nil)
		one, two, stranger := private(1001, "one"), private(1002, "two"), private(1003, "b")
		e.link(one, a.ID)
		e.link(two, a.ID)
		e.link(stranger, b.ID)
		notice := func(c botapitest.Chat, want string) {
			t.Helper()
			e.api.WaitMessage(c.ID, func(m botapitest.Message) bool {
				return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, want)
			}, wait)
		}
		e.h.Credit(topupdtest.Account{ID: a.ID}, "5")
		notice(one, "A credit of 5 USD arrived; the balance is 15 USD. (by the operator (root))")
		notice(two, "A credit of 5 USD arrived")
		e.expect(one, "/ip add 10.1.2.3", "Added")
		notice(two, "The allow-list is now 10.1.2.3. (by a linked chat)")
		notice(one, "The allow-list is now 10.1.2.3.")
		if _, err := e.h.AdminClient.CreateKey(t.Context(), a.ID, "from the operator"); err != nil {
			t.Fatal(err)
		}
		notice(two, "(from the operator). (by the operator (root))")
		// A credit sent again under its reference credits nothing: told once.
		for range 2 {
			if _, err := e.h.AdminClient.Credit(t.Context(), a.ID, client.USD(3), "bank-77"); err != nil {
				t.Fatal(err)
			}
		}
		e.expect(one, "/ip add 10.1.2.4", "Added")
		notice(two, "The allow-list is now 10.1.2.3, 10.1.2.4.")
		if n := countMessages(e.api.Messages(two.ID), "A credit of"); n != 2 { // of 5, then of 3 once
			t.Errorf("%d credits told, want 2: a credit sent twice under one reference was told again", n)
		}
		e.expect(stranger, "/balance", "10.00")
		for _, m := range e.api.Messages(one.ID) {
			if strings.Contains(m.Text, "A credit of 10 USD") || strings.Contains(m.Text, a.KeyID) {
				t.Errorf("a chat was told of a change made before it was linked: %q", m.Text)
			}
		}
		for _, m := range e.api.Messages(stranger.ID) {
			if strings.HasPrefix(m.Text, telegram.NoticePrefix) {
				t.Errorf("another account's chat was told: %q", m.Text)
			}
		}
	})
}

// TestBalanceAlert: the alert fires once when orders take the balance
// below the amount, not again while it stays below, and once more after
// a credit lifts it and orders take it below again; set while the
// balance is below already, it waits for the next crossing; off stops it.
func TestBalanceAlert(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a := e.h.NewAccount("6", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.expect(shop, "/alert balance lots", "must be a number")
		e.expect(shop, "/alert balance 5", "falls below 5.00 USD")
		order := func() {
			e.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123456789", "trxid": e.h.Trx()})
		}
		alerts := func() int {
			n := 0
			for _, m := range e.api.Messages(shop.ID) {
				if strings.Contains(m.Text, "below your alert") {
					n++
				}
			}
			return n
		}
		waitNotice := func(want string) {
			t.Helper()
			e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool {
				return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, want)
			}, wait)
		}
		order()
		order() // 6 - 1.78 = 4.22
		waitNotice("The balance is 4.22 USD, below your alert of 5.00 USD.")
		order() // still below: no second alert
		e.h.Credit(topupdtest.Account{ID: a.ID}, "10")
		waitNotice("the balance is 13.33 USD")
		if n := alerts(); n != 1 {
			t.Errorf("%d alerts after one crossing", n)
		}
		// The bot must see the balance above the alert before orders take
		// it below again, however slowly it runs.
		deadline := time.Now().Add(wait)
		for {
			chats, err := e.h.Store.BalanceAlertChats(t.Context())
			if err == nil && len(chats) == 1 && !chats[0].BalanceLow {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the bot never saw the balance rise: %+v, %v", chats, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		for range 10 {
			order()
		}
		waitNotice("The balance is 4.43 USD, below your alert")
		if n := alerts(); n != 2 {
			t.Errorf("%d alerts after two crossings", n)
		}
		e.expect(shop, "/alert balance 100", "below that already")
		e.expect(shop, "/alert balance off", "alert is off")
		acts, err := e.h.AdminClient.Actions(t.Context(), url.Values{"operator": {"chat:1001"}, "action": {"chat.balance-alert"}})
		if err != nil || len(acts.Actions) != 3 {
			t.Errorf("the alert's changes in the action log: %d, %v", len(acts.Actions), err)
		}
	})
}

// TestBotAPIAway: while the Bot API is away the reseller API answers as
// ever; when it comes back the bot answers what was sent meanwhile, once.
func TestBotAPIAway(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.api.SetDown(true)
		polls := e.api.Calls("getUpdates")
		e.api.Send(shop, "/balance")
		for i := range 20 {
			if r := e.h.Do("GET", "/balance", a.Key, nil); r.Status != 200 {
				t.Fatalf("the reseller API while the Bot API is away (call %d): %v", i, r)
			}
		}
		e.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123456789", "trxid": e.h.Trx()})
		deadline := time.Now().Add(wait)
		for e.api.Calls("getUpdates") < polls+2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // the bot keeps trying, with backoff
		}
		sends := e.api.Calls("sendMessage")
		e.h.Credit(topupdtest.Account{ID: a.ID}, "2") // told once the Bot API is back, not lost
		for e.api.Calls("sendMessage") == sends && time.Now().Before(deadline.Add(wait)) {
			time.Sleep(20 * time.Millisecond) // until the bot has tried to tell it, and failed
		}
		e.api.SetDown(false)
		e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool { return strings.Contains(m.Text, "Balance: 11.11 USD") }, wait)
		e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool {
			return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, "A credit of 2 USD arrived")
		}, wait)
		n := 0
		for _, m := range e.api.Messages(shop.ID) {
			if strings.HasPrefix(m.Text, "Balance:") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the command sent while away was answered %d times", n)
		}
	})
}

// TestNoticesAcrossRestart: a change made while no node runs the bot is
// told when a bot starts again on the same database, and what was told
// before is not told again.
func TestNoticesAcrossRestart(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.h.Credit(topupdtest.Account{ID: a.ID}, "1")
		told := func(want string) {
			t.Helper()
			e.api.WaitMessage(shop.ID, func(m botapitest.Message) bool {
				return strings.HasPrefix(m.Text, telegram.NoticePrefix) && strings.Contains(m.Text, want)
			}, wait)
		}
		told("A credit of 1 USD arrived")
		e.h.App.Close() // no bot runs now
		quiet := topupdtest.New(t, topupdtest.WithDB(e.h.DB), topupdtest.WithSecretKey(e.h.SecretKey), topupdtest.WithClock(e.clock))
		if _, err := quiet.AdminClient.Credit(t.Context(), a.ID, client.USD(2), "while-away"); err != nil {
			t.Fatal(err)
		}
		topupdtest.New(t, topupdtest.WithDB(e.h.DB), topupdtest.WithSecretKey(e.h.SecretKey), topupdtest.WithClock(e.clock), topupdtest.WithTelegram(e.api.URL(), token))
		told("A credit of 2 USD arrived; the balance is 13 USD")
		n := 0
		for _, m := range e.api.Messages(shop.ID) {
			if strings.Contains(m.Text, "A credit of 1 USD") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the credit before the restart was told %d times", n)
		}
	})
}

// countMessages counts the messages holding text.
func countMessages(msgs []botapitest.Message, text string) int {
	n := 0
	for _, m := range msgs {
		if strings.Contains(m.Text, text) {
			n++
		}
	}
	return n
}

// TestEveryCommandOnce: every command of every kind of chat, each sent
// once and delivered again by Telegram, is answered once and changes
// what it changes once: a command that changes nothing has its update
// recorded before it answers, one that changes something with its
// change. A command added to a table without a conversation here fails
// the test.
func TestEveryCommandOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a := e.h.NewAccount("10", nil)
		code, err := e.h.AdminClient.ChatLink(t.Context(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "a link code")
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		e.h.NewOperator("fin", "finance")
		opCode, err := e.h.AdminClient.OperatorChatLink(t.Context(), "fin")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(opCode.Code, "an operator's link code")
		fin := private(5001, "fin")
		e.expect(fin, "/start "+opCode.Code, "linked to operator fin")

		// Each command's conversations: a change, and a change refused
		// (answered instead), for the commands that change something.
		type sample struct{ text, want string }
		for _, kind := range []struct {
			who     string
			chat    func(i int) botapitest.Chat
			samples map[string][]sample
		}{
			{"unlinked", func(i int) botapitest.Chat { return private(int64(3001+i), "new") }, map[string][]sample{
				"/start": {{"/start not-a-code", "unknown, used or expired"}, {"/start " + code.Code, "linked to account " + a.ID}},
				"/help":  {{"/help", "/start <code>"}},
			}},
			{"reseller", func(int) botapitest.Chat { return shop }, map[string][]sample{
				"/balance": {{"/balance", "Balance: 10.00 USD"}},
				"/keys":    {{"/keys", "Your keys"}},
				"/newkey":  {{"/newkey once", "shown only here"}},
				"/revoke":  {{"/revoke " + a.KeyID, "Revoke key " + a.KeyID}},
				"/rotate":  {{"/rotate key_nope", "Refused"}, {"/rotate " + a.KeyID, "keeps working until"}},
				"/api":     {{"/api maybe", "/api on or /api off"}, {"/api off", "API access is off"}},
				"/ip":      {{"/ip rm 10.0.0.1", "not in the allow-list"}, {"/ip add 10.0.0.1", "Added 10.0.0.1"}},
				"/order":   {{"/order nothing-here", "No order"}},
				"/alert":   {{"/alert balance lots", "must be a number"}, {"/alert balance 5", "falls below 5.00 USD"}},
				"/webhook": {{"/webhook add http://203.0.113.9/h", "Refused"}, {"/webhook add https://203.0.113.9/h", "shown only here"}},
				"/deposit": {{"/deposit 10", "Refused: the operator has set no deposit bank"}, {"/deposit", "No deposit ticket is pending"}},
				"/dispute": {{"/dispute ord_nope code_used", "Refused"}, {"/dispute", "Send /dispute"}},
				"/help":    {{"/help", "/deposit <usd>"}},
			}},
			{"operator", func(int) botapitest.Chat { return fin }, map[string][]sample{
				"/stuck":     {{"/stuck", "Nothing is stuck"}},
				"/find":      {{"/find nothing-here", "No order"}},
				"/suppliers": {{"/suppliers", "No upstream is set up."}},
				"/credit":    {{"/credit " + a.ID + " 5 bank-1", "Credit 5.00 USD to " + a.ID}},
				"/help":      {{"/help", "/credit <accountId> <usd> <reference>"}},
			}},
		} {
			names := telegram.CommandNames(kind.who)
			for name := range kind.samples {
				if !slices.Contains(names, name) {
					t.Errorf("%s chats: a conversation for %s, which is not a command of theirs", kind.who, name)
				}
			}
			for i, name := range names {
				if len(kind.samples[name]) == 0 {
					t.Errorf("%s chats: no conversation for %s here: add one", kind.who, name)
				}
				for _, s := range kind.samples[name] {
					c := kind.chat(i)
					before := countAsked(e.api.Messages(c.ID))
					id, m := e.sayID(c, s.text)
					if !strings.Contains(m.Text, s.want) {
						t.Errorf("%s: the bot said %q, want %q", s.text, m.Text, s.want)
					}
					if strings.Contains(m.Text, "shown only here") {
						e.h.Logs.Secret(strings.Fields(m.Text[strings.Index(m.Text, "safe:")+5:])[0], "a key made in a chat")
					}
					e.api.RequeueFrom(id)
					e.say(c, "/help") // handled after the update delivered again
					if n := countAsked(e.api.Messages(c.ID)) - before; n != 2 {
						t.Errorf("%s delivered twice, then /help: %d answers, want 2 (one each)", s.text, n)
					}
				}
			}
		}
		acts, err := e.h.AdminClient.Actions(t.Context(), url.Values{"operator": {"chat:1001"}, "limit": {"100"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := len(acts.Actions) - 1; i >= 0; i-- {
			got = append(got, acts.Actions[i].Action)
		}
		if want := "chat.link key.create key.rotate account.update webhook.create account.update chat.balance-alert"; strings.Join(got, " ") != want {
			t.Errorf("the reseller chat's changes:\n%s\nwant each once:\n%s", strings.Join(got, " "), want)
		}
		if keys, err := e.h.AdminClient.Keys(t.Context(), a.ID); err != nil || len(keys) != 3 {
			t.Errorf("keys after /newkey and /rotate, each delivered twice: %d, %v; want 3", len(keys), err)
		}
		if acct, err := e.h.AdminClient.Account(t.Context(), a.ID); err != nil || acct.BalanceUSD != client.USD(10) {
			t.Errorf("the balance after /credit was asked, never confirmed: %+v, %v", acct.BalanceUSD, err)
		}
	})
}

// countAsked counts the messages that answer the chat.
func countAsked(msgs []botapitest.Message) int {
	n := 0
	for _, m := range msgs {
		if asked(m) {
			n++
		}
	}
	return n
}
