package console

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Our money at each upstream (back-office.md, section 1), as the
// suppliers page and the dashboard show it: the known balance, its burn
// and runway, the balance alert and its thresholds, and the deposits we
// recorded sending each supplier.

// depositsShown is how many of an upstream's deposits the suppliers page
// lists, newest first.
const depositsShown = 5

// waitingShown is how many orders waiting for supplier funds the
// dashboard lists by name.
const waitingShown = 20

// upstreamMoney is an upstream as the console shows its money.
type upstreamMoney struct{ service.UpstreamView }

// Burn is what the upstream's orders cost there an hour, over the last 24
// hours.
func (u upstreamMoney) Burn() topupd.Money { return topupd.BurnPerHour(u.Day) }

// RunwayText is how long the known balance lasts at that burn, "10.0 h",
// or "—" while it cannot be told (no balance known, or no burn).
func (u upstreamMoney) RunwayText() string {
	h, ok := u.Upstream.Runway()
	if !ok {
		return "—"
	}
	return strconv.FormatFloat(h, 'f', 1, 64) + " h"
}

// Level is the balance alert's level: none, warn or critical.
func (u upstreamMoney) Level() string {
	if u.BalanceAlert == "" {
		return topupd.BalanceAlertNone
	}
	return u.BalanceAlert
}

// LevelBadge is the badge class of the level: ok, alert (warn) or down.
func (u upstreamMoney) LevelBadge() string {
	switch u.Level() {
	case topupd.BalanceAlertWarn:
		return "alert"
	case topupd.BalanceAlertCritical:
		return "down"
	}
	return "ok"
}

// Warn is the warning threshold in hours, as a form shows it.
func (u upstreamMoney) Warn() string { return hoursText(u.WarnHours) }

// Critical is the critical threshold in hours, as a form shows it.
func (u upstreamMoney) Critical() string { return hoursText(u.CriticalHours) }

// hoursText writes hours without needless decimals: "24", "4.5".
func hoursText(h float64) string { return strconv.FormatFloat(h, 'f', -1, 64) }

// upstreamFunds is one upstream's money on the suppliers page, with the
// newest of the deposits we recorded sending it.
type upstreamFunds struct {
	upstreamMoney
	Deposits []topupd.UpstreamDeposit
	// MoreDeposits says older deposits than those listed are recorded.
	MoreDeposits bool
}

// upstreamFundsOf reads each upstream's newest deposits.
func (c *Console) upstreamFundsOf(ctx context.Context, s *session, ups []service.UpstreamView) ([]upstreamFunds, error) {
	out := make([]upstreamFunds, len(ups))
	for i, u := range ups {
		list, next, err := c.Service.UpstreamDeposits(ctx, s.actor, topupd.UpstreamDepositsQuery{Upstream: u.Name, Limit: depositsShown})
		if err != nil {
			return nil, err
		}
		out[i] = upstreamFunds{upstreamMoney: upstreamMoney{u}, Deposits: list, MoreDeposits: next != nil}
	}
	return out, nil
}

// fundsAlerts fills the dashboard's upstreams that need the operator (a
// balance alert raised, or the last call failed) and the orders waiting
// for supplier funds, among stuck, the stuck orders.
func (c *Console) fundsAlerts(ctx context.Context, s *session, d *dashData, stuck []topupd.Order) error {
	ups, err := c.Service.Upstreams(ctx, s.actor)
	if err != nil {
		return err
	}
	for _, u := range ups {
		if u.Alerting() {
			d.UpstreamAlerts = append(d.UpstreamAlerts, upstreamMoney{u})
		}
	}
	for _, o := range stuck {
		if o.Status == topupd.StatusProcessing && o.Alert == topupd.AlertWaitingFunds {
			if len(d.Waiting) < waitingShown {
				d.Waiting = append(d.Waiting, o)
			} else {
				d.MoreWaiting++
			}
		}
	}
	return nil
}

// suppliersAgain draws the suppliers page again after a refused form.
func (c *Console) suppliersAgain(r *http.Request, s *session) func() (string, any, error) {
	return func() (string, any, error) {
		d, err := c.suppliersData(r, s)
		return "Suppliers", d, err
	}
}

// fundsBack is the suppliers page at an upstream's money.
func fundsBack(name string) string { return "/console/suppliers#money-" + name }

// setUpstreamThresholds changes the runway thresholds of an upstream's
// balance alert (service.SetUpstreamThresholds); an empty field keeps its
// threshold. A refusal shows the form again with what was typed.
func (c *Console) setUpstreamThresholds(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.saveThresholds(w, r, s, r.PathValue("name"))
	return c.formFailed(w, r, s, err, "suppliers", c.suppliersAgain(r, s))
}

