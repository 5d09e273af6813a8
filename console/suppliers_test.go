package console_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestDeleteUpstreamInTheConsole: the owner deletes an upstream from the
// suppliers page after confirming; one a pack still names is refused,
// naming the pack, and stays.
func TestDeleteUpstreamInTheConsole(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	for _, name := range []string{"used", "spare"} {
		b.h.AdminCall("PUT", "/admin/upstreams/"+name, map[string]any{"baseUrl": "http://127.0.0.1:1", "apiKey": "k-" + name}, nil)
	}
	b.h.PutPack("via-used", map[string]any{"slug": "pubg", "name": "60 UC, used", "priceUsd": topupdtest.USD("1.5"), "status": "active",
		"provider": "upstream", "upstream": "used", "upstreamPid": "x"})
	b.signIn(b.setUp("olga", "owner"))
	b.open("/console/suppliers")
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
