package topupd

import "testing"

// TestMarkedUp: a cost marked up exactly, rounded up to the step or to the
// cent (whole cents, back-office.md 4 (a)), never down; no price without
// a markup or a cost.
func TestMarkedUp(t *testing.T) {
	pct := func(s string) *Percent {
		m, err := ParseMoney(s)
		if err != nil {
			t.Fatal(err)
		}
		p := Percent(m)
		return &p
	}
	usd := func(s string) Money {
		m, err := ParseMoney(s)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		markup  *Percent
		roundTo string
		cost    string
		want    string // "" for no price
	}{
		{pct("10"), "0", "0.70", "0.77"},
		{pct("10"), "0.05", "0.70", "0.8"},
		{pct("10"), "0.05", "0.6818", "0.75"}, // 0.74998 rounds up
		{pct("10"), "0.05", "0.6819", "0.8"},  // 0.75009 rounds up past 0.75
		{pct("12.5"), "0", "0.0001", "0.01"},
		{pct("12.5"), "0.01", "0.0888", "0.1"}, // 0.0999 rounds up to the cent
		{pct("0"), "1", "4.2", "5"},
		{pct("-50"), "0", "1", "0.5"},
		{pct("-50"), "0", "1.0002", "0.51"}, // 0.5001 rounds up to the cent
		{pct("33.3333"), "0", "3", "4"},     // 3.999999 rounds up to 4
		{pct("7"), "0", "0.5", "0.54"},      // 0.535 rounds up to the cent
		{nil, "0", "1", ""},
		{pct("10"), "0", "0", ""},
		{pct("1000000"), "0", "1000000000000", ""}, // too large to hold
	} {
		tier := Tier{Markup: c.markup, RoundTo: usd(c.roundTo)}
		got, ok := tier.MarkedUp(usd(c.cost))
		switch {
		case c.want == "" && ok:
			t.Errorf("markup %v, cost %s: %s, want no price", c.markup, c.cost, got)
		case c.want != "" && (!ok || got != usd(c.want)):
			t.Errorf("markup %v round %s, cost %s: %s (%v), want %s", c.markup, c.roundTo, c.cost, got, ok, c.want)
		}
	}
}

// TestPriceOf: the account's own price wins, then its tier's listed
// price, then the tier's markup on cost, then the pack's price.
func TestPriceOf(t *testing.T) {
	ten := Percent(10 * percentScale)
	pack := Pack{PID: "p", Price: USD(2), Cost: USD(1)}
	tier := &Tier{Markup: &ten, Prices: map[string]Money{"q": USD(3)}}
	for _, c := range []struct {
		book   PriceBook
		pack   Pack
		want   Money
		source string
	}{
		{PriceBook{}, pack, USD(2), PricePack},
		{PriceBook{Tier: tier}, pack, 11_000, PriceMarkup},
		{PriceBook{Tier: tier}, Pack{PID: "q", Price: USD(2), Cost: USD(1)}, USD(3), PriceTier},
		{PriceBook{Tier: tier}, Pack{PID: "r", Price: USD(2)}, USD(2), PricePack},
		{PriceBook{Tier: tier, Own: map[string]Money{"p": 15_000}}, pack, 15_000, PriceOwn},
	} {
		if got, source := c.book.Quote(&c.pack); got != c.want || source != c.source {
			t.Errorf("%s: %s from %s, want %s from %s", c.pack.PID, got, source, c.want, c.source)
		}
	}
}

// TestLimitsAllow: an order above either limit is SPEND_LIMIT_EXCEEDED;
// one that reaches a limit exactly is allowed; nil is no limit.
func TestLimitsAllow(t *testing.T) {
	two, five := USD(2), USD(5)
	for _, c := range []struct {
		limits        Limits
		amount, spent Money
		ok            bool
	}{
		{Limits{}, USD(1000), USD(1000), true},
		{Limits{MaxOrder: &two}, USD(2), 0, true},
		{Limits{MaxOrder: &two}, USD(2) + 1, 0, false},
		{Limits{Daily: &five}, USD(2), USD(3), true},
		{Limits{Daily: &five}, USD(2), USD(3) + 1, false},
		{Limits{MaxOrder: &five, Daily: &two}, USD(3), 0, false},
	} {
		if c.limits.CountsTheDay() != (c.limits.Daily != nil) {
			t.Errorf("%+v: CountsTheDay %v", c.limits, c.limits.CountsTheDay())
		}
		err := c.limits.Allow(c.amount, c.spent)
		if (err == nil) != c.ok || (err != nil && CodeOf(err) != ESpendLimit) {
			t.Errorf("%+v, %s after %s: %v", c.limits, c.amount, c.spent, err)
		}
	}
}

