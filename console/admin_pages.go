package console

import (
	"bytes"
	"encoding/csv"
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
	Stuck     []topupd.Order
}

// suppliers shows each provider and upstream with its health and alerts,
// and the orders that need the operator.
func (c *Console) suppliers(w http.ResponseWriter, r *http.Request, s *session) error {
	var d suppliersData
	var err error
	if d.Providers, err = c.Service.Providers(r.Context(), s.actor); err != nil {
		return err
	}
	if d.Upstreams, err = c.Service.Upstreams(r.Context(), s.actor); err != nil {
		return err
	}
	stuck, err := c.Service.StuckOrders(r.Context(), s.actor, 0, nil)
	if err != nil {
		return err
	}
	d.Stuck = stuck.Orders
	c.render(w, r, s, http.StatusOK, "suppliers", "Suppliers", d)
	return nil
}

// putUpstream adds or changes an upstream's address and key.
func (c *Console) putUpstream(w http.ResponseWriter, r *http.Request, s *session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	u := topupd.Upstream{Name: name, BaseURL: strings.TrimSpace(r.PostFormValue("baseUrl")), APIKey: strings.TrimSpace(r.PostFormValue("apiKey"))}
	if _, err := c.Service.PutUpstream(r.Context(), s.actor, u); err != nil {
		return err
	}
	return c.done(w, r, "/console/suppliers", "Upstream "+name+" is saved.")
}

// reportData is the reports page.
type reportData struct {
	From, To, GroupBy string
	Groups            []topupd.SalesGroup
	Report            service.SalesReport
	CSV               template.URL
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
	d.Operators, d.Roles = ops, []string{"owner", "finance", "support", "viewer"}
	c.render(w, r, s, status, "operators", "Operators", d)
	return nil
}

// addOperator creates an operator and shows their setup link once.
func (c *Console) addOperator(w http.ResponseWriter, r *http.Request, s *session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if _, _, err := c.Service.CreateOperator(r.Context(), s.actor, name, topupd.Role(r.PostFormValue("role"))); err != nil {
		return err
	}
	return c.setupLinkFor(w, r, s, name)
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

// patchOperator changes an operator's role, or disables or enables them;
// disabling asks to be confirmed.
func (c *Console) patchOperator(w http.ResponseWriter, r *http.Request, s *session) error {
	name := r.PathValue("name")
	var p topupd.OperatorPatch
	if role := topupd.Role(r.PostFormValue("role")); role != "" {
		p.Role = &role
	}
	if d := r.PostFormValue("disabled"); d != "" {
		disabled := d == "yes"
		p.Disabled = &disabled
		if disabled && !c.confirmed(w, r, s, "Disable operator "+name+"? Their tokens and console sessions stop working.", "/console/operators") {
			return nil
		}
	}
	if _, err := c.Service.UpdateOperator(r.Context(), s.actor, name, p); err != nil {
		return err
	}
	return c.done(w, r, "/console/operators", "Operator "+name+" is saved.")
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

// changes says what an action changed: "field: before → after", a field a line.
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
		if hadX && hadY && fmt.Sprint(x) == fmt.Sprint(y) {
			continue
		}
		switch {
		case !hadX:
			fmt.Fprintf(&b, "%s: %v\n", k, y)
		case !hadY:
			fmt.Fprintf(&b, "%s: %v → (none)\n", k, x)
		default:
			fmt.Fprintf(&b, "%s: %v → %v\n", k, x, y)
		}
	}
	return strings.TrimSpace(b.String())
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

// setSetting turns maintenance or orders-off on or off, after a confirmation.
func (c *Console) setSetting(w http.ResponseWriter, r *http.Request, s *session) error {
	name, on := r.PostFormValue("name"), r.PostFormValue("value") == "on"
	what := map[string]string{"maintenance": "maintenance (new orders get 503 MAINTENANCE; reads go on)", "ordersDisabled": "orders off (new orders get 503 API_ORDER_DISABLED; reads go on)"}[name]
	if what == "" {
		return pageError{http.StatusBadRequest, "There is no such setting."}
	}
	verb := "Turn off "
	if on {
		verb = "Turn on "
	}
	if !c.confirmed(w, r, s, verb+what+"?", "/console/settings") {
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
	return c.done(w, r, "/console/settings", "Saved: "+strings.ToLower(verb)+what+".")
}
