package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// operatorEvent is one operator event as GET /admin/events shows it.
type operatorEvent struct {
	ID        string           `json:"id"`
	Type      topupd.EventType `json:"type"`
	Timestamp time.Time        `json:"timestamp"`
	Data      topupd.EventData `json:"data"`
}

// operatorEventsAnswer is a page of the operator events.
type operatorEventsAnswer struct {
	Success bool            `json:"success"`
	Events  []operatorEvent `json:"events"`
	HasMore bool            `json:"hasMore"`
}

// listOperatorEvents answers the operator events after ?after=, oldest
// first, ?limit= (1 to 100, default 100) at a time.
func (a *admin) listOperatorEvents(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	for name, vals := range v {
		if name != "after" && name != "limit" {
			return topupd.Errorf(topupd.EInvalidRequest, "unknown parameter %q", name)
		}
		if len(vals) > 1 || vals[0] == "" {
			return topupd.Errorf(topupd.EInvalidRequest, "%s: given empty or more than once", name)
		}
	}
	limit := 100
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return topupd.Errorf(topupd.EInvalidRequest, "limit: a whole number from 1 to 100")
		}
		limit = n
	}
	events, more, err := a.Service.OperatorEvents(r.Context(), a.actor(r), v.Get("after"), limit)
	if err != nil {
		return err
	}
	out := operatorEventsAnswer{Success: true, Events: make([]operatorEvent, len(events)), HasMore: more}
	for i, e := range events {
		out.Events[i] = operatorEvent{ID: e.ID, Type: e.Type, Timestamp: e.At.UTC(), Data: e.Data}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
