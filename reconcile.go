package topupd

import (
	"context"
	"sort"
	"time"
)

// Reconciliation with a supplier (back-office.md, section 2): our orders
// sent to an upstream and the supplier's books, matched on each order's
// reference (its upstream trxid, UpstreamTrxID), give the references
// that agree and at most one typed mismatch for each that does not.

// The kinds of mismatch, in the order they are tried: a reference gets
// the first that applies.
const (
	MismatchDuplicate       = "duplicate_upstream"
	MismatchMissingHere     = "missing_here"
	MismatchMissingUpstream = "missing_upstream"
	MismatchStatus          = "status_mismatch"
	MismatchCost            = "cost_mismatch"
)

// TheirRow is one line of a supplier's books about a reference: a charge
// (Amount above 0), a refund (below 0) or a status alone (0), with their
// status of the order when the line says one, their own order id when
// known, and when.
type TheirRow struct {
	Reference string
	Amount    Money
	Status    OrderStatus
	Order     string
	At        time.Time
	// Beyond marks a line from outside the period, looked up for a
	// reference our side lists in it: it matches, and counts in no total.
	Beyond bool
}

// OurOrder is one of our orders at an upstream as a reconciliation reads it.
type OurOrder struct {
	ID          string
	SupplierRef string
	Status      OrderStatus
	// Cost is its recorded cost, nil until it completed.
	Cost      *Money
	CreatedAt time.Time
	// Beyond marks an order created outside the period, looked up for a
	// reference the supplier lists in it: it matches, and counts in no total.
	Beyond bool
}

// Reference is the order's reference at its upstream.
func (o *OurOrder) Reference() string { return UpstreamTrxID(&Order{ID: o.ID}) }

// ReconTotals are a reconciliation's totals: our orders sent there in the
// period, the references they list in it, the recorded costs of ours that
// completed there, and their charges less refunds in it.
type ReconTotals struct {
	OurOrders, TheirOrders int
	OurCost, TheirCost     Money
}

// Mismatch is one reference on which the two books disagree.
type Mismatch struct {
	// ID numbers it within its reconciliation, from 1.
	ID          int
	Kind        string
	Reference   string
	OrderID     string
	SupplierRef string
	// Ours is our recorded cost; Theirs their charges less refunds for it.
	Ours, Theirs           *Money
	OurStatus, TheirStatus OrderStatus
	// State is MismatchOpen until a fix resolves it ("" counts as open).
	State string
	// Resolution is how it was resolved, nil while open.
	Resolution *Resolution
}

// theirSide is what the supplier's lines say of one reference.
type theirSide struct {
	net              Money
	charges, refunds int
	orders           map[string]bool
	statuses         map[OrderStatus]bool
	listed           bool
}

// status is the supplier's status of a reference: cancelled when what it
// charged was refunded; else the one status its lines say; else
// processing while none says completed or cancelled, cancelled when one
// says so and nothing is left charged, and completed otherwise (a line
// without a status is a completed order).
func (s *theirSide) status() OrderStatus {
	switch {
	case s.refunds > 0 && s.net <= 0:
		return StatusCancelled
	case len(s.statuses) == 1:
		for st := range s.statuses {
			return st
		}
	case s.statuses[StatusProcessing] && !s.statuses[StatusCompleted] && !s.statuses[StatusCancelled]:
		return StatusProcessing
	case s.statuses[StatusCancelled] && s.net <= 0:
		return StatusCancelled
	}
	return StatusCompleted
}

