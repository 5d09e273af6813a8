package service

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// The operations on the catalog: lines, packs, stock, batches and
// upstreams (their reads are OpRead).
const (
	OpPutLine     Op = "line.put"
	OpUpdateLine  Op = "line.update"
	OpPutPack     Op = "pack.put"
	OpUpdatePack  Op = "pack.update"
	OpAddStock    Op = "stock.add"
	OpVoidBatch   Op = "batch.void"
	OpExportBatch Op = "batch.export"
	OpPutUpstream Op = "upstream.put"
	// OpDeleteUpstream removes an upstream no pack or processing order names.
	OpDeleteUpstream Op = "upstream.delete"
	// OpAddUpstreamDeposit records money we sent a supplier.
	OpAddUpstreamDeposit Op = "upstream.deposit"
	// OpCheckUpstream asks an upstream for our balance there.
	OpCheckUpstream Op = "upstream.check"
	// OpUpdateUpstream changes an upstream's runway thresholds.
	OpUpdateUpstream Op = "upstream.update"
)

// catalogOps are the permissions of the operations on the catalog: lines,
// packs, stock, batches, upstreams and providers.
var catalogOps = map[Op]rule{
	OpPutLine:        {topupd.PermCatalog, topupd.CatalogChanged},
	OpUpdateLine:     {topupd.PermCatalog, topupd.CatalogChanged},
	OpPutPack:        {topupd.PermCatalog, topupd.CatalogChanged},
	OpUpdatePack:     {topupd.PermCatalog, topupd.CatalogChanged},
	OpAddStock:       {topupd.PermCatalog, topupd.CatalogChanged},
	OpVoidBatch:      {topupd.PermCatalog, topupd.CatalogChanged},
	OpExportBatch:    {perm: topupd.PermExportCodes}, // reads codes: the catalog stays as it was
	OpPutUpstream:    {topupd.PermCatalog, topupd.CatalogChanged},
	OpDeleteUpstream: {topupd.PermCatalog, topupd.CatalogChanged},
	// OpAddUpstreamDeposit records money sent to a supplier: the owner's
	// and finance's, as a credit is.
	OpAddUpstreamDeposit: {perm: topupd.PermCredit},
	OpCheckUpstream:      {perm: topupd.PermCheckSuppliers},
	OpUpdateUpstream:     {perm: topupd.PermCatalog},
}

// catalogStore is what the operations on the catalog: lines, packs,
// stock, batches, upstreams and providers need of the database.
type catalogStore interface {
	PutLine(ctx context.Context, ch *topupd.Change, l topupd.Line) error
	UpdateLine(ctx context.Context, ch *topupd.Change, slug string, apply func(*topupd.Line) error) (topupd.Line, error)
	Lines(ctx context.Context) ([]topupd.Line, error)
	PutPack(ctx context.Context, ch *topupd.Change, p topupd.Pack) error
	UpdatePack(ctx context.Context, ch *topupd.Change, pid string, apply func(*topupd.Pack) error) (topupd.Pack, error)
	Packs(ctx context.Context) ([]topupd.Pack, error)
	StockLevels(ctx context.Context) (map[string]int, error)
	AddStockBatch(ctx context.Context, ch *topupd.Change, pid string, codes []string, u topupd.StockUpload, now time.Time) (topupd.StockResult, error)
	Batches(ctx context.Context, pid string) ([]topupd.Batch, error)
	VoidBatch(ctx context.Context, ch *topupd.Change, id int64, now time.Time) (topupd.Batch, error)
	BatchCodes(ctx context.Context, ch *topupd.Change, id int64) (topupd.Batch, []string, error)
	PutUpstream(ctx context.Context, ch *topupd.Change, u topupd.Upstream) error
	DeleteUpstream(ctx context.Context, ch *topupd.Change, name string) error
	RecordUpstreamCheck(ctx context.Context, ch *topupd.Change, name string, balance *topupd.Money, at time.Time) (topupd.Upstream, error)
	SetUpstreamThresholds(ctx context.Context, ch *topupd.Change, name string, warn, critical *float64) (topupd.Upstream, error)
	topupd.UpstreamDepositStore
	Upstream(ctx context.Context, name string) (topupd.Upstream, error)
	Upstreams(ctx context.Context) ([]topupd.Upstream, error)
	StuckCounts(ctx context.Context, now time.Time) ([]topupd.StuckCount, error)
}

// readCatalog lets every operator read the catalog, its stock and its
// suppliers, and no reseller's chat (which reads its own account alone).
func readCatalog(a Actor) error {
	if err := Allowed(a, OpRead); err != nil {
		return err
	}
	return a.Own("")
}

// LinePatch is a change to some fields of a line: a nil field keeps its
// value.
type LinePatch struct {
	ProductName, GameName, Game *string
	Kind                        *topupd.LineKind
	Status                      *string
	// Required, ServerIDOptions and RegionOptions replace the lists
	// (a pointer to nil empties one).
	Required                       *[]topupd.RequiredField
	ServerIDOptions, RegionOptions *[]topupd.Option
}

// Apply sets the fields the patch holds.
func (p *LinePatch) Apply(l *topupd.Line) {
	set(&l.ProductName, p.ProductName)
	set(&l.GameName, p.GameName)
	set(&l.Game, p.Game)
	set(&l.Kind, p.Kind)
	set(&l.Status, p.Status)
	set(&l.Required, p.Required)
	set(&l.ServerIDOptions, p.ServerIDOptions)
	set(&l.RegionOptions, p.RegionOptions)
}

// set sets *dst to *v when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Lines lists every line, the disabled ones too, by slug.
func (s *Service) Lines(ctx context.Context, a Actor) ([]topupd.Line, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.d.Store.Lines(ctx)
}

// Line reads one line; an unknown slug is NOT_FOUND.
func (s *Service) Line(ctx context.Context, a Actor, slug string) (topupd.Line, error) {
	if err := readCatalog(a); err != nil {
		return topupd.Line{}, err
	}
	return s.lineOf(ctx, slug, topupd.Errorf(topupd.ENotFound, "service line %s", slug))
}

// lineOf finds the line slug names, or answers missing.
func (s *Service) lineOf(ctx context.Context, slug string, missing error) (topupd.Line, error) {
	lines, err := s.d.Store.Lines(ctx)
	if err != nil {
		return topupd.Line{}, err
	}
	for _, l := range lines {
		if l.Slug == slug {
			return l, nil
		}
	}
	return topupd.Line{}, missing
}

// PutLine creates or replaces the line l.Slug names, once valid.
func (s *Service) PutLine(ctx context.Context, a Actor, l topupd.Line) (topupd.Line, error) {
	if err := Allowed(a, OpPutLine); err != nil {
		return l, err
	}
	if err := l.Validate(); err != nil {
		return l, err
	}
	if err := s.d.Store.PutLine(ctx, change(a, OpPutLine, l.Slug), l); err != nil {
		return l, err
	}
	s.changed(ctx)
	return l, nil
}

// UpdateLine changes the fields of a stored line the patch holds; the
// others keep their values. An unknown slug is NOT_FOUND.
func (s *Service) UpdateLine(ctx context.Context, a Actor, slug string, p LinePatch) (topupd.Line, error) {
	if err := Allowed(a, OpUpdateLine); err != nil {
		return topupd.Line{}, err
	}
	l, err := s.d.Store.UpdateLine(ctx, update(a, OpUpdateLine, slug), slug, func(l *topupd.Line) error {
		p.Apply(l)
		return l.Validate()
	})
	if err != nil {
		return l, err
	}
	s.changed(ctx)
	return l, nil
}
