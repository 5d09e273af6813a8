package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/httpapi"
	"github.com/topupd/topupd/internal/topupdtest"
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

// TestInProcessAdminCalls: through httpapi.Transport a call is made as the
// operator its context names, with that operator's role, and is logged
// under their name and the caller's IP and request id; a disabled or
// unknown operator, or a context that names none, is 401.
func TestInProcessAdminCalls(t *testing.T) {
	t.Parallel()
	h := topupdtest.New(t)
	a := h.NewAccount("10", nil)
	h.NewOperator("kim", "finance")
	h.NewOperator("vic", "viewer")
	adm, err := client.NewAdmin("http://admin.invalid", "unused", client.WithRetries(0),
		client.WithHTTPClient(&http.Client{Transport: httpapi.Transport{Admin: h.App.Admin}}))
	if err != nil {
		t.Fatal(err)
	}
	as := func(name string) context.Context {
		return httpapi.AsOperator(t.Context(), name, "198.51.100.7", "req-console-1", "")
	}
	if _, err := adm.Credit(as("kim"), a.ID, client.Money(10_000), "in-process"); err != nil {
		t.Fatalf("kim's credit: %v", err)
	}
	acts, err := h.AdminClient.Actions(t.Context(), url.Values{"action": {"account.credit"}})
	if err != nil || len(acts.Actions) != 2 { // the harness's opening credit, and kim's
		t.Fatalf("the action log: %+v, %v", acts, err)
	}
	if got := acts.Actions[0]; got.Operator != "kim" || got.IP != "198.51.100.7" || got.RequestID != "req-console-1" {
		t.Errorf("kim's credit is logged as %+v", got)
	}
	if _, err := adm.Credit(as("vic"), a.ID, client.Money(10_000), "viewer"); !client.IsCode(err, "ROLE_FORBIDDEN") {
		t.Errorf("a viewer's credit: %v", err)
	}
	h.AdminOK(http.StatusOK, "PATCH", "/admin/operators/kim", map[string]any{"disabled": true})
	for what, ctx := range map[string]context.Context{"disabled": as("kim"), "unknown": as("nobody"), "no operator": t.Context()} {
		if _, err := adm.Settings(ctx); !client.IsCode(err, "UNAUTHORIZED") {
			t.Errorf("%s: %v, want UNAUTHORIZED", what, err)
		}
	}
	if _, err := adm.Settings(as("root")); err != nil {
		t.Errorf("root: %v", err)
	}
}
