package console

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// suppliersData is the suppliers page.
type suppliersData struct {
	Providers []service.ProviderHealth
	Upstreams []service.UpstreamView
	// Funds are the upstreams' money: balance, burn, runway, balance
	// alert, thresholds and recorded deposits (upstream_funds.go).
	Funds []upstreamFunds
	Stuck service.OrderPage
}

// suppliers shows each provider and upstream with its health and alerts,
// our money at each upstream, and the orders that need the operator.
func (c *Console) suppliers(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.suppliersData(r, s)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "suppliers", "Suppliers", d)
	return nil
}

// suppliersData reads the suppliers page.
func (c *Console) suppliersData(r *http.Request, s *session) (suppliersData, error) {
	var d suppliersData
	var err error
	if d.Providers, err = c.Service.Providers(r.Context(), s.actor); err != nil {
		return d, err
	}
	if d.Upstreams, err = c.Service.Upstreams(r.Context(), s.actor); err != nil {
		return d, err
	}
	if d.Funds, err = c.upstreamFundsOf(r.Context(), s, d.Upstreams); err != nil {
		return d, err
	}
	stuck, err := c.Service.StuckOrders(r.Context(), s.actor, 0, nil)
	if err != nil {
		return d, err
	}
	if err := c.nameAccounts(r.Context(), s, &stuck); err != nil {
		return d, err
	}
	d.Stuck = stuck
	return d, nil
}

// putUpstream adds or changes an upstream's address and key.
func (c *Console) putUpstream(w http.ResponseWriter, r *http.Request, s *session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	u := topupd.Upstream{Name: name, BaseURL: strings.TrimSpace(r.PostFormValue("baseUrl")), APIKey: strings.TrimSpace(r.PostFormValue("apiKey"))}
	// Checked (GET /balance with the key) unless the form says not to.
	if _, err := c.Service.PutUpstream(r.Context(), s.actor, u, r.PostFormValue("unchecked") != "yes"); err != nil {
		return err
	}
	return c.done(w, r, "/console/suppliers", "Upstream "+name+" is saved.")
}

// deleteUpstream removes an upstream once the operator confirms it; one
// still in use is refused with the packs that name it.
func (c *Console) deleteUpstream(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PathValue("name")
	if !c.confirmed(w, r, s, "Delete upstream "+name+"? Our API key there is forgotten with it.", "/console/suppliers") {
		return nil
	}
	if err := c.Service.DeleteUpstream(r.Context(), s.actor, name); err != nil {
		return err
	}
	return c.done(w, r, "/console/suppliers", "Upstream "+name+" is deleted.")
}

// checkUpstream asks an upstream for our balance there at once ("Test the
// connection"); a failure shows its refusal, and the upstream stays
// failing until a check or call succeeds.
func (c *Console) checkUpstream(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PathValue("name")
	v, err := c.Service.CheckUpstream(r.Context(), s.actor, name)
	var e *topupd.Error
	if errors.As(err, &e) && (e.Code == topupd.EUpstreamRefused || e.Code == topupd.EUpstreamUnreachable) {
		// The supplier's failure, not ours: say so, with what it answered.
		return pageError{http.StatusBadGateway, fmt.Sprintf("Upstream %s did not answer with our balance (%s): %s. It is marked failing.",
			name, e.Code, e.Detail)}
	} else if err != nil {
		return err
	}
	return c.done(w, r, "/console/suppliers", fmt.Sprintf("Upstream %s answers: our balance there is %s.", name, v.Balance.Dollars()))
}

// reportData is the reports page.
type reportData struct {
	From, To, GroupBy string
	Groups            []topupd.SalesGroup
	Report            service.SalesReport
	CSV               template.URL
	// Rows are the report's rows with their keys' names (report_rows.go),
	// Total its total: the figures of the admin API's report and its CSV.
	Rows  []reportRow
	Total reportRow
}