// saveThresholds is setUpstreamThresholds' work; refusals are fieldErrors.
func (c *Console) saveThresholds(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	warn, err := hoursField(r, "warnHours", "The warning threshold")
	if err != nil {
		return err
	}
	critical, err := hoursField(r, "criticalHours", "The critical threshold")
	if err != nil {
		return err
	}
	v, err := c.Service.SetUpstreamThresholds(r.Context(), s.actor, name, warn, critical)
	if topupd.CodeOf(err) == topupd.EInvalidBody {
		return thresholdsRefusal(err, warn, critical)
	} else if err != nil {
		return err
	}
	return c.done(w, r, fundsBack(name), fmt.Sprintf("Upstream %s warns when our balance there lasts less than %s hours, and is critical below %s hours.",
		name, hoursText(v.WarnHours), hoursText(v.CriticalHours)))
}

// hoursField reads a number of hours from a form field: nil when empty.
func hoursField(r *http.Request, name, label string) (*float64, error) {
	v := strings.TrimSpace(r.PostFormValue(name))
	if v == "" {
		return nil, nil
	}
	h, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(h) || math.IsInf(h, 0) {
		return nil, fieldError{name, label + ": “" + v + "” is not a number of hours. Type one such as 24 or 4.5."}
	}
	return &h, nil
}

// thresholdsRefusal says in plain words why the service refused the
// thresholds, beside the field at fault.
func thresholdsRefusal(err error, warn, critical *float64) error {
	switch {
	case warn != nil && !(*warn > 0):
		return fieldError{"warnHours", "The warning threshold is a number of hours above zero."}
	case critical != nil && !(*critical > 0):
		return fieldError{"criticalHours", "The critical threshold is a number of hours above zero."}
	case strings.Contains(err.Error(), "criticalHours must not be above warnHours"):
		return fieldError{"criticalHours", "The critical threshold must not be above the warning threshold: an upstream warns first, then turns critical."}
	}
	var de *topupd.Error
	if errors.As(err, &de) {
		return fieldError{"warnHours", sentence(de.Detail)}
	}
	return err
}

// addUpstreamDeposit records money we sent a supplier (service.
// AddUpstreamDeposit): once per reference, a repeat recording nothing.
// A refusal shows the form again with what was typed.
func (c *Console) addUpstreamDeposit(w http.ResponseWriter, r *http.Request, s *session) error {
	err := c.recordDeposit(w, r, s, r.PathValue("name"))
	return c.formFailed(w, r, s, err, "suppliers", c.suppliersAgain(r, s))
}

// recordDeposit is addUpstreamDeposit's work; refusals are fieldErrors.
func (c *Console) recordDeposit(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	amount, problem := parseAmount(r.PostFormValue("amountUsd"), centPlaces)
	switch {
	case problem != "":
		return fieldError{"amountUsd", problem}
	case amount <= 0:
		return fieldError{"amountUsd", "Enter the amount we sent, above zero."}
	}
	ref := strings.TrimSpace(r.PostFormValue("reference"))
	switch n := utf8.RuneCountInString(ref); {
	case n == 0:
		return fieldError{"reference", "Enter a reference, such as the transfer's number: a reference recorded before records nothing again."}
	case n > 200:
		return fieldError{"reference", "A reference is at most 200 characters."}
	}
	at, err := c.depositDay(r)
	if err != nil {
		return err
	}
	d, repeated, err := c.Service.AddUpstreamDeposit(r.Context(), s.actor, name, amount, ref, at)
	var de *topupd.Error
	if topupd.CodeOf(err) == topupd.EInvalidBody && errors.As(err, &de) {
		return fieldError{"", sentence(de.Detail)}
	} else if err != nil {
		return err
	}
	msg := fmt.Sprintf("Recorded %s sent to upstream %s on %s, reference %s.", usdText(d.Amount), name, d.At.In(zoneOf(r)).Format(time.DateOnly), ref)
	if repeated {
		msg = fmt.Sprintf("Reference %s was recorded before for upstream %s (%s on %s): nothing was recorded again.", ref, name,
			usdText(d.Amount), d.At.In(zoneOf(r)).Format(time.DateOnly))
	}
	return c.done(w, r, fundsBack(name), msg)
}

// depositDay reads the day the money was sent, in the operator's time
// zone: nil (now) when the field is empty or names today; a later day is
// refused.
func (c *Console) depositDay(r *http.Request) (*time.Time, error) {
	v := strings.TrimSpace(r.PostFormValue("at"))
	if v == "" {
		return nil, nil
	}
	loc := zoneOf(r)
	day, err := time.ParseInLocation(time.DateOnly, v, loc)
	if err != nil {
		return nil, fieldError{"at", "“" + v + "” is not a date such as 2026-11-24. Leave it empty for today."}
	}
	now := c.Now().In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	switch {
	case day.After(today):
		return nil, fieldError{"at", "The day the money was sent cannot be after today."}
	case day.Equal(today):
		return nil, nil
	}
	return &day, nil
}
