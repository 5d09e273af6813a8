package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/service"
)

// viewHealth is a supplier's health as the operator sees it; StuckOrders
// is the caller's to fill.
func viewHealth(h topupd.Health) client.Health {
	return client.Health{Provider: h.Provider, Upstream: h.Upstream, LastSuccess: utcOrNil(h.LastSuccess), LastError: utcOrNil(h.LastError),
		LastErrorMessage: h.LastErrorMessage, ErrorRate: h.ErrorRate(), Calls: h.Calls, Errors: h.Errors, Alert: h.Alert}
}

func (a *admin) putUpstream(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	u := topupd.Upstream{Name: r.PathValue("name")}
	check := true
	obj.take("baseUrl", &u.BaseURL)
	obj.take("apiKey", &u.APIKey)
	obj.take("check", &check)
	if err := obj.done(); err != nil {
		return err
	}
	v, err := a.Service.PutUpstream(r.Context(), a.actor(r), u, check)
	if topupd.CodeOf(err) == topupd.EUpstreamUnreachable {
		return withStatus(err, http.StatusBadRequest) // a save it refuses: 400, as the spec has it
	} else if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, upstreamRow{Success: true, upstreamView: viewUpstream(v)})
	return nil
}

// patchUpstream changes an upstream's runway thresholds.
func (a *admin) patchUpstream(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var warn, critical *float64
	for _, f := range []struct {
		name string
		dst  **float64
	}{{"warnHours", &warn}, {"criticalHours", &critical}} {
		var h float64
		if obj.take(f.name, &h) {
			*f.dst = &h
		}
	}
	if err := obj.done(); err != nil {
		return err
	}
	v, err := a.Service.SetUpstreamThresholds(r.Context(), a.actor(r), r.PathValue("name"), warn, critical)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, upstreamRow{Success: true, upstreamView: viewUpstream(v)})
	return nil
}

// checkUpstream asks an upstream for our balance there at once.
func (a *admin) checkUpstream(w http.ResponseWriter, r *http.Request) error {
	v, err := a.Service.CheckUpstream(r.Context(), a.actor(r), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Success    bool          `json:"success"`
		Name       string        `json:"name"`
		BalanceUSD *topupd.Money `json:"balanceUsd"`
		BalanceAt  *time.Time    `json:"balanceAt"`
		State      string        `json:"state"`
	}{true, v.Name, v.Balance, utcPtr(v.BalanceAt), v.State})
	return nil
}

// upstreamRow is one upstream in a whole answer.
type upstreamRow struct {
	Success bool `json:"success"`
	upstreamView
}

// deleteUpstream removes an upstream (service.DeleteUpstream).
func (a *admin) deleteUpstream(w http.ResponseWriter, r *http.Request) error {
	if err := a.Service.DeleteUpstream(r.Context(), a.actor(r), r.PathValue("name")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}

// upstreamView is an upstream with its health, which its own members
// repeat.
type upstreamView struct {
	Alert            bool          `json:"alert"`
	BaseURL          string        `json:"baseUrl"`
	ErrorRate        float64       `json:"errorRate"`
	Health           client.Health `json:"health"`
	LastError        *time.Time    `json:"lastError"`
	LastErrorMessage string        `json:"lastErrorMessage"`
	LastSuccess      *time.Time    `json:"lastSuccess"`
	Name             string        `json:"name"`
	UpdatedAt        time.Time     `json:"updatedAt"`
	BalanceUSD       *topupd.Money `json:"balanceUsd"`
	BalanceAt        *time.Time    `json:"balanceAt"`
	State            string        `json:"state"`
	WarnHours        float64       `json:"warnHours"`
	CriticalHours    float64       `json:"criticalHours"`
	BurnUSDPerHour   topupd.Money  `json:"burnUsdPerHour"`
	RunwayHours      *float64      `json:"runwayHours"`
	BalanceAlert     string        `json:"balanceAlert"`
}

// viewUpstream is an upstream as the admin API shows it. Its alert is
// true while its state is failing or its balance alert is raised.
func viewUpstream(u service.UpstreamView) upstreamView {
	v := viewHealth(u.Health)
	out := upstreamView{Name: u.Name, BaseURL: u.BaseURL, UpdatedAt: u.UpdatedAt.UTC(), Health: v,
		LastSuccess: v.LastSuccess, LastError: v.LastError, LastErrorMessage: v.LastErrorMessage, ErrorRate: v.ErrorRate,
		Alert: u.Alerting(), BalanceUSD: u.Balance, BalanceAt: utcPtr(u.BalanceAt), State: u.State,
		WarnHours: u.WarnHours, CriticalHours: u.CriticalHours, BurnUSDPerHour: topupd.BurnPerHour(u.Day), BalanceAlert: u.BalanceAlert}
	if h, ok := u.Runway(); ok {
		out.RunwayHours = &h
	}
	return out
}

// upstreamsAnswer is the list of upstreams.
type upstreamsAnswer struct {
	Success   bool           `json:"success"`
	Upstreams []upstreamView `json:"upstreams"`
}

// listUpstreams answers every upstream with its health; API keys are never shown.
func (a *admin) listUpstreams(w http.ResponseWriter, r *http.Request) error {
	ups, err := a.Service.Upstreams(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	out := make([]upstreamView, len(ups))
	for i, u := range ups {
		out[i] = viewUpstream(u)
	}
	writeJSON(w, http.StatusOK, upstreamsAnswer{Success: true, Upstreams: out})
	return nil
}

// providersAnswer is every supplier's health.
type providersAnswer struct {
	Providers []client.Health `json:"providers"`
	Success   bool            `json:"success"`
}

// listProviders answers every supplier's health as this node has seen it,
// and how many of its orders are stuck, as the database holds them; a
// supplier with stuck orders is alerting.
func (a *admin) listProviders(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Service.Providers(r.Context(), a.actor(r))
	if err != nil {
		return err
	}
	out := make([]client.Health, len(list))
	for i, h := range list {
		out[i] = viewHealth(h.Health)
		out[i].StuckOrders = h.StuckOrders
	}
	writeJSON(w, http.StatusOK, providersAnswer{Providers: out, Success: true})
	return nil
}

// stuckOrders answers the processing orders that need the operator: past
// their deadline (their outcome unknown), or carrying an alert.
func (a *admin) stuckOrders(w http.ResponseWriter, r *http.Request) error {
	p, err := parsePage(r.URL.Query(), nil, ordersCursor)
	if err != nil {
		return err
	}
	return a.writeOrders(w, r, topupd.OrdersQuery{Stuck: true, Now: a.Now(), Limit: p.Limit, Before: p.Before})
}

// retryOrder makes a processing order due now, with a fresh deadline.
func (a *admin) retryOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Service.RetryOrder(r.Context(), a.actor(r), r.PathValue("orderId"))
	if err != nil {
		return err
	}
	return a.writeOrder(w, r, &o)
}
