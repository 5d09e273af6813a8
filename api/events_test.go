package api_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/api"
)

// TestWebhookTypesFollowTheRegistry: both documents list exactly the
// webhook types the event registry (topupd.EventKinds) makes, in its
// order: GET /events's events (reseller.yaml's Event) the stream's, and an
// endpoint's list (admin.yaml's WebhookEventType) those and webhook.test.
func TestWebhookTypesFollowTheRegistry(t *testing.T) {
	for _, c := range []struct {
		doc, schema string
		data        []byte
		want        []string
	}{
		{"reseller.yaml", "Event", api.ResellerYAML(), topupd.StreamWebhookTypes()},
		{"admin.yaml", "WebhookEventType", api.AdminYAML(), topupd.WebhookEventTypes},
	} {
		s := load(t, c.doc, c.data).Components.Schemas[c.schema]
		if s == nil || s.Value == nil {
			t.Fatalf("%s: no schema %s", c.doc, c.schema)
		}
		v := s.Value
		if c.schema == "Event" {
			v = v.Properties["type"].Value
		}
		var got []string
		for _, e := range v.Enum {
			got = append(got, e.(string))
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s %s's types (-registry +document):\n%s", c.doc, c.schema, diff)
		}
	}
}
