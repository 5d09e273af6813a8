package storetest

import (
	"testing"

	"github.com/topupd/topupd"
)

// testTermsFollowChanges places an order of one pack after each change to
// what prices or admits it: the pack, the account's tier and the tier's
// prices, the account's own price, its limits, the line. Each order must
// see the change before it, whatever a store keeps from the order before
// (the SQL stores keep the catalog and prices an order read, under a
// version every such change raises).
func testTermsFollowChanges(t *testing.T, e *env) {
	e.catalog()
	a := e.account("buyer", topupd.USD(1_000))
	other := e.account("other", topupd.USD(1_000))
	n := 0
	expect := func(who topupd.Account, want topupd.Money, what string) {
		t.Helper()
		n++
		o := e.place(who.ID, topup(e.uniq("T-TERMS")), t0)
		if o.Amount != want {
			t.Errorf("order %d, %s: charged %v, want %v", n, what, o.Amount, want)
		}
	}
	refused := func(code topupd.ErrorCode, what string) {
		t.Helper()
		if _, _, err := e.try(a.ID, topup(e.uniq("T-TERMS"))); topupd.CodeOf(err) != code {
			t.Errorf("%s: PlaceOrder err = %v, want %s", what, err, code)
		}
	}
	patch := func(p topupd.AccountPatch) {
		t.Helper()
		if _, err := e.s.UpdateAccount(e.ctx, nil, a.ID, p); err != nil {
			t.Fatalf("UpdateAccount: %v", err)
		}
	}
	putPack := func(change func(*topupd.Pack)) {
		t.Helper()
		p := packs[0]
		change(&p)
		if err := e.s.PutPack(e.ctx, nil, p); err != nil {
			t.Fatalf("PutPack: %v", err)
		}
	}
	expect(a, priceTopup, "the pack's price")
	expect(a, priceTopup, "the pack's price again")
	putPack(func(p *topupd.Pack) { p.Price = 2 * priceTopup })
	expect(a, 2*priceTopup, "the pack's new price")
	expect(other, 2*priceTopup, "the pack's new price, another account")

	tier := func(price topupd.Money) {
		t.Helper()
		if _, err := e.s.PutTier(e.ctx, nil, topupd.Tier{Name: "gold", Prices: map[string]topupd.Money{pidTopup: price}, UpdatedAt: t0}); err != nil {
			t.Fatalf("PutTier: %v", err)
		}
	}
	tier(3 * priceTopup)
	expect(a, 2*priceTopup, "a tier the account is not on")
	gold := "gold"
	goldp := &gold
	patch(topupd.AccountPatch{Tier: &goldp})
	expect(a, 3*priceTopup, "the account's new tier")
	expect(other, 2*priceTopup, "another account, on no tier")
	tier(4 * priceTopup)
	expect(a, 4*priceTopup, "the tier's new price")

	if err := e.s.SetAccountPrice(e.ctx, nil, a.ID, pidTopup, 5*priceTopup); err != nil {
		t.Fatalf("SetAccountPrice: %v", err)
	}
	expect(a, 5*priceTopup, "the account's own price")
	expect(other, 2*priceTopup, "another account's price")

	limit := 5*priceTopup - 1
	limitp := &limit
	patch(topupd.AccountPatch{Limits: topupd.LimitsPatch{"maxOrderUsd": limitp}})
	refused(topupd.ESpendLimit, "an order over the account's new limit")
	var none *topupd.Money
	patch(topupd.AccountPatch{Limits: topupd.LimitsPatch{"maxOrderUsd": none}})
	expect(a, 5*priceTopup, "the limit lifted")

	var noTier *string
	patch(topupd.AccountPatch{Tier: &noTier})
	expect(a, 5*priceTopup, "off the tier, the own price stands")

	putPack(func(p *topupd.Pack) { p.Status = topupd.StatusDisabled })
	refused(topupd.EProductDisabled, "a pack taken off sale")
	putPack(func(p *topupd.Pack) {})
	line := lines[0]
	line.Status = topupd.StatusDisabled
	if err := e.s.PutLine(e.ctx, nil, line); err != nil {
		t.Fatalf("PutLine: %v", err)
	}
	refused(topupd.EGameDisabled, "a line taken off sale")
}
