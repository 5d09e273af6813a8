package httpapi

import (
	"net/http"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// viewOperator shows an operator.
func viewOperator(o *topupd.Operator) client.Operator {
	return client.Operator{Name: o.Name, Role: string(o.Role), Disabled: o.Disabled, CreatedAt: o.CreatedAt.UTC(), LastSeenAt: utcPtr(o.LastSeenAt)}
}

// newOperatorAnswer is an operator just added, with their first token.
type newOperatorAnswer struct {
	Success bool   `json:"success"`
	Name    string `json:"name"`
	Role    string `json:"role"`
	Token   string `json:"token"`
}

// createOperator adds an operator and answers their first token, shown this once.
func (a *admin) createOperator(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var name, role string
	obj.take("name", &name)
	obj.take("role", &role)
	if err := obj.done(); err != nil {
		return err
	}
	o, token, err := a.Service.CreateOperator(r.Context(), a.actor(r), name, topupd.Role(role))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, newOperatorAnswer{Success: true, Name: o.Name, Role: string(o.Role), Token: token})
	return nil
}

// operatorsAnswer lists the operators.
type operatorsAnswer struct {
	Success   bool              `json:"success"`
	Operators []client.Operator `json:"operators"`
}

func (a *admin) listOperators(w http.ResponseWriter, r *http.Request) error {
	ops, err := a.Service.Operators(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, operatorsAnswer{Success: true, Operators: viewEach(ops, viewOperator)})
	return nil
}

// operatorPatchAnswer is an operator as a change left them.
type operatorPatchAnswer struct {
	Success  bool   `json:"success"`
	Name     string `json:"name"`
	Role     string `json:"role"`
	Disabled bool   `json:"disabled"`
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
	o, err := a.Service.UpdateOperator(r.Context(), a.actor(r), r.PathValue("name"), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, operatorPatchAnswer{Success: true, Name: o.Name, Role: string(o.Role), Disabled: o.Disabled})
	return nil
}

// tokenAnswer is an operator's new token, shown this once.
type tokenAnswer struct {
	Success bool   `json:"success"`
	Token   string `json:"token"`
}

// createOperatorToken gives an operator one more token, shown this once.
func (a *admin) createOperatorToken(w http.ResponseWriter, r *http.Request) error {
	if _, err := readAdminObject(r); err != nil {
		return err
	}
	token, err := a.Service.CreateOperatorToken(r.Context(), a.actor(r), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, tokenAnswer{Success: true, Token: token})
	return nil
}

// setupLinkAnswer is a setup link, shown this once.
type setupLinkAnswer struct {
	Success   bool   `json:"success"`
	URL       string `json:"url"`
	ExpiresAt string `json:"expiresAt"`
}

// createSetupLink gives an operator a one-time link, valid 24 h, where they
// set a console password and enrol TOTP; earlier unused links stop working.
// Without the service's ConsoleURL (service.Deps), the link starts with /console/ on the host
// the call was made to.
func (a *admin) createSetupLink(w http.ResponseWriter, r *http.Request) error {
	if _, err := readAdminObject(r); err != nil {
		return err
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	link, err := a.Service.CreateSetupLink(r.Context(), a.actor(r), r.PathValue("name"), scheme+"://"+r.Host+"/console/")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, setupLinkAnswer{Success: true, URL: link.URL, ExpiresAt: rfc3339(link.ExpiresAt)})
	return nil
}

// chatLinkAnswer is a chat link code, shown this once, and the link that
// opens the bot with it ("" while the bot's username is not known).
type chatLinkAnswer struct {
	Code      string `json:"code"`
	ExpiresAt string `json:"expiresAt"`
	Success   bool   `json:"success"`
	URL       string `json:"url"`
}

// createOperatorChatLink makes a one-time code that links a chat to the
// operator.
func (a *admin) createOperatorChatLink(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	if err := obj.done(); err != nil {
		return err
	}
	l, err := a.Service.CreateOperatorChatLink(r.Context(), a.actor(r), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, chatLinkAnswer{Success: true, Code: l.Code, ExpiresAt: rfc3339(l.ExpiresAt), URL: l.URL})
	return nil
}

// actionsAnswer is a page of the action log, with the cursor of the next
// page (null on the last).
type actionsAnswer struct {
	Success    bool            `json:"success"`
	Actions    []client.Action `json:"actions"`
	NextCursor *string         `json:"nextCursor"`
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
		Before: p.Before, Limit: p.Limit}
	if q.From, q.To, err = parseSpan(v); err != nil {
		return err
	}
	page, err := a.Service.Actions(r.Context(), a.actor(r), q)
	if err != nil {
		return err
	}
	out := make([]client.Action, len(page.Actions))
	for i, x := range page.Actions {
		out[i] = client.Action{ID: itoa(x.ID), At: x.At.UTC(), Operator: x.Actor.Operator, IP: x.Actor.IP,
			RequestID: x.Actor.RequestID, Action: x.Action, Target: x.Target, AccountID: x.AccountID, Before: x.Before, After: x.After}
	}
	writeJSON(w, http.StatusOK, actionsAnswer{Success: true, Actions: out, NextCursor: nextCursor(service.ActionsCursor, page.Next)})
	return nil
}
