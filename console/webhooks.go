package console

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// webhookEvents are the event types an endpoint may ask for, in the
// order the forms list them (integration.md "Webhooks"): the event
// registry's (topupd.EventKinds); a test event is sent from its own button.
var webhookEvents = topupd.StreamWebhookTypes()

// webhooksData is the page of an account's webhook endpoints.
type webhooksData struct {
	AccountID string
	Endpoints []topupd.WebhookEndpoint
	Events    []string
	// New is an endpoint just made, with its secret shown this once.
	New *topupd.WebhookEndpoint
}

// webhookData is one endpoint's page: its settings and its deliveries.
type webhookData struct {
	E          topupd.WebhookEndpoint
	Events     []string
	Deliveries []topupd.WebhookDelivery
	Next       template.URL
	// Secret is a new secret, shown this once after a rotation.
	Secret string
}

// Wants reports whether the endpoint asks for an event type (none named: all).
func (d webhookData) Wants(event string) bool {
	if len(d.E.Events) == 0 {
		return true
	}
	for _, e := range d.E.Events {
		if e == event {
			return true
		}
	}
	return false
}

// webhooks lists an account's webhook endpoints, with the form that adds one.
func (c *Console) webhooks(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.webhooksOf(r, s, r.PathValue("id"))
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "webhooks", "Webhooks of "+d.AccountID, d)
	return nil
}

// webhooksOf reads an account's endpoints.
func (c *Console) webhooksOf(r *http.Request, s *session, id string) (webhooksData, error) {
	list, err := c.Service.Webhooks(r.Context(), s.actor, id)
	return webhooksData{AccountID: id, Endpoints: list, Events: webhookEvents}, err
}

// formEvents are the event types a form's checkboxes chose; none is every type.
func formEvents(r *http.Request) []string {
	out := []string{}
	for _, e := range webhookEvents {
		if r.PostFormValue("event-"+e) == "yes" {
			out = append(out, e)
		}
	}
	return out
}

// createWebhook adds an endpoint and shows its secret once.
func (c *Console) createWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	id := r.PathValue("id")
	in := service.WebhookInput{URL: strings.TrimSpace(r.PostFormValue("url")), Events: formEvents(r), Description: strings.TrimSpace(r.PostFormValue("description"))}
	e, err := c.Service.CreateWebhook(r.Context(), s.actor, id, in)
	if err != nil {
		if code := topupd.CodeOf(err); code == topupd.EInvalidBody || code == topupd.EWebhookURLForbidden || code == topupd.EWebhookLimit {
			err = fieldError{Field: "url", Msg: sentence(webhookRefusal(err))}
		}
		return c.formFailed(w, r, s, err, "webhooks", func() (string, any, error) {
			d, err := c.webhooksOf(r, s, id)
			return "Webhooks of " + id, d, err
		})
	}
	d, err := c.webhooksOf(r, s, id)
	if err != nil {
		return err
	}
	d.New = &e
	c.render(w, r, s, http.StatusCreated, "webhooks", "Webhooks of "+id, d)
	return nil
}

// webhookRefusal is a service refusal of an endpoint in plain words.
func webhookRefusal(err error) string {
	var msg string
	var de *topupd.Error
	if errors.As(err, &de) {
		msg = de.Detail
	}
	switch topupd.CodeOf(err) {
	case topupd.EWebhookURLForbidden:
		return "the URL must be https:// on a public address (" + msg + ")"
	case topupd.EWebhookLimit:
		return fmt.Sprintf("an account may have at most %d endpoints", topupd.MaxWebhookEndpoints)
	}
	if msg == "" {
		return "the endpoint is not valid"
	}
	return msg
}

// webhook shows one endpoint and a page of its deliveries, newest first.
func (c *Console) webhook(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.webhookOf(r, s, r.PathValue("eid"))
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "webhook", "Webhook "+d.E.ID, d)
	return nil
}

// webhookOf reads an endpoint and the page of deliveries the query's cursor names.
func (c *Console) webhookOf(r *http.Request, s *session, id string) (webhookData, error) {
	e, err := c.Service.Webhook(r.Context(), s.actor, id)
	if err != nil {
		return webhookData{}, err
	}
	q := r.URL.Query()
	before, err := service.ParseListCursor(service.DeliveriesCursor, strings.TrimSpace(q.Get("cursor")))
	if err != nil {
		return webhookData{}, err
	}
	page, err := c.Service.WebhookDeliveries(r.Context(), s.actor, id, before, 50)
	if err != nil {
		return webhookData{}, err
	}
	d := webhookData{E: e, Events: webhookEvents, Deliveries: page.Deliveries}
	if page.Next != nil {
		d.Next = (pageQuery(q, "cursor", service.ListCursor(service.DeliveriesCursor, *page.Next)))
	}
	return d, nil
}

