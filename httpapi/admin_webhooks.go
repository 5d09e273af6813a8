package httpapi

import (
	"net/http"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// An account's webhook endpoints (integration.md "Webhooks"): each
// handler decodes, calls one operation of the service layer and encodes.

// webhookRoutes lists the webhook endpoints' routes.
func (a *admin) webhookRoutes(mux router) {
	mux.Handle("POST /admin/accounts/{id}/webhooks", a.call(service.OpCreateWebhook, a.createWebhook))
	mux.Handle("GET /admin/accounts/{id}/webhooks", a.call(service.OpRead, a.listWebhooks))
	mux.Handle("GET /admin/webhooks/{endpointId}", a.call(service.OpRead, a.getWebhook))
	mux.Handle("PATCH /admin/webhooks/{endpointId}", a.call(service.OpUpdateWebhook, a.patchWebhook))
	mux.Handle("DELETE /admin/webhooks/{endpointId}", a.call(service.OpDeleteWebhook, a.deleteWebhook))
	mux.Handle("POST /admin/webhooks/{endpointId}/rotate-secret", a.call(service.OpRotateWebhookSecret, a.rotateWebhookSecret))
	mux.Handle("POST /admin/webhooks/{endpointId}/test", a.call(service.OpTestWebhook, a.testWebhook))
	mux.Handle("GET /admin/webhooks/{endpointId}/deliveries", a.call(service.OpRead, a.listDeliveries))
	mux.Handle("POST /admin/webhooks/{endpointId}/replay", a.call(service.OpReplayWebhook, a.replayWebhook))
}

// webhookView is an endpoint as the admin API shows it; Secret only in
// the answer that made it.
type webhookView struct {
	ID             string   `json:"id"`
	AccountID      string   `json:"accountId"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Description    string   `json:"description"`
	Enabled        bool     `json:"enabled"`
	DisabledReason *string  `json:"disabledReason"`
	CreatedAt      string   `json:"createdAt"`
	Secret         string   `json:"secret,omitempty"`
}

func viewWebhook(e topupd.WebhookEndpoint) webhookView {
	v := webhookView{ID: e.ID, AccountID: e.AccountID, URL: e.URL, Events: e.Events, Description: e.Description, Enabled: e.Enabled,
		CreatedAt: rfc3339(e.CreatedAt), Secret: e.Secret}
	if v.Events == nil {
		v.Events = []string{}
	}
	if e.DisabledReason != "" {
		v.DisabledReason = &e.DisabledReason
	}
	return v
}

// webhookAnswer is a whole answer carrying one endpoint.
type webhookAnswer struct {
	Success bool `json:"success"`
	webhookView
}

// webhooksAnswer is an account's endpoints.
type webhooksAnswer struct {
	Success  bool          `json:"success"`
	Webhooks []webhookView `json:"webhooks"`
}

// createWebhook registers an endpoint; its secret is in this answer alone.
func (a *admin) createWebhook(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var in service.WebhookInput
	if !obj.take("url", &in.URL) && obj.err == nil {
		obj.err = topupd.Errorf(topupd.EInvalidBody, "url: required")
	}
	obj.take("events", &in.Events)
	obj.take("description", &in.Description)
	if err := obj.done(); err != nil {
		return err
	}
	e, err := a.Service.CreateWebhook(r.Context(), a.actor(r), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, webhookAnswer{Success: true, webhookView: viewWebhook(e)})
	return nil
}

// listWebhooks answers the account's endpoints, without secrets.
func (a *admin) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Service.Webhooks(r.Context(), a.actor(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	out := make([]webhookView, len(list))
	for i, e := range list {
		out[i] = viewWebhook(e)
	}
	writeJSON(w, http.StatusOK, webhooksAnswer{Success: true, Webhooks: out})
	return nil
}

// getWebhook answers one endpoint.
func (a *admin) getWebhook(w http.ResponseWriter, r *http.Request) error {
	e, err := a.Service.Webhook(r.Context(), a.actor(r), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, webhookAnswer{Success: true, webhookView: viewWebhook(e)})
	return nil
}

// patchWebhook changes any of url, events, description and enabled.
func (a *admin) patchWebhook(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var p topupd.WebhookPatch
	var url, description string
	var enabled bool
	if obj.take("url", &url) {
		p.URL = &url
	}
	if obj.has("events") {
		events := []string{}
		obj.take("events", &events)
		p.Events = &events
	}
	if obj.take("description", &description) {
		p.Description = &description
	}
	if obj.take("enabled", &enabled) {
		p.Enabled = &enabled
	}
	if err := obj.done(); err != nil {
		return err
	}
	e, err := a.Service.UpdateWebhook(r.Context(), a.actor(r), r.PathValue("endpointId"), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, webhookAnswer{Success: true, webhookView: viewWebhook(e)})
	return nil
}

// deleteWebhook removes an endpoint.
func (a *admin) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := a.Service.DeleteWebhook(r.Context(), a.actor(r), r.PathValue("endpointId")); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plainSuccess{Success: true})
	return nil
}

// secretAnswer is an endpoint's new secret, shown this once.
type secretAnswer struct {
	Success bool   `json:"success"`
	Secret  string `json:"secret"`
}

// rotateWebhookSecret gives an endpoint a new secret.
func (a *admin) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	if err := readEmpty(r); err != nil {
		return err
	}
	secret, err := a.Service.RotateWebhookSecret(r.Context(), a.actor(r), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, secretAnswer{Success: true, Secret: secret})
	return nil
}

// testAnswer names the test event queued.
type testAnswer struct {
	Success bool   `json:"success"`
	EventID string `json:"eventId"`
}

// testWebhook queues a webhook.test event for the endpoint alone.
func (a *admin) testWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := readEmpty(r); err != nil {
		return err
	}
	ev, err := a.Service.TestWebhook(r.Context(), a.actor(r), r.PathValue("endpointId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, testAnswer{Success: true, EventID: ev.ID})
	return nil
}

// deliveryView is one delivery as the admin API shows it.
type deliveryView struct {
	EventID       string     `json:"eventId"`
	Type          string     `json:"type"`
	State         string     `json:"state"`
	Attempts      int        `json:"attempts"`
	LastStatus    *int       `json:"lastStatus"`
	LastError     *string    `json:"lastError"`
	LastAttemptAt *time.Time `json:"lastAttemptAt"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	DeliveredAt   *time.Time `json:"deliveredAt"`
}

// deliveriesAnswer is a page of an endpoint's deliveries.
type deliveriesAnswer struct {
	Success    bool           `json:"success"`
	Deliveries []deliveryView `json:"deliveries"`
	NextCursor *string        `json:"nextCursor"`
}

// listDeliveries pages an endpoint's deliveries, newest first.
func (a *admin) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	p, err := parsePage(r.URL.Query(), nil, service.DeliveriesCursor)
	if err != nil {
		return err
	}
	page, err := a.Service.WebhookDeliveries(r.Context(), a.actor(r), r.PathValue("endpointId"), p.Before, p.Limit)
	if err != nil {
		return err
	}
	out := make([]deliveryView, len(page.Deliveries))
	for i, d := range page.Deliveries {
		v := deliveryView{EventID: d.EventID, Type: d.Type, State: d.State, Attempts: d.Attempts,
			LastAttemptAt: utcOrNil(d.LastAttemptAt), DeliveredAt: utcOrNil(d.DeliveredAt)}
		if d.Attempts > 0 && d.LastStatus != 0 {
			v.LastStatus = &d.LastStatus
		}
		if d.LastError != "" {
			v.LastError = &d.LastError
		}
		if d.State == topupd.DeliveryPending {
			v.NextAttemptAt = utcOrNil(d.NextAt)
		}
		out[i] = v
	}
	writeJSON(w, http.StatusOK, deliveriesAnswer{Success: true, Deliveries: out, NextCursor: nextCursor(service.DeliveriesCursor, page.Next)})
	return nil
}

// replayAnswer says how many deliveries a replay queued.
type replayAnswer struct {
	Success bool `json:"success"`
	Queued  int  `json:"queued"`
}

// replayWebhook sends events again: by id, or from a time to another.
func (a *admin) replayWebhook(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var q topupd.WebhookReplay
	obj.take("eventIds", &q.EventIDs)
	var from, to time.Time
	if obj.take("from", &from) {
		q.From = from
	}
	if obj.take("to", &to) {
		q.To = to
	}
	if err := obj.done(); err != nil {
		return err
	}
	n, err := a.Service.ReplayWebhook(r.Context(), a.actor(r), r.PathValue("endpointId"), q)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, replayAnswer{Success: true, Queued: n})
	return nil
}
