package storetest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/topupd/topupd"
)

var catalogTests = []test{
	{"LinesCreateReplaceList", testLines},
	{"PacksCreateReplaceList", testPacks},
	{"AddStock", testAddStock},
	{"AddStockUnknownPack", testAddStockUnknownPack},
}

func testLines(t *testing.T, e *env) {
	if got, err := e.s.Lines(e.ctx); err != nil || len(got) != 0 {
		t.Fatalf("Lines of an empty store = %v, %v", got, err)
	}
	once := topupd.Line{Slug: "oncehuman", ProductName: "Once Human", GameName: "Once Human", Game: "oncehuman", Kind: topupd.KindTopup,
		Status: topupd.StatusActive,
		Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "UID"}, {Field: topupd.FieldRegion, Label: "Region"},
			{Field: topupd.FieldMoreID, Label: "Server", Pattern: "[0-9]+"}},
		RegionOptions: []topupd.Option{{Value: "EU", Label: "Europe"}, {Value: "NA", Label: "North America"}}}
	ww := topupd.Line{Slug: "wutheringwaves", ProductName: "Wuthering Waves", GameName: "Wuthering Waves", Game: "ww", Kind: topupd.KindTopup,
		Status:          topupd.StatusDisabled,
		Required:        []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "UID"}, {Field: topupd.FieldServerID, Label: "Server"}},
		ServerIDOptions: []topupd.Option{{Value: "asia", Label: "Asia"}}}
	card := topupd.Line{Slug: "giftcardsteam", ProductName: "Steam", GameName: "Steam", Game: "giftcard", Kind: topupd.KindGiftcard, Status: topupd.StatusActive}
	for _, l := range []topupd.Line{ww, once, card} {
		if err := e.s.PutLine(e.ctx, nil, l); err != nil {
			t.Fatalf("PutLine %s: %v", l.Slug, err)
		}
	}
	want := []topupd.Line{card, once, ww} // by slug, the disabled one too
	got, err := e.s.Lines(e.ctx)
	if err != nil {
		t.Fatalf("Lines: %v", err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}

	// Replacing a line replaces every field, options and required fields included.
	replaced := topupd.Line{Slug: "oncehuman", ProductName: "Once Human 2", GameName: "OH", Game: "oh2", Kind: topupd.KindSubscription,
		Status: topupd.StatusDisabled, Required: []topupd.RequiredField{{Field: topupd.FieldUserID, Label: "Player", Pattern: "[a-z]+"}},
		ServerIDOptions: []topupd.Option{{Value: "s1", Label: "Server 1"}}}
	if err := e.s.PutLine(e.ctx, nil, replaced); err != nil {
		t.Fatalf("PutLine (replace): %v", err)
	}
	want = []topupd.Line{card, replaced, ww}
	got, err = e.s.Lines(e.ctx)
	if err != nil {
		t.Fatalf("Lines: %v", err)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Lines after replace (-want +got):\n%s", diff)
	}
}

func testPacks(t *testing.T, e *env) {
	e.catalog()
	got, err := e.s.Packs(e.ctx)
	if err != nil {
		t.Fatalf("Packs: %v", err)
	}
	want := append([]topupd.Pack{}, packs...)
	byPID := cmpopts.SortSlices(func(a, b topupd.Pack) bool { return a.PID < b.PID })
	if diff := cmp.Diff(want, got, byPID); diff != "" {
		t.Errorf("Packs (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].PID >= got[i].PID {
			t.Errorf("Packs not sorted by PID: %q before %q", got[i-1].PID, got[i].PID)
		}
	}

	up := topupd.Pack{PID: pidTopup, Slug: "freefire", Name: "100 Diamonds (upstream)", Category: "promo", Price: 9_999,
		Status: topupd.StatusDisabled, StockBased: true, Provider: topupd.ProviderUpstream, Upstream: "big", UpstreamPID: "FF100"}
	if err := e.s.PutPack(e.ctx, nil, up); err != nil {
		t.Fatalf("PutPack (replace): %v", err)
	}
	back := up
	back.Category, back.Status, back.StockBased, back.Provider, back.Upstream, back.UpstreamPID = "", topupd.StatusActive, false, topupd.ProviderSim, "", ""
	if err := e.s.PutPack(e.ctx, nil, back); err != nil {
		t.Fatalf("PutPack (replace back): %v", err)
	}
	for i := range want {
		if want[i].PID == pidTopup {
			want[i] = back
		}
	}
	got, err = e.s.Packs(e.ctx)
	if err != nil {
		t.Fatalf("Packs: %v", err)
	}
	if diff := cmp.Diff(want, got, byPID); diff != "" {
		t.Errorf("Packs after replace (-want +got):\n%s", diff)
	}
}

