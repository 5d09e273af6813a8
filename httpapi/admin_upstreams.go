package httpapi

import (
	"net/http"
	"sort"
	"time"

	"github.com/topupd/topupd"
)

// healthView is a supplier's health as the operator sees it.
type healthView struct {
	Provider         string  `json:"provider"`
	Upstream         string  `json:"upstream,omitempty"`
	LastSuccess      *string `json:"lastSuccess"`
	LastError        *string `json:"lastError"`
	LastErrorMessage string  `json:"lastErrorMessage,omitempty"`
	ErrorRate        float64 `json:"errorRate"`
	Calls            int     `json:"calls"`
	Errors           int     `json:"errors"`
	Alert            bool    `json:"alert"`
	// StuckOrders counts the supplier's processing orders that need the
	// operator (past their deadline, or carrying an alert), from the
	// database: every node's orders.
	StuckOrders int `json:"stuckOrders"`
}

func viewHealth(h topupd.Health) healthView {
	at := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		s := t.UTC().Format(time.RFC3339Nano)
		return &s
	}
	return healthView{Provider: h.Provider, Upstream: h.Upstream, LastSuccess: at(h.LastSuccess), LastError: at(h.LastError),
		LastErrorMessage: h.LastErrorMessage, ErrorRate: h.ErrorRate(), Calls: h.Calls, Errors: h.Errors, Alert: h.Alert}
}

func (a *admin) putUpstream(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	u := topupd.Upstream{Name: r.PathValue("name"), UpdatedAt: a.Now()}
	obj.take("baseUrl", &u.BaseURL)
	obj.take("apiKey", &u.APIKey)
	if err := obj.done(); err != nil {
		return err
	}
	if err := u.Validate(); err != nil {
		return err
	}
	if err := a.Store.PutUpstream(r.Context(), u); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "name": u.Name, "baseUrl": u.BaseURL})
	return nil
}

// listUpstreams answers every upstream with its health; API keys are never shown.
func (a *admin) listUpstreams(w http.ResponseWriter, r *http.Request) error {
	ups, err := a.Store.Upstreams(r.Context())
	if err != nil {
		return err
	}
	health := map[string]topupd.Health{}
	for _, h := range a.Health() {
		if h.Provider == topupd.ProviderUpstream {
			health[h.Upstream] = h
		}
	}
	out := make([]map[string]any, len(ups))
	for i, u := range ups {
		h, ok := health[u.Name]
		if !ok {
			h = topupd.Health{Provider: topupd.ProviderUpstream, Upstream: u.Name}
		}
		v := viewHealth(h)
		out[i] = map[string]any{"name": u.Name, "baseUrl": u.BaseURL, "updatedAt": u.UpdatedAt.UTC().Format(time.RFC3339Nano),
			"health": v, "lastSuccess": v.LastSuccess, "lastError": v.LastError, "lastErrorMessage": v.LastErrorMessage,
			"errorRate": v.ErrorRate, "alert": v.Alert}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "upstreams": out})
	return nil
}

// listProviders answers every supplier's health as this node has seen it,
// and how many of its orders are stuck, as the database holds them; a
// supplier with stuck orders is alerting.
func (a *admin) listProviders(w http.ResponseWriter, r *http.Request) error {
	stuck, err := a.Store.StuckCounts(r.Context(), a.Now())
	if err != nil {
		return err
	}
	type key struct{ provider, upstream string }
	counts := map[key]int{}
	for _, c := range stuck {
		counts[key{c.Provider, c.Upstream}] = c.Orders
	}
	out := []healthView{}
	for _, h := range a.Health() {
		v := viewHealth(h)
		k := key{h.Provider, h.Upstream}
		v.StuckOrders, v.Alert = counts[k], v.Alert || counts[k] > 0
		delete(counts, k)
		out = append(out, v)
	}
	for k, n := range counts {
		out = append(out, healthView{Provider: k.provider, Upstream: k.upstream, StuckOrders: n, Alert: true})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].Upstream < out[j].Upstream
	})
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "providers": out})
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
