package service

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/topupd/topupd"
)

// The operations of reconciliations with suppliers (back-office.md,
// section 2).
const (
	// OpRunReconciliation matches our books with a supplier's over a period.
	OpRunReconciliation Op = "reconciliation.run"
	// OpCloseReconciliation closes a reconciliation none of whose
	// mismatches is open.
	OpCloseReconciliation Op = "reconciliation.close"
	// OpResolveMismatch resolves a mismatch of a reconciliation.
	OpResolveMismatch Op = "reconciliation.resolve"
)

// reconOps are the permissions of the reconciliations' operations: the
// owner's and finance's.
var reconOps = map[Op]rule{
	OpRunReconciliation:   {perm: topupd.PermReconcile},
	OpCloseReconciliation: {perm: topupd.PermReconcile},
	OpResolveMismatch:     {perm: topupd.PermReconcile},
}

// CloseReconciliation closes a reconciliation: MISMATCHES_OPEN while one
// of its mismatches is open, RECONCILIATION_CLOSED once closed.
func (s *Service) CloseReconciliation(ctx context.Context, a Actor, id string) (topupd.Reconciliation, error) {
	if err := Allowed(a, OpCloseReconciliation); err != nil {
		return topupd.Reconciliation{}, err
	}
	return s.d.Store.CloseReconciliation(ctx, change(a, OpCloseReconciliation, id), id, s.d.Now().UTC().Truncate(time.Millisecond))
}

// ReconcileCSV matches our orders at an upstream over a period with the
// supplier's file, read by its named columns: NOT_FOUND for an unknown
// upstream; a bad file is refused as ParseSupplierCSV says, and nothing
// is stored.
func (s *Service) ReconcileCSV(ctx context.Context, a Actor, upstream string, p topupd.ReconPeriod, cols topupd.CSVColumns, file io.Reader) (topupd.Reconciliation, error) {
	if err := Allowed(a, OpRunReconciliation); err != nil {
		return topupd.Reconciliation{}, err
	}
	if _, err := s.d.Store.Upstream(ctx, upstream); err != nil {
		return topupd.Reconciliation{}, err
	}
	rows, err := topupd.ParseSupplierCSV(file, cols, p)
	if err != nil {
		return topupd.Reconciliation{}, err
	}
	books := topupd.NewTheirBooks()
	for _, r := range rows {
		books.Add(r)
	}
	return s.reconcile(ctx, a, upstream, p, topupd.ReconCSV, books, nil, func(topupd.ReconTotals) *topupd.Money { return nil })
}

// ReconcilePull matches our orders at an upstream over a period with its
// books as it answers them (its statement and history): NOT_FOUND for an
// unknown upstream, UPSTREAM_REFUSED or UPSTREAM_UNREACHABLE when it
// cannot be read. Each of our orders its books do not name is looked up
// there beyond the period. The balance drift compares its balance's move
// with our deposits there and our costs.
func (s *Service) ReconcilePull(ctx context.Context, a Actor, upstream string, p topupd.ReconPeriod) (topupd.Reconciliation, error) {
	if err := Allowed(a, OpRunReconciliation); err != nil {
		return topupd.Reconciliation{}, err
	}
	u, err := s.d.Store.Upstream(ctx, upstream)
	if err != nil {
		return topupd.Reconciliation{}, err
	}
	if s.d.Books == nil {
		return topupd.Reconciliation{}, topupd.Errorf(topupd.EInternal, "service: no supplier books")
	}
	books := topupd.NewTheirBooks()
	opening, closing, err := s.d.Books.Books(ctx, u, p, books)
	if err != nil {
		return topupd.Reconciliation{}, err
	}
	deposits, err := s.d.Store.UpstreamDepositsTotal(ctx, upstream, p.Start(), p.End())
	if err != nil {
		return topupd.Reconciliation{}, err
	}
	lookup := func(refs []string) error { return s.d.Books.Lookup(ctx, u, refs, books) }
	return s.reconcile(ctx, a, upstream, p, topupd.ReconPull, books, lookup, func(t topupd.ReconTotals) *topupd.Money {
		if opening == nil || closing == nil {
			return nil
		}
		d := topupd.BalanceDrift(*opening, *closing, deposits, t.OurCost)
		return &d
	})
}

