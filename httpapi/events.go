package httpapi

import (
	"net/http"

	"github.com/topupd/topupd"
)

// eventsAnswer is a page of the caller's events, oldest first.
type eventsAnswer struct {
	Success bool                 `json:"success"`
	Events  []topupd.WebhookBody `json:"events"`
	HasMore bool                 `json:"hasMore"`
}

// events answers the caller's events after the one named (from the oldest
// kept without after), the same objects its webhooks send: the fallback
// for anything a receiver missed (integration.md "Pulling events").
func (a *reseller) events(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := intParam(q.Get("limit"), "limit", 100, 1, 100)
	if err != nil {
		return err
	}
	list, more, err := a.Service.CallerEvents(r.Context(), callerOf(r.Context()).caller(), q.Get("after"), limit)
	if err != nil {
		return err
	}
	out := make([]topupd.WebhookBody, len(list))
	for i := range list {
		out[i] = list[i].Body()
	}
	writeJSON(w, http.StatusOK, eventsAnswer{Success: true, Events: out, HasMore: more})
	return nil
}
