package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
)

// viewHealth is a supplier's health as the operator sees it; StuckOrders
// is the caller's to fill.
func viewHealth(h topupd.Health) client.Health {
	return client.Health{Provider: h.Provider, Upstream: h.Upstream, LastSuccess: utcOrNil(h.LastSuccess), LastError: utcOrNil(h.LastError),
		LastErrorMessage: h.LastErrorMessage, ErrorRate: h.ErrorRate(), Calls: h.Calls, Errors: h.Errors, Alert: h.Alert}
}

// upstreamAnswer is an upstream as stored; its API key is never shown.
type upstreamAnswer struct {
	BaseURL string `json:"baseUrl"`
	Name    string `json:"name"`
	Success bool   `json:"success"`
}

func (a *admin) putUpstream(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	u := topupd.Upstream{Name: r.PathValue("name")}
	obj.take("baseUrl", &u.BaseURL)
	obj.take("apiKey", &u.APIKey)
	if err := obj.done(); err != nil {
		return err
	}
	if u, err = a.Service.PutUpstream(r.Context(), a.actor(r), u); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, upstreamAnswer{BaseURL: u.BaseURL, Name: u.Name, Success: true})
	return nil
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
		v := viewHealth(u.Health)
		out[i] = upstreamView{Name: u.Name, BaseURL: u.BaseURL, UpdatedAt: u.UpdatedAt.UTC(), Health: v,
			LastSuccess: v.LastSuccess, LastError: v.LastError, LastErrorMessage: v.LastErrorMessage, ErrorRate: v.ErrorRate, Alert: v.Alert}
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
