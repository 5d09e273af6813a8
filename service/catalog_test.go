package service_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// catalogService is a service over the fixture's store that counts its
// auth-cache invalidations, with the sim supplier on or off.
func (f *fixture) catalogService(simOff bool) (*service.Service, *int) {
	f.t.Helper()
	n := 0
	svc, err := service.New(service.Deps{Store: f.store, Now: func() time.Time { return t0 }, SimOff: simOff,
		Invalidate: func(context.Context) error { n++; return nil }})
	if err != nil {
		f.t.Fatal(err)
	}
	return svc, &n
}

// keysLine is a gamekey line, whose packs draw from stock.
var keysLine = topupd.Line{Slug: "keys", ProductName: "Game keys", GameName: "Keys", Game: "keys", Kind: topupd.KindGamekey,
	Status: topupd.StatusActive, Required: []topupd.RequiredField{}}

// TestCatalogRoles: changing the catalog is the owner's (exporting a
// batch's codes too); any other role is ROLE_FORBIDDEN, and nothing
// changes, nothing is in the action log and no cache is invalidated.
// Every operator reads the catalog; a reseller's chat reads none of it.
func TestCatalogRoles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	svc, invalidated := f.catalogService(false)
	ctx := context.Background()
	price := topupd.USD(2)
	for _, role := range []topupd.Role{topupd.RoleViewer, topupd.RoleFinance, topupd.RoleSupport, topupd.RoleResellerChat} {
		a := as("kim", role)
		for what, call := range map[string]func() error{
			"put a line":    func() error { _, err := svc.PutLine(ctx, a, keysLine); return err },
			"update a line": func() error { _, err := svc.UpdateLine(ctx, a, "pubg", service.LinePatch{}); return err },
			"put a pack": func() error {
				_, err := svc.PutPack(ctx, a, topupd.Pack{PID: "x", Slug: "pubg", Name: "x", Price: 1}, topupd.CostGuard{})
				return err
			},
			"update a pack":  func() error { _, err := svc.UpdatePack(ctx, a, "uc", service.PackPatch{Price: &price}); return err },
			"add stock":      func() error { _, err := svc.AddStock(ctx, a, "uc", []string{"C-1"}, topupd.StockUpload{}); return err },
			"void a batch":   func() error { _, err := svc.VoidBatch(ctx, a, 1); return err },
			"export a batch": func() error { _, _, err := svc.ExportBatch(ctx, a, 1); return err },
			"put an upstream": func() error {
				_, err := svc.PutUpstream(ctx, a, topupd.Upstream{Name: "up", BaseURL: "https://up.example/"}, false)
				return err
			},
		} {
			if err := call(); topupd.CodeOf(err) != topupd.ERoleForbidden {
				t.Errorf("%s may %s: %v", role, what, err)
			}
		}
		reads := map[string]func() error{
			"lines":       func() error { _, err := svc.Lines(ctx, a); return err },
			"packs":       func() error { _, err := svc.Packs(ctx, a); return err },
			"stock packs": func() error { _, err := svc.StockPacks(ctx, a); return err },
			"batches":     func() error { _, err := svc.Batches(ctx, a, "uc"); return err },
			"upstreams":   func() error { _, err := svc.Upstreams(ctx, a); return err },
			"providers":   func() error { _, err := svc.Providers(ctx, a); return err },
		}
		for what, read := range reads {
			err := read()
			if role == topupd.RoleResellerChat && topupd.CodeOf(err) != topupd.ERoleForbidden {
				t.Errorf("a reseller's chat reads the %s: %v", what, err)
			} else if role != topupd.RoleResellerChat && err != nil {
				t.Errorf("%s reading the %s: %v", role, what, err)
			}
		}
	}
	if p, err := svc.Pack(ctx, as("olga", topupd.RoleOwner), "uc"); err != nil || p.Price != topupd.USD(1) {
		t.Errorf("a forbidden call changed the pack: %+v, %v", p, err)
	}
	if acts := f.actions(); len(acts) != 0 {
		t.Errorf("forbidden calls are in the action log: %+v", acts)
	}
	if *invalidated != 0 {
		t.Errorf("forbidden calls invalidated the auth cache %d times", *invalidated)
	}
}

