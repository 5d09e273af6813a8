package console_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDeleteUpstreamInTheConsole: the owner deletes an upstream from the
// suppliers page after confirming; one a pack still names is refused,
// naming the pack, and stays. "Test the connection" shows our balance at
// an upstream that answers, and marks one that does not failing.
func TestDeleteUpstreamInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	for _, name := range []string{"used", "spare"} {
		b.h.AdminCall("PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-" + name, "check": false}, nil)
	}
	b.h.PutPack("via-used", map[string]any{"slug": "pubg", "name": "60 UC, used", "priceUsd": topupdtest.USD("1.5"), "status": "active",
		"provider": "upstream", "upstream": "used", "upstreamPid": "x"})
	up := topupdtest.New(t)
	ours := up.NewAccount("7", nil)
	b.h.Logs.Secret(ours.Key, "our key at the upstream")
	b.h.AdminCall("PUT", "/admin/upstreams/real", map[string]any{"baseUrl": up.API.URL, "apiKey": ours.Key}, nil)
	b.signIn(b.setUp("olga", "owner"))
	b.open("/console/suppliers")
	b.click("#check-upstream-real")
	if got := b.text("#flash"); got != "Upstream real answers: our balance there is 7.00." {
		t.Errorf("testing the connection: %q", got)
	}
	b.open("/console/suppliers")
	b.click("#check-upstream-spare")
	if got := b.text("#error"); !strings.Contains(got, "UPSTREAM_UNREACHABLE") && !strings.Contains(got, "UPSTREAM UNREACHABLE") {
		t.Errorf("testing an upstream that does not answer: %q", got)
	}
	b.open("/console/suppliers")
	if got, bal := b.text("#upstream-state-spare"), b.text("#upstream-balance-real"); got != "failing" || bal != "7.00" {
		t.Errorf("after the tests: spare %q, real's balance %q", got, bal)
	}
	b.confirm("#delete-upstream-used")
	if got := b.text("#error"); !strings.Contains(got, "via-used") {
		t.Errorf("deleting an upstream in use: %q; want the pack named", got)
	}
	b.open("/console/suppliers")
	b.confirm("#delete-upstream-spare")
	if got := b.text("#flash"); got != "Upstream spare is deleted." {
		t.Errorf("deleting a spare upstream: %q", got)
	}
	if b.has("#delete-upstream-spare") || !b.has("#delete-upstream-used") {
		t.Errorf("the upstreams after the delete: %s", b.text("#upstreams"))
	}
}