// TestSupplierListValidate: a list names each supplier once (one upstream
// may be listed with several pids: it is moved on from only when it holds
// no order, so the trxid is free there), with valid providers, and the
// pack's single provider fields are its first.
func TestSupplierListValidate(t *testing.T) {
	up := func(name, pid string) Supplier {
		return Supplier{Provider: ProviderUpstream, Upstream: name, UpstreamPID: pid}
	}
	for _, c := range []struct {
		list []Supplier
		ok   bool
	}{
		{[]Supplier{up("a", "x"), up("b", "x")}, true},
		{[]Supplier{up("a", "x"), {Provider: ProviderManual}}, true},
		{[]Supplier{up("a", "x"), up("a", "y")}, true},
		{[]Supplier{up("a", "x"), up("a", "x")}, false},
		{[]Supplier{{Provider: ProviderManual}, {Provider: ProviderManual}}, false},
		{[]Supplier{up("a", "")}, false},
		{[]Supplier{{Provider: "elsewhere"}}, false},
		{[]Supplier{up("a", "x"), {Provider: ProviderSim, Cost: -1}}, false},
	} {
		first := c.list[0]
		p := Pack{PID: "p", Slug: "s", Name: "n", Price: USD(1), Status: StatusActive,
			Provider: first.Provider, Upstream: first.Upstream, UpstreamPID: first.UpstreamPID, Suppliers: c.list}
		if err := p.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.list, err)
		}
	}
	p := Pack{PID: "p", Slug: "s", Name: "n", Price: USD(1), Status: StatusActive, Provider: ProviderSim, Suppliers: []Supplier{up("a", "x")}}
	if err := p.Validate(); err == nil {
		t.Errorf("a provider other than the first supplier's is valid")
	}
}

// TestHighestCost: the guard's cost is the highest of the pack's own cost
// and its suppliers'; a tier's listed price and its markup are held to it.
func TestHighestCost(t *testing.T) {
	usd := func(s string) Money {
		m, err := ParseMoney(s)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		cost      string
		suppliers []string
		want      string
	}{
		{"0", nil, "0"},
		{"0.5", nil, "0.5"},
		{"0", []string{"0.8", "0"}, "0.8"},
		{"0.5", []string{"0.4", "0.8", "0.6"}, "0.8"},
		{"0.9", []string{"0.4", "0.8"}, "0.9"},
	} {
		p := Pack{PID: "p", Cost: usd(c.cost)}
		for _, s := range c.suppliers {
			p.Suppliers = append(p.Suppliers, Supplier{Provider: ProviderSim, Cost: usd(s)})
		}
		if got := p.HighestCost(); got != usd(c.want) {
			t.Errorf("cost %s, suppliers %v: %s, want %s", c.cost, c.suppliers, got.Dollars(), c.want)
		}
	}
	pack := Pack{PID: "p", Price: usd("1"), Cost: usd("0.5"), Suppliers: []Supplier{{Provider: ProviderSim, Cost: usd("0.8")}}}
	markup := func(pct string) *Percent { p := Percent(usd(pct)); return &p }
	for _, c := range []struct {
		name  string
		tier  Tier
		allow bool
		want  ErrorCode
	}{
		{"listed under the supplier", Tier{Prices: map[string]Money{"p": usd("0.7")}}, false, EBelowCost},
		{"listed under the supplier, allowed", Tier{Prices: map[string]Money{"p": usd("0.7")}}, true, ""},
		{"listed at the supplier", Tier{Prices: map[string]Money{"p": usd("0.8")}}, false, ""},
		{"markup under the supplier", Tier{Markup: markup("10")}, false, EBelowCost},
		{"negative markup", Tier{Markup: markup("-5")}, false, EBelowCost},
		{"markup under the supplier, allowed", Tier{Markup: markup("10")}, true, ""},
		{"markup at the supplier", Tier{Markup: markup("60")}, false, ""},
		{"markup under, but a listed price", Tier{Markup: markup("10"), Prices: map[string]Money{"p": usd("0.9")}}, false, ""},
	} {
		err := CheckTierCosts(&c.tier, []Pack{pack}, c.allow)
		if got := CodeOf(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestLimitSettings: every limit is named once, for the API, the column
// and the form, and points at a limit of its own.
func TestLimitSettings(t *testing.T) {
	seen := map[string]bool{}
	pointers := map[**Money]string{}
	var l Limits
	for _, s := range LimitSettings {
		for _, name := range []string{s.Name, s.Column, s.Form} {
			if name == "" || seen[name] {
				t.Errorf("%s: a name empty or used twice: %q", s.Name, name)
			}
			seen[name] = true
		}
		if other, dup := pointers[s.Of(&l)]; dup {
			t.Errorf("%s points at %s's limit", s.Name, other)
		}
		pointers[s.Of(&l)] = s.Name
		if s.Per != PerOrder && s.Per != PerDay {
			t.Errorf("%s bounds nothing Allow knows: %d", s.Name, s.Per)
		}
		if got, ok := LimitSettingNamed(s.Name); !ok || got.Column != s.Column {
			t.Errorf("LimitSettingNamed(%s) = %+v, %v", s.Name, got, ok)
		}
	}
}

// TestLimitsPatchApply: a patch sets and lifts the limits it names and
// leaves the others; an unknown name or an amount below 0 is INVALID_BODY
// and changes nothing.
func TestLimitsPatchApply(t *testing.T) {
	two, five, below := USD(2), USD(5), Money(-1)
	start := Limits{MaxOrder: &two, Daily: &five}
	got, err := LimitsPatch{"dailyLimitUsd": nil}.Apply(start)
	if err != nil || got.Daily != nil || got.MaxOrder != &two {
		t.Errorf("lift the daily limit: %+v, %v", got, err)
	}
	got, err = LimitsPatch{"maxOrderUsd": &five}.Apply(start)
	if err != nil || got.MaxOrder != &five || got.Daily != &five {
		t.Errorf("set the order limit: %+v, %v", got, err)
	}
	for _, bad := range []LimitsPatch{{"weeklyLimitUsd": &two}, {"maxOrderUsd": &below}, {"maxOrderUsd": &five, "dailyLimitUsd": &below}} {
		got, err := bad.Apply(start)
		if CodeOf(err) != EInvalidBody || got != start {
			t.Errorf("%v: %+v, %v; want INVALID_BODY and no change", bad, got, err)
		}
	}
}