// TestCatalogOperations: the owner builds a stocked line and pack, adds,
// voids and exports a batch, edits the pack and the line and adds an
// upstream; each change is in the action log under the admin API's name
// and target, by who asked and from where, and invalidates the auth cache
// (an export, which changes nothing, does not).
func TestCatalogOperations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	svc, invalidated := f.catalogService(false)
	ctx := context.Background()
	owner := as("olga", topupd.RoleOwner)

	if _, err := svc.PutLine(ctx, owner, keysLine); err != nil {
		t.Fatal(err)
	}
	p, err := svc.PutPack(ctx, owner, topupd.Pack{PID: "k1", Slug: "keys", Name: "Key", Price: topupd.USD(5), Status: topupd.StatusActive}, topupd.CostGuard{})
	if err != nil || p.Provider != topupd.ProviderStock || p.Available != 0 {
		t.Fatalf("a pack of a gamekey line without a provider: %+v, %v", p, err)
	}
	cost := topupd.USD(3)
	res, err := svc.AddStock(ctx, owner, "k1", []string{"K-1", "K-2", "K-1"}, topupd.StockUpload{Cost: &cost, Note: "first"})
	if err != nil || res.Added != 2 || res.Duplicates != 1 || res.Available != 2 || res.BatchID == 0 {
		t.Fatalf("adding stock: %+v, %v", res, err)
	}
	if more, err := svc.AddStock(ctx, owner, "k1", []string{"K-3"}, topupd.StockUpload{BatchID: res.BatchID}); err != nil || more.BatchID != res.BatchID {
		t.Fatalf("adding to the batch: %+v, %v", more, err)
	}
	stocked, err := svc.StockPacks(ctx, owner)
	if err != nil || len(stocked) != 1 || stocked[0].PID != "k1" || stocked[0].Available != 3 {
		t.Errorf("the stock packs (the manual top-up pack draws none): %+v, %v", stocked, err)
	}
	b, codes, err := svc.ExportBatch(ctx, owner, res.BatchID)
	if err != nil || b.ID != res.BatchID || !slices.Equal(codes, []string{"K-1", "K-2", "K-3"}) {
		t.Errorf("exporting the batch: %+v %v, %v", b, codes, err)
	}
	voided, err := svc.VoidBatch(ctx, owner, res.BatchID)
	if err != nil || !voided.Voided() || voided.Withdrawn != 3 {
		t.Errorf("voiding the batch: %+v, %v", voided, err)
	}
	if _, err := svc.VoidBatch(ctx, owner, res.BatchID); topupd.CodeOf(err) != topupd.EConflict {
		t.Errorf("voiding it again: %v", err)
	}
	if list, err := svc.Batches(ctx, owner, "k1"); err != nil || len(list) != 1 || !list[0].Voided() {
		t.Errorf("the batches: %+v, %v", list, err)
	}
	price, level := topupd.USD(6), 4
	levelp := &level
	p, err = svc.UpdatePack(ctx, owner, "k1", service.PackPatch{Price: &price, LowStockAt: &levelp})
	if err != nil || p.Price != price || p.LowStockAt == nil || *p.LowStockAt != 4 || p.Provider != topupd.ProviderStock || p.Name != "Key" {
		t.Errorf("a price and level edit: %+v, %v", p, err)
	}
	disabled := topupd.StatusDisabled
	if l, err := svc.UpdateLine(ctx, owner, "keys", service.LinePatch{Status: &disabled}); err != nil || l.Status != disabled || l.Kind != topupd.KindGamekey {
		t.Errorf("disabling the line: %+v, %v", l, err)
	}
	if _, err := svc.PutUpstream(ctx, owner, topupd.Upstream{Name: "up1", BaseURL: "https://up.example/", APIKey: "k"}, false); err != nil {
		t.Fatal(err)
	}
	ups, err := svc.Upstreams(ctx, owner)
	if err != nil || len(ups) != 1 || ups[0].Name != "up1" || !ups[0].UpdatedAt.Equal(t0) || ups[0].Health.Provider != topupd.ProviderUpstream {
		t.Errorf("the upstreams: %+v, %v", ups, err)
	}

	batch := strconv.FormatInt(res.BatchID, 10)
	want := []string{"upstream.put up1", "line.update keys", "pack.update k1", "batch.void " + batch, "batch.export " + batch,
		"stock.add k1", "stock.add k1", "pack.put k1", "line.put keys"}
	var got []string
	for _, a := range f.actions() {
		if a.Actor.Operator != "olga" || a.Actor.IP != "198.51.100.7" || a.Actor.RequestID != "req-1" {
			t.Errorf("action %s: %+v", a.Action, a.Actor)
		}
		got = append(got, a.Action+" "+a.Target)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the action log holds %v, want %v (the refused void none)", got, want)
	}
	if *invalidated != 8 {
		t.Errorf("the auth cache was invalidated %d times, want 8 (once a change)", *invalidated)
	}
}

