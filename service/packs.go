package service

import (
	"context"

	"github.com/topupd/topupd"
)

// PackView is a pack with the codes its stock holds.
type PackView struct {
	topupd.Pack
	// Available counts the codes in stock.
	Available int
}

// PackPatch is a change to some fields of a pack: a nil field keeps its
// value, so a price edit never changes who fulfils the pack.
type PackPatch struct {
	Slug, Name, Category *string
	Price                *topupd.Money
	Status               *string
	StockBased           *bool
	// Provider, Upstream and UpstreamPID name the single supplier (the
	// first of Suppliers, when a list is sent without them).
	Provider, Upstream, UpstreamPID *string
	// Cost replaces the cost of one unit (0 clears it).
	Cost *topupd.Money
	// LowStockAt replaces the low-stock level (a pointer to nil clears it).
	LowStockAt **int
	// Suppliers replaces the supplier list (a pointer to nil clears it).
	Suppliers *[]topupd.Supplier
	// PricePinned, when set, pins the price (no pricing rule prices the
	// pack) or unpins it.
	PricePinned *bool
	// AllowBelowCost lets the price be below the cost, and a raised cost
	// above the prices the pack is sold at.
	AllowBelowCost bool
	// Reprice has the pack's pricing rule set its price at once.
	Reprice bool
}

// Guard is the cost guard the patch asks for: a price it names is set by
// hand (topupd.CostGuard.PriceSet).
func (p *PackPatch) Guard() topupd.CostGuard {
	return topupd.CostGuard{AllowBelowCost: p.AllowBelowCost, Reprice: p.Reprice, PriceSet: p.Price != nil}
}

// Apply sets the fields the patch holds.
func (p *PackPatch) Apply(pk *topupd.Pack) {
	set(&pk.Slug, p.Slug)
	set(&pk.Name, p.Name)
	set(&pk.Category, p.Category)
	set(&pk.Price, p.Price)
	set(&pk.Status, p.Status)
	set(&pk.StockBased, p.StockBased)
	set(&pk.Provider, p.Provider)
	set(&pk.Upstream, p.Upstream)
	set(&pk.UpstreamPID, p.UpstreamPID)
	set(&pk.Cost, p.Cost)
	set(&pk.LowStockAt, p.LowStockAt)
	set(&pk.PricePinned, p.PricePinned)
	set(&pk.Suppliers, p.Suppliers)
}

// Packs lists every pack, the disabled ones too, by PID, with its stock.
func (s *Service) Packs(ctx context.Context, a Actor) ([]PackView, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.packs(ctx, func(*topupd.Pack, map[string]topupd.LineKind) bool { return true })
}

// Pack reads one pack with its stock; an unknown pid is NOT_FOUND.
func (s *Service) Pack(ctx context.Context, a Actor, pid string) (PackView, error) {
	if err := readCatalog(a); err != nil {
		return PackView{}, err
	}
	list, err := s.packs(ctx, func(p *topupd.Pack, _ map[string]topupd.LineKind) bool { return p.PID == pid })
	if err != nil {
		return PackView{}, err
	}
	if len(list) == 0 {
		return PackView{}, topupd.Errorf(topupd.ENotFound, "pack %s", pid)
	}
	return list[0], nil
}

// StockPacks lists the packs whose orders draw codes from their own stock
// (topupd.Pack.DrawsStock), by PID, with their stock.
func (s *Service) StockPacks(ctx context.Context, a Actor) ([]PackView, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.packs(ctx, func(p *topupd.Pack, kinds map[string]topupd.LineKind) bool {
		return p.DrawsStock(&topupd.Line{Kind: kinds[p.Slug]})
	})
}

// packs reads the packs keep selects (given each line's kind), with their
// stock.
func (s *Service) packs(ctx context.Context, keep func(*topupd.Pack, map[string]topupd.LineKind) bool) ([]PackView, error) {
	lines, err := s.d.Store.Lines(ctx)
	if err != nil {
		return nil, err
	}
	kinds := make(map[string]topupd.LineKind, len(lines))
	for _, l := range lines {
		kinds[l.Slug] = l.Kind
	}
	packs, err := s.d.Store.Packs(ctx)
	if err != nil {
		return nil, err
	}
	stock, err := s.d.Store.StockLevels(ctx)
	if err != nil {
		return nil, err
	}
	out := []PackView{}
	for i := range packs {
		if keep(&packs[i], kinds) {
			out = append(out, PackView{Pack: packs[i], Available: stock[packs[i].PID]})
		}
	}
	return out, nil
}