// Match compares our orders with the supplier's lines: the mismatches (at
// most one a reference, of the first kind that applies, numbered in the
// order of their references), how many references matched, and the totals.
func Match(ours []OurOrder, theirs []TheirRow) (out []Mismatch, matched int, t ReconTotals) {
	byRef := map[string]*OurOrder{}
	refs := map[string]bool{}
	for i := range ours {
		o := &ours[i]
		byRef[o.Reference()] = o
		refs[o.Reference()] = true
		if !o.Beyond {
			t.OurOrders++
			if o.Status == StatusCompleted && o.Cost != nil {
				t.OurCost += *o.Cost
			}
		}
	}
	sides := map[string]*theirSide{}
	listedIn := map[string]bool{}
	for _, r := range theirs {
		s := sides[r.Reference]
		if s == nil {
			s = &theirSide{orders: map[string]bool{}, statuses: map[OrderStatus]bool{}}
			sides[r.Reference] = s
		}
		s.listed = true
		s.net += r.Amount
		switch {
		case r.Amount > 0:
			s.charges++
		case r.Amount < 0:
			s.refunds++
		}
		if r.Order != "" {
			s.orders[r.Order] = true
		}
		if r.Status != "" {
			s.statuses[r.Status] = true
		}
		refs[r.Reference] = true
		if !r.Beyond {
			t.TheirCost += r.Amount
			listedIn[r.Reference] = true
		}
	}
	t.TheirOrders = len(listedIn)
	sorted := make([]string, 0, len(refs))
	for ref := range refs {
		sorted = append(sorted, ref)
	}
	sort.Strings(sorted)
	for _, ref := range sorted {
		o, s := byRef[ref], sides[ref]
		if (o == nil || o.Beyond) && !listedIn[ref] {
			continue // neither side lists it in the period
		}
		m, ok := mismatchOf(ref, o, s)
		if !ok {
			matched++
			continue
		}
		m.ID = len(out) + 1
		out = append(out, m)
	}
	return out, matched, t
}

// mismatchOf is the mismatch of one reference, if the sides disagree.
func mismatchOf(ref string, o *OurOrder, s *theirSide) (Mismatch, bool) {
	m := Mismatch{Reference: ref}
	if o != nil {
		m.OrderID, m.SupplierRef, m.OurStatus, m.Ours = o.ID, o.SupplierRef, o.Status, o.Cost
	}
	var theirStatus OrderStatus
	if s != nil {
		net := s.net
		m.Theirs, theirStatus = &net, s.status()
		m.TheirStatus = theirStatus
	}
	switch {
	case s != nil && (len(s.orders) > 1 || s.charges-s.refunds > 1):
		m.Kind = MismatchDuplicate
	case s != nil && (theirStatus == StatusCompleted || s.net > 0) && (o == nil || o.Status == StatusCancelled):
		m.Kind = MismatchMissingHere
	case o != nil && o.Status == StatusCompleted && s == nil:
		m.Kind = MismatchMissingUpstream
	case o != nil && s != nil && o.Status != theirStatus && (o.Status == StatusProcessing || theirStatus == StatusProcessing ||
		(theirStatus == StatusCancelled && o.Status == StatusCompleted)):
		m.Kind = MismatchStatus
	case o != nil && s != nil && o.Status == StatusCompleted && theirStatus == StatusCompleted && o.Cost != nil && *o.Cost != s.net:
		m.Kind = MismatchCost
	default:
		return m, false
	}
	return m, true
}

// The sources and states of a reconciliation.
const (
	ReconPull   = "pull"
	ReconCSV    = "csv"
	ReconOpen   = "open"
	ReconClosed = "closed"
)

// Reconciliation is one matching of our books with a supplier's over a
// period.
type Reconciliation struct {
	Seq      int64
	ID       string
	Supplier string
	Period   ReconPeriod
	// Source is ReconPull or ReconCSV; State ReconOpen or ReconClosed.
	Source, State string
	CreatedAt     time.Time
	Operator      string
	ClosedAt      *time.Time
	// Matched counts the references without a mismatch.
	Matched int
	Totals  ReconTotals
	// BalanceDrift is how far their balance moved beyond what our
	// deposits and costs explain; nil for a file, or without a statement.
	BalanceDrift *Money
	// Mismatches are its mismatches by ID (none in a list's rows).
	Mismatches []Mismatch
}

