package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// operatorView is an operator as the admin API shows it.
type operatorView struct {
	Name       string  `json:"name"`
	Role       string  `json:"role"`
	Disabled   bool    `json:"disabled"`
	CreatedAt  string  `json:"createdAt"`
	LastSeenAt *string `json:"lastSeenAt"`
}

func viewOperator(o *topupd.Operator) operatorView {
	v := operatorView{Name: o.Name, Role: string(o.Role), Disabled: o.Disabled, CreatedAt: o.CreatedAt.UTC().Format(time.RFC3339Nano)}
	if o.LastSeenAt != nil {
		s := o.LastSeenAt.UTC().Format(time.RFC3339Nano)
		v.LastSeenAt = &s
	}
	return v
}

// createOperator adds an operator and answers their first token, shown this once.
func (a *admin) createOperator(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	o := topupd.Operator{CreatedAt: a.Now()}
	var role string
	obj.take("name", &o.Name)
	obj.take("role", &role)
	if err := obj.done(); err != nil {
		return err
	}
	o.Role = topupd.Role(role)
	if err := o.Validate(); err != nil {
		return err
	}
	if c := topupd.ChangeOf(r.Context()); c != nil {
		c.Target = o.Name
	}
	token, hash := topupd.NewOperatorToken()
	if o, err = a.Store.CreateOperator(r.Context(), o, hash); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"success": true, "name": o.Name, "role": string(o.Role), "token": token})
	return nil
}

func (a *admin) listOperators(w http.ResponseWriter, r *http.Request) error {
	ops, err := a.Store.Operators(r.Context())
	if err != nil {
		return err
	}
	out := make([]operatorView, len(ops))
	for i := range ops {
		out[i] = viewOperator(&ops[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "operators": out})
	return nil
}

func (a *admin) patchOperator(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var p topupd.OperatorPatch
	var role string
	var disabled bool
	if obj.take("role", &role) {
		rl := topupd.Role(role)
		p.Role = &rl
	}
	if obj.take("disabled", &disabled) {
		p.Disabled = &disabled
	}
	if err := obj.done(); err != nil {
		return err
	}
	o, err := a.Store.UpdateOperator(r.Context(), r.PathValue("name"), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "name": o.Name, "role": string(o.Role), "disabled": o.Disabled})
	return nil
}

// createOperatorToken gives an operator one more token, shown this once.
func (a *admin) createOperatorToken(w http.ResponseWriter, r *http.Request) error {
	if _, err := readAdminObject(r); err != nil {
		return err
	}
	token, hash := topupd.NewOperatorToken()
	if err := a.Store.AddOperatorToken(r.Context(), r.PathValue("name"), hash, a.Now()); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"success": true, "token": token})
	return nil
}

// createSetupLink gives an operator a one-time link, valid 24 h, where they
// set a console password and enrol TOTP; earlier unused links stop working.
func (a *admin) createSetupLink(w http.ResponseWriter, r *http.Request) error {
	if _, err := readAdminObject(r); err != nil {
		return err
	}
	link, hash := topupd.NewSecret()
	now := a.Now()
	expires := now.Add(topupd.SetupLinkTTL)
	if err := a.Store.CreateSetupLink(r.Context(), r.PathValue("name"), hash, now, expires); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"success": true, "url": a.consoleURL(r) + "setup/" + link, "expiresAt": rfc3339(expires)})
	return nil
}

// consoleURL is where the console is, ending in a slash: ConsoleURL when
// set, else /console/ on the host the call was made to.
func (a *admin) consoleURL(r *http.Request) string {
	if a.ConsoleURL != "" {
		return strings.TrimSuffix(a.ConsoleURL, "/") + "/"
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/console/"
}

// actionView is an entry of the action log.
type actionView struct {
	ID        string         `json:"id"`
	At        string         `json:"at"`
	Operator  string         `json:"operator"`
	IP        string         `json:"ip"`
	RequestID string         `json:"requestId"`
	Action    string         `json:"action"`
	Target    string         `json:"target"`
	AccountID string         `json:"accountId,omitempty"`
	Before    map[string]any `json:"before"`
	After     map[string]any `json:"after"`
}

// actionsFilters are the filters of GET /admin/actions besides paging.
var actionsFilters = map[string]bool{"operator": true, "accountId": true, "action": true, "from": true, "to": true}

func (a *admin) listActions(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	p, err := parsePage(v, actionsFilters, actionsCursor)
	if err != nil {
		return err
	}
	q := topupd.ActionsQuery{Operator: v.Get("operator"), AccountID: v.Get("accountId"), Action: v.Get("action"),
		Before: p.Before, Limit: p.Limit + 1}
	if q.From, q.To, err = parseSpan(v); err != nil {
		return err
	}
	acts, err := a.Store.Actions(r.Context(), q)
	if err != nil {
		return err
	}
	var next *string
	if len(acts) > p.Limit {
		acts = acts[:p.Limit]
		last := &acts[len(acts)-1]
		next = keyCursor(actionsCursor, last.At, last.ID)
	}
	out := make([]actionView, len(acts))
	for i, x := range acts {
		out[i] = actionView{ID: itoa(x.ID), At: x.At.UTC().Format(time.RFC3339Nano), Operator: x.Actor.Operator, IP: x.Actor.IP,
			RequestID: x.Actor.RequestID, Action: x.Action, Target: x.Target, AccountID: x.AccountID, Before: x.Before, After: x.After}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "actions": out, "nextCursor": next})
	return nil
}
