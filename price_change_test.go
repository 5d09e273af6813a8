package topupd_test

import (
	"slices"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// TestListPriceAt: a scheduled change takes effect at its time, written or
// not; a written change not yet due at an order's time leaves the price it
// replaced; no change leaves the stored price.
func TestListPriceAt(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old, stored, newPrice := topupd.Money(8900), topupd.Money(8900), topupd.Money(12000)
	scheduled := &topupd.PriceChange{Price: newPrice, EffectiveAt: at, State: topupd.PriceChangeScheduled}
	written := &topupd.PriceChange{Price: newPrice, EffectiveAt: at, State: topupd.PriceChangeApplied, OldPrice: &old}
	for _, c := range []struct {
		what   string
		stored topupd.Money
		change *topupd.PriceChange
		now    time.Time
		want   topupd.Money
		next   bool
	}{
		{"no change", stored, nil, at, stored, false},
		{"scheduled, a millisecond before", stored, scheduled, at.Add(-time.Millisecond), old, true},
		{"scheduled, at its time, unwritten", stored, scheduled, at, newPrice, false},
		{"scheduled, long after, unwritten", stored, scheduled, at.Add(time.Hour), newPrice, false},
		{"written, an order from before it", newPrice, written, at.Add(-time.Millisecond), old, true},
		{"written, at its time", newPrice, written, at, newPrice, false},
		{"written, then a price set by hand", 9900, written, at.Add(time.Hour), 9900, false},
	} {
		got, next := topupd.ListPriceAt(c.stored, c.change, c.now)
		if got != c.want || (next != nil) != c.next {
			t.Errorf("%s: %s with a next change %v, want %s and %v", c.what, got, next != nil, c.want, c.next)
		}
	}
	if s := scheduled.StateAt(at.Add(-time.Millisecond)); s != topupd.PriceChangeScheduled {
		t.Errorf("state before its time: %s", s)
	}
	if s := scheduled.StateAt(at); s != topupd.PriceChangeApplied {
		t.Errorf("state at its time, unwritten: %s", s)
	}
}

// TestNextPriceAndRepriced: what each kind of account pays from a change
// on, and which accounts a change moves.
func TestNextPriceAndRepriced(t *testing.T) {
	pct := func(p int64) *topupd.Percent { v := topupd.Percent(p * topupd.MoneyScale); return &v }
	p := topupd.Pack{PID: "uc60", Price: 8900, Cost: 5000}
	next := &topupd.PriceChange{PID: "uc60", Price: 12000, EffectiveAt: time.Unix(100, 0)}
	off := topupd.Tier{Name: "off", PercentOff: pct(10), RoundTo: topupd.Cent}
	markup := topupd.Tier{Name: "markup", Markup: pct(50), RoundTo: topupd.Cent}
	listed := topupd.Tier{Name: "listed", RoundTo: topupd.Cent, Prices: map[string]topupd.Money{"uc60": 7000}}
	for _, c := range []struct {
		what string
		book topupd.PriceBook
		want topupd.Money // 0: no next price
	}{
		{"the list price", topupd.PriceBook{}, 12000},
		{"an own price", topupd.PriceBook{Own: map[string]topupd.Money{"uc60": 8000}}, 0},
		{"10% off the list", topupd.PriceBook{Tier: &off}, 10800},
		{"a markup on cost", topupd.PriceBook{Tier: &markup}, 0},
		{"a tier's listed price", topupd.PriceBook{Tier: &listed}, 0},
	} {
		n, ok := c.book.NextPrice(&p, next)
		if got := map[bool]topupd.Money{true: n.Price}[ok]; got != c.want || (ok && !n.At.Equal(next.EffectiveAt)) {
			t.Errorf("%s: next %s (%v), want %s", c.what, n.Price, ok, c.want)
		}
	}
	if _, ok := (&topupd.PriceBook{}).NextPrice(&p, nil); ok {
		t.Error("a next price without a change")
	}
	prices := topupd.PackPrices{Tiers: []topupd.Tier{listed, markup, off}, Own: []topupd.AccountPrice{{AccountID: "a-own", Price: 8000}}}
	accounts := []topupd.AccountTier{{ID: "a-plain"}, {ID: "a-own"}, {ID: "a-off", Tier: "off"}, {ID: "a-markup", Tier: "markup"},
		{ID: "a-listed", Tier: "listed"}, {ID: "a-own-off", Tier: "off"}}
	prices.Own = append(prices.Own, topupd.AccountPrice{AccountID: "a-own-off", Price: 9000})
	if got := topupd.Repriced(&p, 12000, &prices, accounts); !slices.Equal(got, []string{"a-plain", "a-off"}) {
		t.Errorf("repriced %v, want a-plain and a-off", got)
	}
	if got := topupd.Repriced(&p, 8900, &prices, accounts); len(got) != 0 {
		t.Errorf("repriced by the same price: %v", got)
	}
}

// TestCheckPriceChange: the refusals of a new change, each INVALID_BODY.
func TestCheckPriceChange(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ok := topupd.PriceChange{PID: "uc60", Price: 12000, EffectiveAt: now.Add(time.Hour)}
	if err := topupd.CheckPriceChange(&ok, now); err != nil {
		t.Errorf("exactly an hour ahead: %v", err)
	}
	for what, c := range map[string]topupd.PriceChange{
		"59:59 ahead":    {PID: "uc60", Price: 12000, EffectiveAt: now.Add(time.Hour - time.Second)},
		"no time":        {PID: "uc60", Price: 12000},
		"three decimals": {PID: "uc60", Price: 12340 + 5, EffectiveAt: now.Add(2 * time.Hour)},
		"no price":       {PID: "uc60", EffectiveAt: now.Add(2 * time.Hour)},
		"no pid":         {Price: 12000, EffectiveAt: now.Add(2 * time.Hour)},
	} {
		if err := topupd.CheckPriceChange(&c, now); topupd.CodeOf(err) != topupd.EInvalidBody {
			t.Errorf("%s: %v, want INVALID_BODY", what, err)
		}
	}
}