// PutPack creates or replaces the pack p.PID names: valid, its provider
// settled (SIM_DISABLED, PROVIDER_REQUIRED), priced at or above its cost
// unless allowBelowCost (BELOW_COST), its suppliers configured and its
// line existing. It answers the pack with its stock.
func (s *Service) PutPack(ctx context.Context, a Actor, p topupd.Pack, guard topupd.CostGuard) (PackView, error) {
	if err := Allowed(a, OpPutPack); err != nil {
		return PackView{}, err
	}
	if err := s.checkPack(ctx, &p); err != nil {
		return PackView{}, err
	}
	ctx = topupd.WithCostGuard(ctx, guard)
	if err := s.d.Store.PutPack(ctx, change(a, OpPutPack, p.PID), p); err != nil {
		return PackView{}, err
	}
	s.changed(ctx)
	return s.storedPack(ctx, p)
}

// storedPack is a pack as the store holds it after a write (its pricing
// rule may have priced it), with its stock; p when it cannot be found.
func (s *Service) storedPack(ctx context.Context, p topupd.Pack) (PackView, error) {
	packs, err := s.d.Store.Packs(ctx)
	if err != nil {
		return PackView{}, err
	}
	for _, stored := range packs {
		if stored.PID == p.PID {
			return s.withStock(ctx, stored)
		}
	}
	return s.withStock(ctx, p)
}

// UpdatePack changes the fields of a stored pack the patch holds, checked
// as PutPack checks a pack; the others keep their values. An unknown pid
// is NOT_FOUND.
func (s *Service) UpdatePack(ctx context.Context, a Actor, pid string, patch PackPatch) (PackView, error) {
	if err := Allowed(a, OpUpdatePack); err != nil {
		return PackView{}, err
	}
	ctx = topupd.WithCostGuard(ctx, patch.Guard())
	p, err := s.d.Store.UpdatePack(ctx, update(a, OpUpdatePack, pid), pid, func(p *topupd.Pack) error {
		patch.Apply(p)
		return s.checkPack(ctx, p)
	})
	if err != nil {
		return PackView{}, err
	}
	s.changed(ctx)
	return s.withStock(ctx, p)
}

// withStock is a pack with its stock.
func (s *Service) withStock(ctx context.Context, p topupd.Pack) (PackView, error) {
	stock, err := s.d.Store.StockLevels(ctx)
	if err != nil {
		return PackView{}, err
	}
	return PackView{Pack: p, Available: stock[p.PID]}, nil
}

// checkPack checks a pack about to be stored: valid, its suppliers
// allowed and configured, its line existing. Its price against its cost
// is the store's to check, in the write's transaction (the cost guard,
// topupd.CostGuard).
func (s *Service) checkPack(ctx context.Context, p *topupd.Pack) error {
	line, err := s.lineOf(ctx, p.Slug, topupd.Errorf(topupd.EInvalidBody, "slug %q names no service line", p.Slug))
	if err != nil {
		return err
	}
	if err := p.ResolveProvider(&line, !s.d.SimOff); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	for _, sup := range p.SupplierList() {
		if sup.Provider == topupd.ProviderSim && s.d.SimOff {
			return topupd.Errorf(topupd.ESimDisabled, "the sim supplier is off (--sim off): name the pack's provider")
		}
		if sup.Provider == topupd.ProviderUpstream {
			if _, err := s.d.Store.Upstream(ctx, sup.Upstream); err != nil {
				if topupd.CodeOf(err) == topupd.ENotFound {
					return topupd.Errorf(topupd.EInvalidBody, "upstream %q is not configured (PUT /admin/upstreams/%s first)", sup.Upstream, sup.Upstream)
				}
				return err
			}
		}
	}
	return nil
}