// ReconciliationsQuery selects a page of reconciliations, newest first.
type ReconciliationsQuery struct {
	// Supplier and State, when set, keep those of this upstream and state.
	Supplier, State string
	// Before, when set, starts the page after the reconciliation of this seq.
	Before int64
	Limit  int
}

// ReconciliationStore keeps reconciliations and reads the orders they match.
type ReconciliationStore interface {
	// UpstreamOrders returns our orders at an upstream created in
	// [start, end).
	UpstreamOrders(ctx context.Context, upstream string, start, end time.Time) ([]OurOrder, error)
	// UpstreamOrdersByRef returns our orders at an upstream whose
	// references are among refs, wherever they were created (Beyond set).
	UpstreamOrdersByRef(ctx context.Context, upstream string, refs []string) ([]OurOrder, error)
	// AddReconciliation stores a reconciliation and its mismatches (r.Seq
	// set), logged as the change ch.
	AddReconciliation(ctx context.Context, ch *Change, r Reconciliation) (Reconciliation, error)
	// Reconciliation returns one with its mismatches, or ENotFound.
	Reconciliation(ctx context.Context, id string) (Reconciliation, error)
	// Reconciliations returns a page, without mismatches.
	Reconciliations(ctx context.Context, q ReconciliationsQuery) ([]Reconciliation, error)
	// CloseReconciliation closes one none of whose mismatches is open:
	// EMismatchesOpen while one is, EReconciliationClosed once closed.
	CloseReconciliation(ctx context.Context, ch *Change, id string, at time.Time) (Reconciliation, error)
	// OpenMismatches counts the open mismatches by supplier, for every
	// supplier reconciled.
	OpenMismatches(ctx context.Context) (map[string]int, error)
	// ClaimNightly takes the nightly reconciliation of an upstream's day
	// (YYYY-MM-DD) for this node: true for one node only, once.
	ClaimNightly(ctx context.Context, supplier, day string, at time.Time) (bool, error)
	// RecordReconciliationFailed tells that a nightly reconciliation could
	// not read its supplier (a reconciliation.failed operator event).
	RecordReconciliationFailed(ctx context.Context, d ReconciliationFailedData, at time.Time) error
	// UpstreamDepositsTotal sums the deposits recorded for an upstream
	// with at in [start, end).
	UpstreamDepositsTotal(ctx context.Context, upstream string, start, end time.Time) (Money, error)
	// ResolveMismatch resolves mismatch mid of reconciliation recID by f,
	// logged as the change ch, in one transaction holding the
	// reconciliation's, the mismatch's and its order's row locks: the
	// mismatch as it now stands and the effect. With f.Preview it tells
	// the effect and changes nothing. NOT_FOUND, RECONCILIATION_CLOSED,
	// MISMATCH_RESOLVED, ACTION_NOT_APPLICABLE (FixApplies).
	ResolveMismatch(ctx context.Context, ch *Change, recID string, mid int, f Fix) (Mismatch, FixEffect, error)
}

// SupplierStatement is a supplier's books over a period, as a pull reads
// them: its lines about our orders (those looked up beyond the period
// marked Beyond), and our balance there at the period's edges (nil
// without a statement).
type SupplierStatement struct {
	Rows             []TheirRow
	Opening, Closing *Money
}

// SupplierBooks reads a supplier's books over a period (the upstream
// provider implements it); ours are the references of our orders in the
// period, each looked up beyond it when the books do not list it. Its
// errors are UPSTREAM_REFUSED and UPSTREAM_UNREACHABLE.
type SupplierBooks interface {
	Books(ctx context.Context, u Upstream, p ReconPeriod, ours []string) (SupplierStatement, error)
}

// BalanceDrift is how far a supplier's balance moved beyond what our
// deposits and costs explain: (closing − opening) − (deposits − our cost).
// 0 when the books agree; negative when their balance fell by more.
func BalanceDrift(opening, closing, deposits, ourCost Money) Money {
	return (closing - opening) - (deposits - ourCost)
}
