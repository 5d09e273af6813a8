package console_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// TestOrderShowsSupplierAttempts: an order of a pack that lists two
// suppliers, the first of which refuses it, shows each supplier on its
// page, with how trying it went; an order of a pack without a list shows
// none.
func TestOrderShowsSupplierAttempts(t *testing.T) {
	t.Parallel()
	b := newTab(t)
	b.h.LoadCatalog()
	up := topupdtest.New(t)
	up.LoadCatalog()
	ours := up.NewAccount("10", nil)
	b.h.Logs.Secret(ours.Key, "our key at the upstream")
	b.h.AdminCall("PUT", "/admin/upstreams/up", map[string]any{"baseUrl": up.API.URL, "apiKey": ours.Key}, nil)
	b.h.PutPack("two-suppliers", map[string]any{"slug": "pubg", "name": "60 UC, two suppliers", "priceUsd": topupdtest.USD("1.5"),
		"status": "active", "suppliers": []any{
			map[string]any{"provider": "upstream", "upstream": "up", "upstreamPid": "no-such-pack"},
			map[string]any{"provider": "upstream", "upstream": "up", "upstreamPid": topupdtest.PIDPubg, "costUsd": topupdtest.USD("0.8")},
		}})
	a := b.h.NewAccount("10", nil)
	listed := b.h.Place(a, map[string]any{"pid": "two-suppliers", "userId": "5123456", "trxid": b.h.Trx()}).Str("orderId")
	if r := b.h.WaitOrder(a, listed); r.Str("status") != "completed" {
		t.Fatalf("the order of two suppliers: %v", r)
	}
	plain := b.h.Place(a, map[string]any{"pid": topupdtest.PIDPubg, "userId": "5123456", "trxid": b.h.Trx()}).Str("orderId")
	b.h.WaitOrder(a, plain)

	b.signIn(b.setUp("vic", "viewer"))
	b.open("/console/orders/" + listed)
	got := b.text("#supplier-attempts")
	for _, want := range []string{"no-such-pack", "refused", "UPSTREAM: UNKNOWN PID", "the pack's", topupdtest.PIDPubg, "0.80", "completed"} {
		if !strings.Contains(got, want) {
			t.Errorf("the order's suppliers %q do not say %q", got, want)
		}
	}
	if strings.Index(got, "refused") > strings.Index(got, "completed") {
		t.Errorf("the order's suppliers are not in order: %q", got)
	}
	b.open("/console/orders/" + plain)
	if b.has("#supplier-attempts") {
		t.Errorf("an order of a pack without suppliers shows %q", b.text("#supplier-attempts"))
	}
}