// reportSpan reads a report's days, [from, to] inclusive as the form names
// them: the last 30 days by default.
func (c *Console) reportSpan(q url.Values) (from, to time.Time, err error) {
	today := c.Now().UTC().Truncate(24 * time.Hour)
	if from, err = dayParam(q, "from", today.AddDate(0, 0, -29)); err != nil {
		return
	}
	to, err = dayParam(q, "to", today)
	return from, to.AddDate(0, 0, 1), err
}

// reports shows sales by day, line, pack, account or provider.
func (c *Console) reports(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	from, to, err := c.reportSpan(q)
	if err != nil {
		return err
	}
	d := reportData{From: from.Format(time.DateOnly), To: to.AddDate(0, 0, -1).Format(time.DateOnly), GroupBy: q.Get("groupBy"), Groups: topupd.SalesGroups}
	if d.GroupBy == "" {
		d.GroupBy = "day"
	}
	if d.Report, err = c.Service.SalesReport(r.Context(), s.actor, from, to, topupd.SalesGroup(d.GroupBy)); err != nil {
		return err
	}
	if d.Rows, err = c.namedRows(r.Context(), s, d.Report); err != nil {
		return err
	}
	d.Total = reportRow{SalesRow: d.Report.Total}
	d.CSV = template.URL(url.Values{"from": {d.From}, "to": {d.To}, "groupBy": {d.GroupBy}}.Encode())
	c.render(w, r, s, http.StatusOK, "reports", "Reports", d)
	return nil
}

// reportCSV downloads a sales report as the admin API writes it.
func (c *Console) reportCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	from, to, err := c.reportSpan(q)
	if err != nil {
		return err
	}
	by := q.Get("groupBy")
	if by == "" {
		by = "day"
	}
	rep, err := c.Service.SalesReport(r.Context(), s.actor, from, to, topupd.SalesGroup(by))
	if err != nil {
		return err
	}
	return sendCSVRows(w, fmt.Sprintf("sales-by-%s-%s.csv", by, from.Format(time.DateOnly)), rep.CSV())
}

// sendCSVRows answers rows as a CSV download, spelt as the admin API
// spells them.
func sendCSVRows(w http.ResponseWriter, name string, rows [][]string) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return sendCSV(w, name, b.Bytes())
}

// operatorsData is the operators page.
type operatorsData struct {
	Operators []topupd.Operator
	Roles     []string
	Link      *service.SetupLink
	LinkFor   string
}

// operatorRoles are the roles the operators page offers.
var operatorRoles = []string{"owner", "finance", "support", "viewer"}

// operators lists the operators, with forms to add one, change a role,
// disable, and make a setup link (owner only).
func (c *Console) operators(w http.ResponseWriter, r *http.Request, s *session) error {
	return c.operatorsPage(w, r, s, http.StatusOK, operatorsData{})
}

// operatorsPage renders the operators page with d's link, if any.
func (c *Console) operatorsPage(w http.ResponseWriter, r *http.Request, s *session, status int, d operatorsData) error {
	ops, err := c.Service.Operators(r.Context(), s.actor)
	if err != nil {
		return err
	}
	d.Operators, d.Roles = ops, operatorRoles
	c.render(w, r, s, status, "operators", "Operators", d)
	return nil
}

// addOperator creates an operator and shows their setup link once; a
// refused name shows the form again, with the name and the refusal.
func (c *Console) addOperator(w http.ResponseWriter, r *http.Request, s *session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	_, _, err := c.Service.CreateOperator(r.Context(), s.actor, name, topupd.Role(r.PostFormValue("role")))
	var de *topupd.Error
	switch {
	case err == nil:
		return c.setupLinkFor(w, r, s, name)
	case name == topupd.RootOperator:
		err = fieldError{"name", "“root” is the built-in operator of the admin token: choose another name."}
	case errors.As(err, &de) && de.Code == topupd.EInvalidBody && strings.HasPrefix(de.Detail, "name:"):
		err = fieldError{"name", "“" + name + "” cannot be a name: use 2 to 64 small letters, digits, dots, dashes or underscores, starting with a letter, such as kim or j.smith."}
	case errors.As(err, &de) && de.Code == topupd.EConflict:
		err = fieldError{"name", "There is already an operator named " + name + "."}
	}
	return c.operatorsAgain(w, r, s, err)
}

