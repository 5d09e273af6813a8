package console_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOrderCodesMaskedAndRevealed: a completed stock order's page shows
// its delivered codes masked to their last 4 characters to every role;
// the owner alone is offered "Show the full codes", a POST that writes
// order.codes-viewed to the action log and then shows them in full.
func TestOrderCodesMaskedAndRevealed(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	a := b.h.NewAccount("100", nil)
	o := b.h.Place(a, map[string]any{"pid": topupdtest.PIDKey, "trxid": b.h.Trx()})
	id := o.Str("orderId")
	code := b.h.Codes[topupdtest.PIDKey][0]
	masked := topupd.MaskCode(code)
	own := b.setUp("own", "owner")
	b.signIn(own)

	t.Run("support sees them masked, no reveal", func(t *testing.T) {
		sb := b.also()
		sb.signIn(sb.setUp("sup", "support"))
		sb.open("/console/orders/" + id)
		if got := sb.text("#order-codes"); !strings.Contains(got, masked) || strings.Contains(got, code) {
			t.Errorf("support's codes: %q, want %q and not %q", got, masked, code)
		}
		if sb.has("#reveal-codes") {
			t.Error("support is offered the full codes")
		}
	})
	t.Run("the owner reveals them, recorded", func(t *testing.T) {
		b.open("/console/orders/" + id)
		if got := b.text("#order-codes"); !strings.Contains(got, masked) || strings.Contains(got, code) {
			t.Errorf("the owner's codes before the reveal: %q", got)
		}
		b.click("#reveal-codes")
		if got := b.text("#order-codes"); !strings.Contains(got, code) || !strings.Contains(got, "in the action log") {
			t.Errorf("the codes after the reveal: %q, want %q", got, code)
		}
		acts, err := b.h.AdminClient.Actions(t.Context(), url.Values{"action": {"order.codes-viewed"}, "operator": {"own"}})
		if err != nil || len(acts.Actions) != 1 || acts.Actions[0].Target != id {
			t.Errorf("the reveal in the action log: %+v, %v", acts, err)
		}
	})
}
