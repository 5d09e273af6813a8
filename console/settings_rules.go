package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/topupd/topupd"
)

// LargeEligibility is the eligibility threshold ($1,000) from which a
// change of it asks to be confirmed: every account that has been credited
// less is refused new orders from then on.
var LargeEligibility = topupd.USD(1000)

// maxSimMs is the most a sim delay may be, as topupd.SettingsPatch checks it
// (a day).
const maxSimMs = 86_400_000

// settingsAgain draws the settings page again after a refused form.
func (c *Console) settingsAgain(r *http.Request, s *session) func() (string, any, error) {
	return func() (string, any, error) {
		st, err := c.Service.Settings(r.Context(), s.actor)
		return "Settings", st, err
	}
}

// setRules saves the eligibility rule and the sim supplier's delays: only
// the fields the form changed, as the admin API's PATCH /admin/settings
// would. A bad value shows the form again with what was typed; a large
// threshold asks to be confirmed first.
func (c *Console) setRules(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.saveRules(w, r, s)
	return c.formFailed(w, r, s, err, "settings", c.settingsAgain(r, s))
}

// saveRules is setRules' work; refusals are fieldErrors.
func (c *Console) saveRules(w http.ResponseWriter, r *http.Request, s *session) error {
	was, err := c.Service.Settings(r.Context(), s.actor)
	if err != nil {
		return err
	}
	var p topupd.SettingsPatch
	floor, problem := parseAmount(r.PostFormValue("eligibilityMinTopupUsd"), centPlaces)
	if problem == "" && floor < 0 {
		problem = "The amount cannot be negative: 0 lets every account order."
	}
	if problem != "" {
		return fieldError{"eligibilityMinTopupUsd", problem}
	}
	if floor != was.EligibilityMinTopup {
		p.EligibilityMinTopup = &floor
	}
	for _, f := range []struct {
		name string
		was  int
		dst  **int
	}{{"simDelayMs", was.SimDelayMs, &p.SimDelayMs}, {"simCallMs", was.SimCallMs, &p.SimCallMs}} {
		v := strings.TrimSpace(r.PostFormValue(f.name))
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxSimMs {
			return fieldError{f.name, "“" + v + "” is not a number of milliseconds: type a whole number from 0 to 86400000 (a day), such as 1500 for a second and a half."}
		}
		if n != f.was {
			*f.dst = &n
		}
	}
	if p.EligibilityMinTopup == nil && p.SimDelayMs == nil && p.SimCallMs == nil {
		return c.done(w, r, "/console/settings", "Nothing changed.")
	}
	if p.EligibilityMinTopup != nil && floor >= LargeEligibility {
		q := "Refuse orders from every account credited less than " + usdText(floor) + " in all (it was " + usdText(was.EligibilityMinTopup) + ")?"
		if !c.confirmed(w, r, s, q, "/console/settings") {
			return nil
		}
	}
	if _, err := c.Service.UpdateSettings(r.Context(), s.actor, p); err != nil {
		return err
	}
	return c.done(w, r, "/console/settings", "The eligibility rule and the sim supplier's delays are saved.")
}