// operatorsAgain draws the operators page again after a refused form.
func (c *Console) operatorsAgain(w http.ResponseWriter, r *http.Request, s *session, err error) error {
	return c.formFailed(w, r, s, err, "operators", func() (string, any, error) {
		ops, err := c.Service.Operators(r.Context(), s.actor)
		return "Operators", operatorsData{Operators: ops, Roles: operatorRoles}, err
	})
}

// setupLink makes a fresh setup link for an operator and shows it once.
func (c *Console) setupLink(w http.ResponseWriter, r *http.Request, s *session) error {
	return c.setupLinkFor(w, r, s, r.PathValue("name"))
}

// setupLinkFor makes and shows a setup link: it starts with the console's
// address as the browser asked for it, unless the console's public
// address is set.
func (c *Console) setupLinkFor(w http.ResponseWriter, r *http.Request, s *session, name string) error {
	link, err := c.Service.CreateSetupLink(r.Context(), s.actor, name, "http://"+r.Host+"/console/")
	if err != nil {
		return err
	}
	return c.operatorsPage(w, r, s, http.StatusCreated, operatorsData{Link: &link, LinkFor: name})
}

// patchOperator changes an operator's role, or disables or enables them.
// Disabling asks to be confirmed, and so does a change of one's own role
// or an owner's; a change that would leave no active owner is refused
// (LAST_OWNER) and said so in plain words.
func (c *Console) patchOperator(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PathValue("name")
	var p topupd.OperatorPatch
	if role := topupd.Role(r.PostFormValue("role")); role != "" {
		p.Role = &role
		var was topupd.Role
		ops, err := c.Service.Operators(r.Context(), s.actor)
		if err != nil {
			return err
		}
		for _, o := range ops {
			if o.Name == name {
				was = o.Role
			}
		}
		if role != was && (name == s.op.Name || was == topupd.RoleOwner) {
			q := "Change " + name + "'s role from " + string(was) + " to " + string(role) + "?"
			if name == s.op.Name {
				q = "Change your own role from " + string(was) + " to " + string(role) + "? You lose what a" + article(was) + " may do at once, and cannot undo it yourself."
			}
			if !c.confirmed(w, r, s, q, "/console/operators") {
				return nil
			}
		}
	}
	if d := r.PostFormValue("disabled"); d != "" {
		disabled := d == "yes"
		p.Disabled = &disabled
		q := "Disable operator " + name + "? Their tokens and console sessions stop working."
		if name == s.op.Name {
			q = "Disable yourself? Your tokens and console sessions, this one too, stop working at once."
		}
		if disabled && !c.confirmed(w, r, s, q, "/console/operators") {
			return nil
		}
	}
	_, err := c.Service.UpdateOperator(r.Context(), s.actor, name, p)
	if topupd.CodeOf(err) == topupd.ELastOwner {
		return c.operatorsAgain(w, r, s, fieldError{"", name + " is the only owner who is not disabled: nothing was changed. Make another operator an owner first."})
	} else if err != nil {
		return err
	}
	return c.done(w, r, "/console/operators", "Operator "+name+" is saved.")
}

// article is " " and a role's name with "n" before it when it starts
// with a vowel: "n owner", " viewer".
func article(r topupd.Role) string {
	if r != "" && strings.ContainsAny(string(r)[:1], "aeiou") {
		return "n " + string(r)
	}
	return " " + string(r)
}

// actionsData is the action log page.
type actionsData struct {
	Q       url.Values
	Actions []actionRow
	Next    template.URL
}

// actionRow is one action with its changes in words.
type actionRow struct {
	At                                      time.Time
	Operator, IP, Action, Target, AccountID string
	Changes                                 string
}