// webhookAction runs one of an endpoint's forms: save, enable, disable,
// test, replay, rotate (a new secret, shown once) or delete; the last two
// after a confirmation.
func (c *Console) webhookAction(w http.ResponseWriter, r *http.Request, s *session) error {
	ctx, id := r.Context(), r.PathValue("eid")
	back := "/console/webhooks/" + url.PathEscape(id)
	e, err := c.Service.Webhook(ctx, s.actor, id)
	if err != nil {
		return err
	}
	switch r.PathValue("action") {
	case "save":
		u, desc, ev := strings.TrimSpace(r.PostFormValue("url")), strings.TrimSpace(r.PostFormValue("description")), formEvents(r)
		_, err := c.Service.UpdateWebhook(ctx, s.actor, id, topupd.WebhookPatch{URL: &u, Description: &desc, Events: &ev})
		if err != nil {
			if code := topupd.CodeOf(err); code == topupd.EInvalidBody || code == topupd.EWebhookURLForbidden {
				err = fieldError{Field: "url", Msg: sentence(webhookRefusal(err))}
			}
			return c.formFailed(w, r, s, err, "webhook", func() (string, any, error) {
				d, err := c.webhookOf(r, s, id)
				return "Webhook " + id, d, err
			})
		}
		return c.done(w, r, back, "The endpoint is saved.")
	case "enable", "disable":
		on := r.PathValue("action") == "enable"
		if _, err := c.Service.UpdateWebhook(ctx, s.actor, id, topupd.WebhookPatch{Enabled: &on}); err != nil {
			return err
		}
		return c.done(w, r, back, map[bool]string{true: "The endpoint is on: deliveries go out again.", false: "The endpoint is off: nothing is sent to it."}[on])
	case "test":
		ev, err := c.Service.TestWebhook(ctx, s.actor, id)
		if err != nil {
			return err
		}
		return c.done(w, r, back, "A webhook.test event ("+ev.ID+") is on its way.")
	case "replay":
		return c.replayWebhook(w, r, s, id, back)
	case "rotate":
		if !c.confirmed(w, r, s, "Give "+id+" a new secret? The old one keeps signing for "+fmt.Sprintf("%.0f hours", topupd.WebhookSecretOverlap.Hours())+", then only the new one does.", back) {
			return nil
		}
		secret, err := c.Service.RotateWebhookSecret(ctx, s.actor, id)
		if err != nil {
			return err
		}
		d, err := c.webhookOf(r, s, id)
		if err != nil {
			return err
		}
		d.Secret = secret
		c.render(w, r, s, http.StatusOK, "webhook", "Webhook "+id, d)
		return nil
	case "delete":
		if !c.confirmed(w, r, s, "Delete the endpoint "+e.URL+"? Nothing more is sent to it, and its delivery log goes with it.", back) {
			return nil
		}
		if err := c.Service.DeleteWebhook(ctx, s.actor, id); err != nil {
			return err
		}
		return c.done(w, r, "/console/accounts/"+url.PathEscape(e.AccountID)+"/webhooks", "The endpoint "+e.URL+" is deleted.")
	}
	return pageError{http.StatusNotFound, "There is no such action."}
}

// replayWebhook sends events again: one (its id from the delivery log) or
// those of a time range typed as UTC date-times.
func (c *Console) replayWebhook(w http.ResponseWriter, r *http.Request, s *session, id, back string) error {
	var q topupd.WebhookReplay
	if ev := strings.TrimSpace(r.PostFormValue("eventId")); ev != "" {
		q.EventIDs = []string{ev}
	} else {
		var err error
		if q.From, err = formUTC(r, "from"); err != nil {
			return err
		}
		if q.To, err = formUTC(r, "to"); err != nil {
			return err
		}
		if q.From.IsZero() {
			return c.formFailed(w, r, s, fieldError{Field: "from", Msg: "Say from when to send the events again."}, "webhook", func() (string, any, error) {
				d, err := c.webhookOf(r, s, id)
				return "Webhook " + id, d, err
			})
		}
	}
	n, err := c.Service.ReplayWebhook(r.Context(), s.actor, id, q)
	if err != nil {
		return err
	}
	return c.done(w, r, back, plural(n, "event")+" queued to be sent again.")
}

// formUTC reads a datetime-local field as UTC; empty is the zero time.
func formUTC(r *http.Request, name string) (time.Time, error) {
	v := strings.TrimSpace(r.PostFormValue(name))
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, pageError{http.StatusBadRequest, "The time " + v + " is not a date and time (YYYY-MM-DDTHH:MM)."}
}
