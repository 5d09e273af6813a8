package telegram_test

import (
	"strings"
	"testing"
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
