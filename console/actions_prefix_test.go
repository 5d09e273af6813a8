package console_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestActionsByPrefix: the action log's Action filter ending in "."
// selects every action of that kind: "pack." lists pack.update and no
// other kind; a full name still selects that action alone.
func TestActionsByPrefix(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.h.AdminOK(200, "PATCH", "/admin/products/"+topupdtest.PIDPubg, map[string]any{"priceUsd": 0.99})
	b.signIn(b.setUp("own", "owner"))
	b.open("/console/actions?action=pack.")
	got := b.text("#actions tbody")
	if !strings.Contains(got, "pack.update") || strings.Contains(got, "operator.") || strings.Contains(got, "No actions.") {
		t.Errorf("the log filtered by pack.: %q", got)
	}
	b.open("/console/actions?action=pack.create")
	if got := b.text("#actions tbody"); strings.Contains(got, "pack.update") {
		t.Errorf("the log filtered by pack.create lists pack.update: %q", got)
	}
}