// TestPackRules: a pack is refused, and nothing is stored, when its
// supplier cannot be settled (sim off: PROVIDER_REQUIRED, SIM_DISABLED),
// its price is below its cost unless allowed (BELOW_COST), or its line or
// upstream does not exist; an unknown pack or line is NOT_FOUND, and bad
// stock uploads and upstreams are INVALID_BODY.
func TestPackRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	svc, invalidated := f.catalogService(true)
	ctx := context.Background()
	owner := as("olga", topupd.RoleOwner)
	pack := func(edit func(*topupd.Pack)) topupd.Pack {
		p := topupd.Pack{PID: "p2", Slug: "pubg", Name: "120 UC", Price: topupd.USD(2), Status: topupd.StatusActive}
		edit(&p)
		return p
	}
	cost, below := topupd.USD(3), topupd.USD(1)
	for _, c := range []struct {
		name  string
		p     topupd.Pack
		allow bool
		want  topupd.ErrorCode
	}{
		{"no provider with the sim off", pack(func(*topupd.Pack) {}), false, topupd.EProviderRequired},
		{"the sim with the sim off", pack(func(p *topupd.Pack) { p.Provider = topupd.ProviderSim }), false, topupd.ESimDisabled},
		{"below its cost", pack(func(p *topupd.Pack) { p.Provider, p.Cost = topupd.ProviderManual, cost }), false, topupd.EBelowCost},
		{"an unknown line", pack(func(p *topupd.Pack) { p.Provider, p.Slug = topupd.ProviderManual, "nosuch" }), false, topupd.EInvalidBody},
		{"an unknown upstream", pack(func(p *topupd.Pack) { p.Provider, p.Upstream, p.UpstreamPID = topupd.ProviderUpstream, "nosuch", "x" }), false, topupd.EInvalidBody},
		{"no name", pack(func(p *topupd.Pack) { p.Provider, p.Name = topupd.ProviderManual, "" }), false, topupd.EInvalidBody},
	} {
		if _, err := svc.PutPack(ctx, owner, c.p, topupd.CostGuard{AllowBelowCost: c.allow}); topupd.CodeOf(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
	if _, err := svc.Pack(ctx, owner, "p2"); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("a refused pack was stored: %v", err)
	}
	if _, err := svc.PutPack(ctx, owner, pack(func(p *topupd.Pack) { p.Provider, p.Cost = topupd.ProviderManual, cost }), topupd.CostGuard{AllowBelowCost: true}); err != nil {
		t.Errorf("below its cost, allowed: %v", err)
	}
	if _, err := svc.UpdatePack(ctx, owner, "uc", service.PackPatch{Cost: &cost, Price: &below}); topupd.CodeOf(err) != topupd.EBelowCost {
		t.Errorf("a patch below cost: %v", err)
	}
	if _, err := svc.UpdatePack(ctx, owner, "nosuch", service.PackPatch{}); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("patching an unknown pack: %v", err)
	}
	if _, err := svc.UpdateLine(ctx, owner, "nosuch", service.LinePatch{}); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("patching an unknown line: %v", err)
	}
	if _, err := svc.Line(ctx, owner, "nosuch"); topupd.CodeOf(err) != topupd.ENotFound {
		t.Errorf("reading an unknown line: %v", err)
	}
	bad := topupd.LineKind("nosuch")
	if _, err := svc.UpdateLine(ctx, owner, "pubg", service.LinePatch{Kind: &bad}); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("a line of no kind: %v", err)
	}
	for name, u := range map[string]topupd.StockUpload{"a batch and a note": {BatchID: 1, Note: "x"}, "a cost below 0": {Cost: &[]topupd.Money{-1}[0]}} {
		if _, err := svc.AddStock(ctx, owner, "uc", []string{"C-1"}, u); topupd.CodeOf(err) != topupd.EInvalidBody {
			t.Errorf("an upload with %s: %v", name, err)
		}
	}
	if _, err := svc.AddStock(ctx, owner, "uc", nil, topupd.StockUpload{}); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("an upload of no codes: %v", err)
	}
	if _, err := svc.PutUpstream(ctx, owner, topupd.Upstream{Name: "up", BaseURL: "ftp://up.example/"}, false); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("an upstream that is not http: %v", err)
	}
	if acts := f.actions(); len(acts) != 1 || acts[0].Action != "pack.put" {
		t.Errorf("refused changes are in the action log: %+v", acts)
	}
	if *invalidated != 1 {
		t.Errorf("the auth cache was invalidated %d times, want 1", *invalidated)
	}
}
