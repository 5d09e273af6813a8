package httpapi_test

import (
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestUpstreamLoopRefused, on SQLite and PostgreSQL: every answer names
// the instance; an order or a player check that has passed through more
// than three servers (or says a number of them that is not one), or
// through this one, is 400 UPSTREAM_LOOP, and no order is made and
// nothing charged; three servers before this one are allowed.
func TestUpstreamLoopRefused(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.LoadCatalog()
		a := h.NewAccount("10", nil)
		own := h.Do("GET", "/balance", a.Key, nil).Header.Get(topupd.HeaderInstance)
		if !topupd.ValidInstanceID(own) {
			t.Fatalf("Topupd-Instance %q", own)
		}
		if got := h.Do("GET", "/balance", "", nil); got.Header.Get(topupd.HeaderInstance) != own {
			t.Errorf("a 401 names instance %q, not %q", got.Header.Get(topupd.HeaderInstance), own)
		}
		other := "ins_0123456789abcdefghij"
		order := map[string]any{"pid": topupdtest.PIDPubg, "userId": "5551234"}
		check := map[string]any{"pid": topupdtest.PIDPubg, "userId": "5551234"}
		for _, c := range []struct {
			name            string
			instances, hops string
		}{
			{"four hops", other, "4"},
			{"hops not a number", other, "two"},
			{"through this server", other + "," + own, "2"},
			{"this server alone", own, ""},
		} {
			hdr := topupdtest.Headers{"X-API-Key": a.Key, topupd.HeaderInstance: c.instances, topupd.HeaderHops: c.hops}
			order["trxid"] = h.Trx()
			for what, r := range map[string]topupdtest.Reply{
				"order":        h.DoH("POST", "/orders", hdr, order),
				"player check": h.DoH("POST", "/players/check", hdr, check),
			} {
				if r.Status != 400 || r.Str("code") != "UPSTREAM_LOOP" || r.Str("error") != "UPSTREAM_LOOP" || r.Body["retryable"] != false {
					t.Errorf("%s, %s: %s; want 400 UPSTREAM_LOOP", c.name, what, r)
				}
			}
		}
		if n := h.HistoryCount(a); n != 0 {
			t.Errorf("%d orders after refused loops", n)
		}
		if bal := h.Balance(a); bal != "10" {
			t.Errorf("balance %s after refused loops, want 10", bal)
		}
		hdr := topupdtest.Headers{"X-API-Key": a.Key, topupd.HeaderInstance: other + ",not-an-id", topupd.HeaderHops: "3"}
		order["trxid"] = h.Trx()
		if r := h.DoH("POST", "/orders", hdr, order); r.Status != 200 || r.Str("orderId") == "" {
			t.Errorf("an order after three servers: %s", r)
		}
	})
}
