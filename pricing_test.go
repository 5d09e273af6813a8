package topupd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOffList: a list price less a percentage, rounded up to the step or
// the cent, never down; none without a percentage.
func TestOffList(t *testing.T) {
	pct := func(n int64) *Percent { p := Percent(n * percentScale); return &p }
	for _, c := range []struct {
		off     *Percent
		roundTo Money
		list    Money
		want    Money // 0: no price
	}{
		{pct(5), 0, 9_500, 9_100},           // 0.9025 → 0.91
		{pct(5), 500, 9_500, 9_500},         // to 0.05: 0.95
		{pct(50), Cent, USD(3), USD(3) / 2}, // exact
		{pct(10), Cent, 1, Cent},            // a unit off a unit: a cent
		{nil, Cent, USD(1), 0},
	} {
		tier := Tier{PercentOff: c.off, RoundTo: c.roundTo}
		got, ok := tier.OffList(c.list)
		if ok != (c.want != 0) || got != c.want {
			t.Errorf("%v off %s (round %s): %s (%v), want %s", c.off, c.list, c.roundTo, got, ok, c.want)
		}
	}
}

// TestTierValidateCents: whole cents for listed prices and the rounding,
// one of markup and discount, a discount above 0 and below 100.
func TestTierValidateCents(t *testing.T) {
	ten, hundred := Percent(10*percentScale), Percent(100*percentScale)
	for what, tier := range map[string]Tier{
		"a listed price of 3 decimals": {Name: "t", RoundTo: Cent, Prices: map[string]Money{"p": 10_010}},
		"a rounding below a cent":      {Name: "t", RoundTo: 50},
		"a rounding of 1.5 cents":      {Name: "t", RoundTo: 150},
		"markup and discount":          {Name: "t", RoundTo: Cent, Markup: &ten, PercentOff: &ten},
		"a discount of 100":            {Name: "t", RoundTo: Cent, PercentOff: &hundred},
	} {
		if err := tier.Validate(); CodeOf(err) != EInvalidBody {
			t.Errorf("%s: %v, want INVALID_BODY", what, err)
		}
	}
	ok := Tier{Name: "t", RoundTo: 500, PercentOff: &ten, Prices: map[string]Money{"p": USD(1)}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a whole tier: %v", err)
	}
}

// TestUndercuts: every price below the pack's highest cost, the pack's
// own first, then tiers (listed, marked up, off the list), accounts' own
// and the scheduled one; nothing without a cost.
func TestUndercuts(t *testing.T) {
	markup, off := Percent(20*percentScale), Percent(20*percentScale)
	p := Pack{PID: "p", Price: USD(1), Cost: 5_000, Suppliers: []Supplier{{Provider: ProviderSim, Cost: 9_000}}}
	next := Money(8_000)
	prices := PackPrices{
		Tiers: []Tier{
			{Name: "gold", RoundTo: Cent, Prices: map[string]Money{"p": 8_500}},
			{Name: "markup", RoundTo: Cent, Markup: &markup, Prices: map[string]Money{}}, // 0.60 on costUsd
			{Name: "off", RoundTo: Cent, PercentOff: &off, Prices: map[string]Money{}},   // 0.80
			{Name: "plain", RoundTo: Cent, Prices: map[string]Money{}},                   // the pack's price: not the tier's
		},
		Own:       []AccountPrice{{AccountID: "acc_a", Price: 9_000}, {AccountID: "acc_b", Price: 7_000}},
		Scheduled: &next,
	}
	want := []Undercut{{Kind: UndercutTier, Name: "gold", Price: 8_500}, {Kind: UndercutTier, Name: "markup", Price: 6_000},
		{Kind: UndercutTier, Name: "off", Price: 8_000}, {Kind: UndercutAccount, AccountID: "acc_b", Price: 7_000},
		{Kind: UndercutScheduled, Price: 8_000}}
	if diff := cmp.Diff(want, Undercuts(&p, &prices)); diff != "" {
		t.Errorf("undercuts (-want +got):\n%s", diff)
	}
	p.Price = 8_900
	if got := Undercuts(&p, &PackPrices{}); len(got) != 1 || got[0] != (Undercut{Kind: UndercutPack, Price: 8_900}) {
		t.Errorf("the pack's own price: %+v", got)
	}
	p.Cost, p.Suppliers = 0, nil
	if got := Undercuts(&p, &prices); got != nil {
		t.Errorf("a pack without a cost: %+v", got)
	}
}

// TestClaimRatio: disputes over completed orders to 4 decimals, rounded
// half up; none completed is none.
func TestClaimRatio(t *testing.T) {
	for _, c := range []struct {
		disputes, completed int
		want                string
	}{{3, 4, "0.75"}, {1, 3, "0.3333"}, {2, 3, "0.6667"}, {0, 5, "0"}, {5, 2, "2.5"}, {1, 0, ""}} {
		got := ClaimRatio(c.disputes, c.completed)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%d over %d: %v, want none", c.disputes, c.completed, *got)
		case c.want != "" && (got == nil || Money(*got).String() != c.want):
			t.Errorf("%d over %d: %v, want %s", c.disputes, c.completed, got, c.want)
		}
	}
}
