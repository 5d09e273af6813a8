package webhooks_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestPullEvents: GET /events lists the account's events oldest first,
// the same objects its webhooks got, paged by after and limit;
// webhook.test events are not among them; an unknown after, another
// account's, or a bad limit is 400 INVALID REQUEST.
func TestPullEvents(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a, other := h.NewAccount("", nil), h.NewAccount("5", nil)
		rc := newReceiver(t, nil)
		id, _ := endpoint(t, h, a.ID, rc.URL, nil)
		test := h.AdminOK(http.StatusAccepted, "POST", "/admin/webhooks/"+id+"/test", nil).Str("eventId")
		h.Credit(a, "3")
		h.Credit(a, "4")
		h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": h.Trx(), "quantity": 1})
		got := rc.wait(t, 4)
		var page topupdtest.Reply
		waitFor(t, func() bool {
			page = h.Do("GET", "/events", a.Key, nil)
			return page.Status == 200 && len(page.Body["events"].([]any)) == 3
		}, "three events")
		sent := map[string]any{}
		for _, g := range got {
			var v any
			if err := json.Unmarshal(g.Body, &v); err != nil {
				t.Fatal(err)
			}
			sent[g.ID] = v
		}
		var all []any
		if err := json.Unmarshal(page.Raw, &struct{ Events *[]any }{&all}); err != nil {
			t.Fatal(err)
		}
		types := []string{}
		for _, e := range all {
			ev := e.(map[string]any)
			types = append(types, ev["type"].(string))
			if diff := cmp.Diff(sent[ev["id"].(string)], e); diff != "" {
				t.Errorf("event %s (-sent +listed):\n%s", ev["id"], diff)
			}
		}
		if diff := cmp.Diff([]string{"balance.credited", "balance.credited", "order.completed"}, types); diff != "" || page.Body["hasMore"] != false {
			t.Errorf("types (-want +got):\n%s; hasMore %v", diff, page.Body["hasMore"])
		}
		ids := func(r topupdtest.Reply) []string {
			var out []string
			for _, e := range r.Body["events"].([]any) {
				out = append(out, e.(map[string]any)["id"].(string))
			}
			return out
		}
		all3 := ids(page)
		first := h.Do("GET", "/events?limit=2", a.Key, nil)
		if diff := cmp.Diff(all3[:2], ids(first)); diff != "" || first.Body["hasMore"] != true {
			t.Errorf("the first page (-want +got):\n%s; hasMore %v", diff, first.Body["hasMore"])
		}
		next := h.Do("GET", "/events?limit=2&after="+all3[1], a.Key, nil)
		if diff := cmp.Diff(all3[2:], ids(next)); diff != "" || next.Body["hasMore"] != false {
			t.Errorf("the next page (-want +got):\n%s; hasMore %v", diff, next.Body["hasMore"])
		}
		if last := h.Do("GET", "/events?after="+all3[2], a.Key, nil); len(ids(last)) != 0 || last.Body["hasMore"] != false {
			t.Errorf("after the last: %s", last.Raw)
		}
		var theirs string
		waitFor(t, func() bool {
			ev := h.Do("GET", "/events", other.Key, nil).Body["events"].([]any)
			if len(ev) == 1 {
				theirs = ev[0].(map[string]any)["id"].(string)
			}
			return theirs != ""
		}, "the other account's credit")
		for _, q := range []string{"after=evt_nope", "after=" + theirs, "after=" + test, "limit=0", "limit=101", "limit=x"} {
			r := h.Do("GET", "/events?"+q, a.Key, nil)
			if r.Status != 400 || r.Str("code") != "INVALID_REQUEST" || r.Str("error") != "INVALID REQUEST" {
				t.Errorf("GET /events?%s: %v", q, r)
			}
		}
	}, topupdtest.WithWebhookReceivers(0))
}