// actions shows the action log, newest first, filtered by operator,
// account, action and day.
func (c *Console) actions(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	aq := topupd.ActionsQuery{Operator: strings.TrimSpace(q.Get("operator")), AccountID: strings.TrimSpace(q.Get("accountId")),
		Action: strings.TrimSpace(q.Get("action")), Limit: 50}
	var err error
	if aq.From, err = dayParam(q, "from", time.Time{}); err != nil {
		return err
	}
	if aq.To, err = dayParam(q, "to", time.Time{}); err != nil {
		return err
	}
	if !aq.To.IsZero() {
		aq.To = aq.To.AddDate(0, 0, 1) // the whole day named
	}
	if aq.Before, err = service.ParseListCursor(service.ActionsCursor, strings.TrimSpace(q.Get("cursor"))); err != nil {
		return err
	}
	page, err := c.Service.Actions(r.Context(), s.actor, aq)
	if err != nil {
		return err
	}
	d := actionsData{Q: q}
	for _, a := range page.Actions {
		d.Actions = append(d.Actions, actionRow{At: a.At, Operator: a.Actor.Operator, IP: a.Actor.IP, Action: a.Action, Target: a.Target,
			AccountID: a.AccountID, Changes: changes(a.Before, a.After)})
	}
	if page.Next != nil {
		d.Next = pageQuery(q, "cursor", service.ListCursor(service.ActionsCursor, *page.Next))
	}
	c.render(w, r, s, http.StatusOK, "actions", "Action log", d)
	return nil
}

// changes says what an action changed: "field: before → after", a field a
// line, each value in words (fieldText).
func changes(before, after map[string]any) string {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		x, hadX := before[k]
		y, hadY := after[k]
		xs, ys := fieldText(k, x), fieldText(k, y)
		if hadX && hadY && xs == ys {
			continue
		}
		switch {
		case !hadX:
			fmt.Fprintf(&b, "%s: %s\n", k, ys)
		case !hadY:
			fmt.Fprintf(&b, "%s: %s → (none)\n", k, xs)
		default:
			fmt.Fprintf(&b, "%s: %s → %s\n", k, xs, ys)
		}
	}
	return strings.TrimSpace(b.String())
}

// fieldText writes one value of a change as people read it: an amount
// (a field whose name ends in Usd) as "$1,234.56", no value as "not set",
// "" as "empty", and lists and objects as compact JSON.
func fieldText(name string, v any) string {
	switch v := v.(type) {
	case nil:
		return "not set"
	case string:
		if v == "" {
			return "empty"
		}
		return v
	case json.Number:
		if strings.HasSuffix(name, "Usd") {
			if m, err := topupd.ParseMoney(v.String()); err == nil {
				return usdText(m)
			}
		}
		return v.String()
	case topupd.Money:
		return usdText(v)
	case bool, int, int64:
		return fmt.Sprint(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// settings shows maintenance and orders-off with their switches.
func (c *Console) settings(w http.ResponseWriter, r *http.Request, s *session) error {
	st, err := c.Service.Settings(r.Context(), s.actor)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "settings", "Settings", st)
	return nil
}

// setSetting turns maintenance on or off, or stops and starts taking
// orders, after a confirmation in plain words.
func (c *Console) setSetting(w http.ResponseWriter, r *http.Request, s *session) error {
	name, on := r.PostFormValue("name"), r.PostFormValue("value") == "on"
	words, ok := settingWords[settingSwitch{name, on}]
	if !ok {
		return pageError{http.StatusBadRequest, "There is no such setting."}
	}
	if !c.confirmed(w, r, s, words.question, "/console/settings") {
		return nil
	}
	var p topupd.SettingsPatch
	if name == "maintenance" {
		p.Maintenance = &on
	} else {
		p.OrdersDisabled = &on
	}
	if _, err := c.Service.UpdateSettings(r.Context(), s.actor, p); err != nil {
		return err
	}
	return c.done(w, r, "/console/settings", words.done)
}
