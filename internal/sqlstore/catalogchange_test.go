package sqlstore

import (
	"strings"
	"testing"

	"github.com/topupd/topupd"
)

// TestPackTold: what a pack's write tells is what the triggers of 00024
// and 00025 told: a new pack is marked and told; a change of its price,
// cost, line, status or stock basis is both; of its name, category or
// provider marked alone; of anything else (its upstream, its suppliers,
// its low-stock level) neither.
func TestPackTold(t *testing.T) {
	base := topupd.Pack{PID: "p", Slug: "pubg", Name: "60 UC", Category: "UC", Price: 100, Cost: 80,
		Status: topupd.StatusActive, Provider: topupd.ProviderSim}
	level := 3
	for _, c := range []struct {
		name           string
		change         func(*topupd.Pack)
		marked, priced bool
	}{
		{"nothing", func(*topupd.Pack) {}, false, false},
		{"price", func(p *topupd.Pack) { p.Price++ }, true, true},
		{"cost", func(p *topupd.Pack) { p.Cost++ }, true, true},
		{"line", func(p *topupd.Pack) { p.Slug = "ff" }, true, true},
		{"status", func(p *topupd.Pack) { p.Status = topupd.StatusDisabled }, true, true},
		{"stock basis", func(p *topupd.Pack) { p.StockBased = true }, true, true},
		{"name", func(p *topupd.Pack) { p.Name = "61 UC" }, true, false},
		{"category", func(p *topupd.Pack) { p.Category = "diamonds" }, true, false},
		{"provider", func(p *topupd.Pack) { p.Provider = topupd.ProviderManual }, true, false},
		{"upstream", func(p *topupd.Pack) { p.Upstream = "a" }, false, false},
		{"low-stock level", func(p *topupd.Pack) { p.LowStockAt = &level }, false, false},
	} {
		p := base
		c.change(&p)
		if marked, priced := packTold(&base, &p); marked != c.marked || priced != c.priced {
			t.Errorf("%s: marked %v, told %v; want %v, %v", c.name, marked, priced, c.marked, c.priced)
		}
	}
	if marked, priced := packTold(nil, &base); !marked || !priced {
		t.Errorf("a new pack: marked %v, told %v; want both", marked, priced)
	}
}

// TestLineTold: a line's write marks its packs when a new line, or its
// status, game name, game or kind changed; it is told only when it goes
// on or off sale.
func TestLineTold(t *testing.T) {
	base := topupd.Line{Slug: "pubg", ProductName: "PUBG UC", GameName: "PUBG Mobile", Game: "pubg",
		Kind: topupd.KindTopup, Status: topupd.StatusActive}
	for _, c := range []struct {
		name           string
		change         func(*topupd.Line)
		marked, listed bool
	}{
		{"nothing", func(*topupd.Line) {}, false, false},
		{"off sale", func(l *topupd.Line) { l.Status = topupd.StatusDisabled }, true, true},
		{"game name", func(l *topupd.Line) { l.GameName = "PUBG" }, true, false},
		{"game", func(l *topupd.Line) { l.Game = "pubgm" }, true, false},
		{"kind", func(l *topupd.Line) { l.Kind = topupd.KindGamekey }, true, false},
		{"product name", func(l *topupd.Line) { l.ProductName = "UC" }, false, false},
	} {
		l := base
		c.change(&l)
		if marked, listed := lineTold(&base, &l); marked != c.marked || listed != c.listed {
			t.Errorf("%s: marked %v, told %v; want %v, %v", c.name, marked, listed, c.marked, c.listed)
		}
	}
	off := base
	off.Status = topupd.StatusDisabled
	if marked, listed := lineTold(&off, &base); !marked || !listed {
		t.Errorf("back on sale: marked %v, told %v; want both", marked, listed)
	}
	if marked, listed := lineTold(nil, &base); !marked || listed {
		t.Errorf("a new line: marked %v, told %v; want marked alone", marked, listed)
	}
}

// TestMarkUpsert: a mark that updatedSince lists takes the new stamp; one
// that counts for the ETag alone keeps the old stamp; both count one more
// version.
func TestMarkUpsert(t *testing.T) {
	for listed, stamp := range map[bool]string{true: "changed_at = excluded.changed_at", false: "changed_at = catalog_marks.changed_at"} {
		q := markUpsert(listed)
		if !strings.Contains(q, stamp) || !strings.Contains(q, "version = catalog_marks.version + 1") {
			t.Errorf("markUpsert(%v) = %q", listed, q)
		}
	}
}
