package telegram_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/botapitest"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestSandboxKeyFromChat: /newkey test makes a sandbox key, shown once and
// said to be one, whose calls see the sandbox's balance; /keys marks it,
// and only it, as sandbox; /rotate of it makes a sandbox key again.
func TestSandboxKeyFromChat(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		a := e.h.NewAccount("10", nil)
		shop := private(1001, "shop")
		e.link(shop, a.ID)
		keyIn := func(text string) (key, id string) {
			t.Helper()
			key = strings.Fields(text[strings.Index(text, "safe:")+5:])[0]
			id = strings.Fields(text[strings.Index(text, "Its id:")+7:])[0]
			e.h.Logs.Secret(key, "a sandbox key")
			return key, id
		}
		m := e.expect(shop, "/newkey test ci runner", "sandbox API key")
		key, id := keyIn(m.Text)
		if !strings.HasPrefix(key, "tpd_test_") || !strings.Contains(m.Text, "nothing real is bought or sold") {
			t.Errorf("/newkey test: %q, want a tpd_test_ key said to be a sandbox key", m.Text)
		}
		if r := e.h.Do("GET", "/balance", key, nil); r.Status != 200 || r.Num("balanceUsd") != "1000" {
			t.Errorf("the sandbox key's balance: %v, want 1000", r)
		}
		if r := e.h.Do("GET", "/balance", a.Key, nil); r.Num("balanceUsd") != "10" {
			t.Errorf("the live key's balance: %v, want 10", r)
		}
		list := e.expect(shop, "/keys", id+" ci runner")
		for _, line := range strings.Split(list.Text, "\n") {
			switch {
			case strings.HasPrefix(line, id) && !strings.HasSuffix(line, ", sandbox"):
				t.Errorf("/keys: %q, want the sandbox key marked sandbox", line)
			case strings.HasPrefix(line, a.KeyID) && strings.Contains(line, "sandbox"):
				t.Errorf("/keys: %q, want the live key unmarked", line)
			}
		}
		live := e.expect(shop, "/newkey testing", "shown only here")
		if liveKey, _ := keyIn(live.Text); strings.HasPrefix(liveKey, "tpd_test_") || strings.Contains(live.Text, "sandbox") {
			t.Errorf("/newkey testing: %q, want a live key (only the first word test makes a sandbox key)", live.Text)
		}
		rotated := e.expect(shop, "/rotate "+id, "keeps working until")
		if next, _ := keyIn(rotated.Text); !strings.HasPrefix(next, "tpd_test_") {
			t.Errorf("/rotate of a sandbox key: %q, want a sandbox key", rotated.Text)
		} else if r := e.h.Do("GET", "/balance", next, nil); r.Num("balanceUsd") != "1000" {
			t.Errorf("the rotated sandbox key's balance: %v, want 1000", r)
		}
	})
}

// TestSandboxOrdersFromChat: /order and /find find sandbox orders too,
// marked as such: by order id whichever books hold it, and by a trxid in
// both books both orders, the live one first; a reseller's chat finds its
// own sandbox's orders and never another account's.
func TestSandboxOrdersFromChat(t *testing.T) {
	eachStore(t, func(t *testing.T, e *env) {
		e.h.LoadCatalog()
		a, other := e.h.NewAccount("10", nil), e.h.NewAccount("10", nil)
		sandboxOf := func(acc topupdtest.Account) topupdtest.Account {
			r := e.h.AdminOK(http.StatusCreated, "POST", "/admin/accounts/"+acc.ID+"/keys", map[string]any{"sandbox": true})
			e.h.Logs.Secret(r.Str("apiKey"), "a sandbox key")
			return topupdtest.Account{ID: acc.ID, Key: r.Str("apiKey"), KeyID: r.Str("keyId")}
		}
		sb, otherSB := sandboxOf(a), sandboxOf(other)
		shop := private(1101, "shop")
		e.link(shop, a.ID)
		e.h.NewOperator("sup", "support")
		code, err := e.h.AdminClient.OperatorChatLink(t.Context(), "sup")
		if err != nil {
			t.Fatal(err)
		}
		e.h.Logs.Secret(code.Code, "an operator's link code")
		sup := private(5101, "sup")
		e.expect(sup, "/start "+code.Code, "linked to operator sup")

		both, sandboxOnly := e.h.Trx(), e.h.Trx()
		pubg := func(who topupdtest.Account, trx string) string {
			return e.h.Place(who, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123", "trxid": trx}).Str("orderId")
		}
		liveID, sbID := pubg(a, both), pubg(sb, both)
		onlyID, otherID := pubg(sb, sandboxOnly), pubg(otherSB, e.h.Trx())

		// before reports whether the line of x comes before the line of y.
		before := func(text, x, y string) bool {
			i, j := strings.Index(text, x), strings.Index(text, y)
			return i >= 0 && j > i
		}
		for _, c := range []struct {
			chat botapitest.Chat
			cmd  string
		}{{shop, "/order"}, {sup, "/find"}} {
			m := e.say(c.chat, c.cmd+" "+both)
			if !strings.Contains(m.Text, "names a live order and a sandbox order") ||
				!before(m.Text, "Order "+liveID+" (trxid "+both+")", "Sandbox order "+sbID+" (trxid "+both+")") {
				t.Errorf("%s of a trxid in both books: %q, want the live order, then the sandbox one marked", c.cmd, m.Text)
			}
			for asked, want := range map[string]string{sbID: sbID, sandboxOnly: onlyID} {
				if m := e.say(c.chat, c.cmd+" "+asked); !strings.HasPrefix(m.Text, "Sandbox order "+want) || strings.Contains(m.Text, "names a live order") {
					t.Errorf("%s %s: %q, want sandbox order %s alone, marked", c.cmd, asked, m.Text, want)
				}
			}
			if m := e.say(c.chat, c.cmd+" "+liveID); !strings.HasPrefix(m.Text, "Order "+liveID) {
				t.Errorf("%s %s: %q, want the live order", c.cmd, liveID, m.Text)
			}
		}
		e.expect(sup, "/find "+sbID, "of "+a.ID+": completed")
		e.expect(sup, "/find "+otherID, "Sandbox order "+otherID)
		e.expect(shop, "/order "+otherID, "No order "+otherID+" on your account")
	})
}
