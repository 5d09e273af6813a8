package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestSetupLink: the owner gets a one-time console link for an operator,
// valid 24 h, on the admin host; other roles may not; an unknown operator
// is 404; the action log has the call and never the link, and neither has
// the log.
func TestSetupLink(t *testing.T) {
	t.Parallel()
	clock := topupdtest.NewClock()
	h := topupdtest.New(t, topupdtest.WithClock(clock))
	h.NewOperator("kim", "support")
	r := h.AdminOK(http.StatusCreated, "POST", "/admin/operators/kim/setup-link", nil)
	link := r.Str("url")
	h.Logs.Secret(link[strings.LastIndex(link, "/")+1:], "kim's setup link")
	if want := h.Admin.URL + "/console/setup/"; !strings.HasPrefix(link, want) {
		t.Errorf("url %s, want it under %s", link, want)
	}
	if at, err := time.Parse(time.RFC3339Nano, r.Str("expiresAt")); err != nil || !at.Equal(clock.Now().Add(24*time.Hour)) {
		t.Errorf("expiresAt %s, want 24 h from now (%v)", r.Str("expiresAt"), clock.Now().Add(24*time.Hour))
	}
	support := h.NewOperator("lee", "support")
	wantFailure(t, h.AdminAs(support, "POST", "/admin/operators/kim/setup-link", nil), 403, "ROLE_FORBIDDEN", "ROLE FORBIDDEN")
	wantFailure(t, h.AdminDo("POST", "/admin/operators/nobody/setup-link", nil), 404, "NOT_FOUND", "NOT FOUND")
	acts, err := h.AdminClient.Actions(t.Context(), url.Values{"action": {"operator.setup-link"}})
	if err != nil || len(acts.Actions) != 1 || acts.Actions[0].Target != "kim" || acts.Actions[0].Operator != "root" {
		t.Fatalf("the action log: %+v, %v", acts, err)
	}
	if strings.Contains(jsonText(t, acts), link[strings.LastIndex(link, "/")+1:]) {
		t.Error("the action log holds the link")
	}
}
