package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/topupd/topupd"
)

// TestConsoleDoesWhatTheAPIDoes: on one server, an owner does in the
// console what only the admin API did before: settings beyond the two
// switches, price tiers, an account's own prices, a pack's suppliers, and
// codes pasted into the stock page. Each refused value shows the form
// again, with what was typed and the refusal in plain words.
func TestConsoleDoesWhatTheAPIDoes(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.signIn(b.setUp("own", "owner"))

	t.Run("settings", func(t *testing.T) {
		b.t = t
		settings := func() (topupd.Money, string, string) {
			r := b.h.AdminOK(http.StatusOK, "GET", "/admin/settings", nil)
			m, err := topupd.ParseMoney(r.Num("eligibilityMinTopupUsd"))
			if err != nil {
				t.Fatalf("settings: %v: %v", r, err)
			}
			return m, r.Num("simDelayMs"), r.Num("simCallMs")
		}
		b.open("/console/settings")
		b.fill(map[string]string{"#eligibility": "12.345", "#sim-delay": "1500"})
		b.click("#save-rules")
		plain(t, "an eligibility of 12.345", b.fieldError("eligibility"))
		if got := b.value("#eligibility"); got != "12.345" {
			t.Errorf("the eligibility field after the refusal: %q", got)
		}
		if got := b.value("#sim-delay"); got != "1500" {
			t.Errorf("the sim delay field after the refusal: %q", got)
		}
		b.fill(map[string]string{"#eligibility": "50", "#sim-delay": "1.5s"})
		b.click("#save-rules")
		plain(t, "a sim delay of 1.5s", b.fieldError("sim-delay"))
		if m, delay, _ := settings(); m != 0 || delay != "0" {
			t.Errorf("after refusals the settings are %s and %s ms", m.Dollars(), delay)
		}
		b.fill(map[string]string{"#eligibility": "2,000", "#sim-delay": "1500"})
		b.click("#save-rules")
		if q := b.text("#question"); !strings.Contains(q, "$2,000.00") {
			t.Errorf("a large eligibility's question: %q", q)
		}
		b.click("#back")
		b.fill(map[string]string{"#eligibility": "50", "#sim-delay": "1500"})
		b.click("#save-rules")
		plain(t, "the settings saved", b.text("#flash"))
		if m, delay, call := settings(); m != topupd.USD(50) || delay != "1500" || call != "0" {
			t.Errorf("the settings saved are %s, %s ms and %s ms", m.Dollars(), delay, call)
		}
		if got := b.value("#eligibility"); got != "50.00" {
			t.Errorf("the eligibility field shows %q", got)
		}
		b.shots("console-settings-rules")
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/settings", map[string]any{"eligibilityMinTopupUsd": 0, "simDelayMs": 0})
	})
}
