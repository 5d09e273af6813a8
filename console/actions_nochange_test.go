package console_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestNoChangeNoEntry: saving the settings' rules unchanged from the
// console, or patching a pack with its own price through the admin API,
// writes no entry in the action log; a real change still writes one.
func TestNoChangeNoEntry(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	b.signIn(b.setUp("own", "owner"))
	count := func(action, operator string) int {
		t.Helper()
		acts, err := b.h.AdminClient.Actions(t.Context(), url.Values{"action": {action}, "operator": {operator}})
		if err != nil {
			t.Fatal(err)
		}
		return len(acts.Actions)
	}

	t.Run("console settings", func(t *testing.T) {
		b.open("/console/settings")
		b.click("#save-rules")
		if n := count("settings.update", "own"); n != 0 {
			t.Errorf("saving unchanged rules: %d entries, want 0", n)
		}
		b.open("/console/settings")
		b.fill(map[string]string{"#sim-delay": "1234"})
		b.click("#save-rules")
		if n := count("settings.update", "own"); n != 1 {
			t.Errorf("changing the sim delay: %d entries, want 1", n)
		}
	})
	t.Run("admin API pack", func(t *testing.T) {
		before := count("pack.update", "root")
		b.h.AdminOK(http.StatusOK, "PATCH", "/admin/products/"+topupdtest.PIDPubg, map[string]any{"priceUsd": 0.89}) // its price already
		if n := count("pack.update", "root"); n != before {
			t.Errorf("a PATCH to the same price: %d entries, were %d", n, before)
		}
	})
}