// reconcile matches our orders at an upstream created in the period, as
// the store reads them, with the supplier's books, and stores the
// reconciliation. With lookup (a pull), our orders the books do not name
// are looked up at the supplier beyond the period first; the references
// the period's lines name that none of ours does are looked up among our
// orders beyond it.
func (s *Service) reconcile(ctx context.Context, a Actor, upstream string, p topupd.ReconPeriod, source string,
	books *topupd.TheirBooks, lookup func(refs []string) error, drift func(topupd.ReconTotals) *topupd.Money) (topupd.Reconciliation, error) {
	m := books.Matcher()
	var unnamed []topupd.OurOrder
	err := s.d.Store.EachUpstreamOrder(ctx, upstream, p.Start(), p.End(), func(o *topupd.OurOrder) error {
		if lookup != nil && !books.Lists(o.Reference()) {
			unnamed = append(unnamed, *o)
			return nil
		}
		m.Ours(o)
		return nil
	})
	if err != nil {
		return topupd.Reconciliation{}, err
	}
	if len(unnamed) > 0 {
		refs := make([]string, len(unnamed))
		for i := range unnamed {
			refs[i] = unnamed[i].Reference()
		}
		if err := lookup(refs); err != nil {
			return topupd.Reconciliation{}, err
		}
		for i := range unnamed {
			m.Ours(&unnamed[i])
		}
	}
	more, err := s.d.Store.UpstreamOrdersByRef(ctx, upstream, books.Unnamed())
	if err != nil {
		return topupd.Reconciliation{}, err
	}
	for i := range more {
		m.Ours(&more[i])
	}
	ms, matched, totals := m.Result()
	now := s.d.Now().UTC().Truncate(time.Millisecond)
	r := topupd.Reconciliation{ID: topupd.NewID("rec_"), Supplier: upstream, Period: p, Source: source, State: topupd.ReconOpen,
		CreatedAt: now, Operator: a.Operator, Matched: matched, Totals: totals, BalanceDrift: drift(totals), Mismatches: ms}
	return s.d.Store.AddReconciliation(ctx, change(a, OpRunReconciliation, upstream), r)
}

// Reconciliation reads one reconciliation with its mismatches.
func (s *Service) Reconciliation(ctx context.Context, a Actor, id string) (topupd.Reconciliation, error) {
	if err := readCatalog(a); err != nil {
		return topupd.Reconciliation{}, err
	}
	return s.d.Store.Reconciliation(ctx, id)
}

// Reconciliations reads a page of reconciliations, newest first.
func (s *Service) Reconciliations(ctx context.Context, a Actor, q topupd.ReconciliationsQuery) ([]topupd.Reconciliation, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.d.Store.Reconciliations(ctx, q)
}

// ResolveMismatch resolves mismatch mid of a reconciliation by an action
// with a note, or with preview tells what it would do and changes
// nothing. A complete-order first reads the order from its upstream
// (UPSTREAM_REFUSED, UPSTREAM_UNREACHABLE), which must list it completed
// (else ACTION_NOT_APPLICABLE). NOT_FOUND, RECONCILIATION_CLOSED,
// MISMATCH_RESOLVED and ACTION_NOT_APPLICABLE are checked again in the
// store's transaction, so that of two operators resolving one mismatch
// at once one does, once.
func (s *Service) ResolveMismatch(ctx context.Context, a Actor, recID string, mid int, action, note string, preview bool) (topupd.Mismatch, topupd.FixEffect, error) {
	if err := Allowed(a, OpResolveMismatch); err != nil {
		return topupd.Mismatch{}, topupd.FixEffect{}, err
	}
	if err := topupd.CheckFix(action, note); err != nil {
		return topupd.Mismatch{}, topupd.FixEffect{}, err
	}
	f := topupd.Fix{Action: action, Note: note, Preview: preview, At: s.d.Now().UTC().Truncate(time.Millisecond)}
	if action == topupd.FixCompleteOrder {
		if err := s.readCompletion(ctx, recID, mid, &f); err != nil {
			return topupd.Mismatch{}, topupd.FixEffect{}, err
		}
	}
	return s.d.Store.ResolveMismatch(ctx, change(a, OpResolveMismatch, recID+"/"+strconv.Itoa(mid)), recID, mid, f)
}

// readCompletion reads, for a complete-order, the order of the mismatch
// from its upstream: its codes and the upstream's id, once it says
// completed. A mismatch that is resolved, closed or not applicable is
// refused before the upstream is asked.
func (s *Service) readCompletion(ctx context.Context, recID string, mid int, f *topupd.Fix) error {
	r, err := s.d.Store.Reconciliation(ctx, recID)
	if err != nil {
		return err
	}
	var m *topupd.Mismatch
	for i := range r.Mismatches {
		if r.Mismatches[i].ID == mid {
			m = &r.Mismatches[i]
		}
	}
	switch {
	case m == nil:
		return topupd.Errorf(topupd.ENotFound, "mismatch %d of reconciliation %s", mid, recID)
	case r.State == topupd.ReconClosed:
		return topupd.Errorf(topupd.EReconciliationClosed, "reconciliation %s is closed", recID)
	case m.State == topupd.MismatchResolved:
		return topupd.Errorf(topupd.EMismatchResolved, "mismatch %d of %s is resolved", mid, recID)
	case m.OrderID == "":
		return topupd.FixApplies(f.Action, m, r.Supplier, nil)
	}
	o, err := s.d.Store.Order(ctx, "", m.OrderID)
	if err != nil {
		return err
	}
	if err := topupd.FixApplies(f.Action, m, r.Supplier, &topupd.FixTarget{ID: o.ID, Status: o.Status, Provider: o.Provider, Upstream: o.Upstream}); err != nil {
		return err
	}
	if s.d.SupplierOrders == nil {
		return topupd.Errorf(topupd.EInternal, "service: no supplier orders")
	}
	out, err := s.d.SupplierOrders.ReadOrder(ctx, &o)
	if err != nil {
		return err
	}
	if out.State != topupd.OutcomeCompleted {
		return topupd.Errorf(topupd.EActionNotApplicable, "complete-order: %s lists order %s as %s now", r.Supplier, o.ID, out.State)
	}
	f.Codes, f.SupplierRef = out.Codes, out.SupplierRef
	return nil
}