func testAddStock(t *testing.T, e *env) {
	e.catalog()
	if got := e.stockLevels(); len(got) != 0 {
		t.Errorf("StockLevels of an empty store = %v, want none", got)
	}
	steps := []struct {
		name  string
		pid   string
		codes []string
		want  topupd.StockResult
	}{
		{"first codes", pidKey, []string{"AAA", "BBB", "CCC"}, topupd.StockResult{Added: 3, Duplicates: 0, Available: 3}},
		{"duplicate within one call", pidKey, []string{"DDD", "DDD", "EEE"}, topupd.StockResult{Added: 2, Duplicates: 1, Available: 5}},
		{"duplicates across calls", pidKey, []string{"AAA", "CCC", "FFF"}, topupd.StockResult{Added: 1, Duplicates: 2, Available: 6}},
		{"codes are compared exactly", pidKey, []string{"aaa", "AAA "}, topupd.StockResult{Added: 2, Duplicates: 0, Available: 8}},
		{"same code in another pack is a duplicate", pidCard, []string{"AAA", "GGG", "HHH"}, topupd.StockResult{Added: 2, Duplicates: 1, Available: 2}},
		{"no codes", pidCard, nil, topupd.StockResult{Available: 2}},
		{"only duplicates", pidCard, []string{"HHH"}, topupd.StockResult{Duplicates: 1, Available: 2}},
	}
	// An upload longer than the store's transactions (SQL stores add a few
	// hundred codes per transaction), with duplicates far apart.
	var long []string
	for i := range 1500 {
		long = append(long, fmt.Sprintf("LONG-%04d", i%1200))
	}
	steps = append(steps, struct {
		name  string
		pid   string
		codes []string
		want  topupd.StockResult
	}{"a long upload", pidStockTopup, long, topupd.StockResult{Added: 1200, Duplicates: 300, Available: 1200}})
	for _, st := range steps {
		got, err := e.s.AddStock(e.ctx, st.pid, st.codes, t0)
		if err != nil {
			t.Fatalf("%s: AddStock: %v", st.name, err)
		}
		if diff := cmp.Diff(st.want, got, cmpopts.IgnoreFields(topupd.StockResult{}, "BatchID")); diff != "" { // batches.go tests batches
			t.Errorf("%s: AddStock (-want +got):\n%s", st.name, diff)
		}
	}
	if diff := cmp.Diff(map[string]int{pidKey: 8, pidCard: 2, pidStockTopup: 1200}, e.stockLevels()); diff != "" {
		t.Errorf("StockLevels (-want +got):\n%s", diff)
	}

	// A delivered code is still a duplicate, in its own pack and in any
	// other, and selling lowers the levels.
	a := e.account("buyer", topupd.USD(1000))
	o := e.place(a.ID, keys(pidCard, "T-CARDS", 2), t0)
	if diff := cmp.Diff([]string{"GGG", "HHH"}, o.Codes, cmpopts.SortSlices(func(x, y string) bool { return x < y })); diff != "" {
		t.Fatalf("codes delivered (-want +got):\n%s", diff)
	}
	got, err := e.s.AddStock(e.ctx, pidCard, []string{"GGG", "ZZZ"}, t0)
	if err != nil {
		t.Fatalf("AddStock after sale: %v", err)
	}
	if diff := cmp.Diff(topupd.StockResult{Added: 1, Duplicates: 1, Available: 1}, got, cmpopts.IgnoreFields(topupd.StockResult{}, "BatchID")); diff != "" {
		t.Errorf("AddStock of a delivered code (-want +got):\n%s", diff)
	}
	if got, err = e.s.AddStock(e.ctx, pidKey, []string{"HHH"}, t0); err != nil || got.Duplicates != 1 || got.Added != 0 {
		t.Errorf("AddStock to another pack of a code delivered from this one: %+v, %v; want a duplicate", got, err)
	}
	e.place(a.ID, keys(pidCard, "T-CARD-LAST", 1), t0)
	if diff := cmp.Diff(map[string]int{pidKey: 8, pidStockTopup: 1200}, e.stockLevels()); diff != "" {
		t.Errorf("StockLevels after selling out (-want +got), a PID without stock must be absent:\n%s", diff)
	}
}

func testAddStockUnknownPack(t *testing.T, e *env) {
	e.catalog()
	if _, err := e.s.AddStock(e.ctx, "no-such-pack", []string{"X"}, t0); err == nil {
		t.Errorf("AddStock to an unknown pack succeeded")
	}
	if got := e.stockLevels(); len(got) != 0 {
		t.Errorf("StockLevels = %v, want none", got)
	}
}
