package topupd_test

import (
	"testing"

	"github.com/topupd/topupd"
)

func money(usd int64) *topupd.Money { m := topupd.USD(usd); return &m }

// TestCovers: an unknown balance covers anything; a cost needs as much;
// with no cost, any balance above 0 does.
func TestCovers(t *testing.T) {
	for _, c := range []struct {
		bal  *topupd.Money
		cost topupd.Money
		want bool
	}{
		{nil, topupd.USD(5), true}, {money(5), topupd.USD(5), true}, {money(4), topupd.USD(5), false},
		{money(0), 0, false}, {money(-1), 0, false}, {money(1), 0, true},
	} {
		if got := topupd.Covers(c.bal, c.cost); got != c.want {
			t.Errorf("Covers(%v, %v) = %v", c.bal, c.cost, got)
		}
	}
}

// TestRunway: balance ÷ (day ÷ 24), rounded down to 0.1; none without a
// balance or a burn; 0 at a balance of 0 or below.
func TestRunway(t *testing.T) {
	for _, c := range []struct {
		bal      *topupd.Money
		day      topupd.Money
		tenths   int64
		hasValue bool
	}{
		{nil, topupd.USD(24), 0, false}, {money(10), 0, 0, false}, {money(0), topupd.USD(24), 0, true},
		{money(-3), topupd.USD(24), 0, true}, {money(10), topupd.USD(24), 100, true}, {money(1), topupd.USD(72), 3, true},
		{money(1_000_000_000), 1, 2_400_000_000_000_000, true},
	} {
		got, ok := topupd.RunwayTenths(c.bal, c.day)
		if got != c.tenths || ok != c.hasValue {
			t.Errorf("RunwayTenths(%v, %v) = %d, %v; want %d, %v", c.bal, c.day, got, ok, c.tenths, c.hasValue)
		}
	}
}

// TestBalanceAlertHysteresis: the level rises at once, falls to none only
// at twice warnHours of runway (or no burn with money), and to the raw
// level at a top-up.
func TestBalanceAlertHysteresis(t *testing.T) {
	const none, warn, crit = topupd.BalanceAlertNone, topupd.BalanceAlertWarn, topupd.BalanceAlertCritical
	day := topupd.USD(24) // $1 an hour
	f := func(bal *topupd.Money) topupd.Funds {
		return topupd.Funds{Balance: bal, Day: day, WarnHours: 24, CriticalHours: 4}
	}
	for _, c := range []struct {
		name  string
		funds topupd.Funds
		prev  string
		topUp bool
		want  string
	}{
		{"unknown", f(nil), none, false, none},
		{"plenty", f(money(100)), none, false, none},
		{"rises to warn", f(money(20)), none, false, warn},
		{"rises to critical", f(money(3)), warn, false, crit},
		{"dry is critical", topupd.Funds{Balance: money(0), WarnHours: 24, CriticalHours: 4}, none, false, crit},
		{"critical stays at warn's runway", f(money(20)), crit, false, crit},
		{"critical stays under twice warn", f(money(47)), crit, false, crit},
		{"critical clears at twice warn", f(money(48)), crit, false, none},
		{"warn clears with no burn", topupd.Funds{Balance: money(1), WarnHours: 24, CriticalHours: 4}, warn, false, none},
		{"a top-up falls to the raw level", f(money(20)), crit, true, warn},
		{"a top-up rises too", f(money(2)), warn, true, crit},
		{"unknown keeps a raised alert", f(nil), warn, false, warn},
	} {
		if got := c.funds.NextLevel(c.prev, c.topUp); got != c.want {
			t.Errorf("%s: %s → %s, want %s", c.name, c.prev, got, c.want)
		}
	}
}
