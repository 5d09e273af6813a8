package topupd

import (
	"context"
	"hash/maphash"
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

// Status bits of theirSide.statuses.
const (
	sawProcessing uint8 = 1 << iota
	sawCompleted
	sawCancelled
)

// statusBit is a status's bit in theirSide.statuses.
func statusBit(s OrderStatus) uint8 {
	switch s {
	case StatusProcessing:
		return sawProcessing
	case StatusCompleted:
		return sawCompleted
	case StatusCancelled:
		return sawCancelled
	}
	return 0
}

// theirSide is what the supplier's lines say of one reference, folded as
// they are read: small, as a month of a busy supplier has a million.
type theirSide struct {
	net              Money
	charges, refunds int32
	// order is a hash of the first of their order ids it names (0 for
	// none yet); manyOrders that it named another.
	order      uint64
	manyOrders bool
	statuses   uint8
	// listedIn tells that a line of the period names it; named that one
	// of our orders was matched with it.
	listedIn, named bool
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
	case s.statuses == sawProcessing:
		return StatusProcessing
	case s.statuses == sawCompleted:
		return StatusCompleted
	case s.statuses == sawCancelled:
		return StatusCancelled
	case s.statuses&sawProcessing != 0 && s.statuses&(sawCompleted|sawCancelled) == 0:
		return StatusProcessing
	case s.statuses&sawCancelled != 0 && s.net <= 0:
		return StatusCancelled
	}
	return StatusCompleted
}

// TheirBooks are a supplier's lines about our references, folded by
// reference as they are read (a pull's pages, a file's rows), with the
// totals of the lines of the period.
type TheirBooks struct {
	index map[string]int32
	sides []theirSide
	seed  maphash.Seed
	// cost sums the amounts of the period's lines.
	cost Money
}

// NewTheirBooks returns empty books.
func NewTheirBooks() *TheirBooks {
	return &TheirBooks{index: map[string]int32{}, seed: maphash.MakeSeed()}
}

// Add folds one line into the books.
func (b *TheirBooks) Add(r TheirRow) {
	i, ok := b.index[r.Reference]
	if !ok {
		i = int32(len(b.sides))
		b.index[r.Reference] = i
		b.sides = append(b.sides, theirSide{})
	}
	s := &b.sides[i]
	s.net += r.Amount
	switch {
	case r.Amount > 0:
		s.charges++
	case r.Amount < 0:
		s.refunds++
	}
	if r.Order != "" {
		h := maphash.String(b.seed, r.Order) | 1 // never 0, which is none
		switch s.order {
		case 0:
			s.order = h
		case h:
		default:
			s.manyOrders = true
		}
	}
	s.statuses |= statusBit(r.Status)
	if !r.Beyond {
		b.cost += r.Amount
		s.listedIn = true
	}
}

// Lists tells whether a line names the reference.
func (b *TheirBooks) Lists(ref string) bool {
	_, ok := b.index[ref]
	return ok
}

// Unnamed returns the references the period's lines name that no order
// of ours was matched with yet: those to look up among our orders beyond
// the period.
func (b *TheirBooks) Unnamed() []string {
	var out []string
	for ref, i := range b.index {
		if s := &b.sides[i]; s.listedIn && !s.named {
			out = append(out, ref)
		}
	}
	sort.Strings(out)
	return out
}

// Matcher matches our orders, one at a time, with a supplier's books.
type Matcher struct {
	books   *TheirBooks
	out     []Mismatch
	matched int
	totals  ReconTotals
}

// Matcher starts matching our orders with the books.
func (b *TheirBooks) Matcher() *Matcher { return &Matcher{books: b} }

// Ours matches one of our orders (each once): an order from beyond the
// period that the period's lines do not name is left out.
func (m *Matcher) Ours(o *OurOrder) {
	ref := o.Reference()
	var s *theirSide
	if i, ok := m.books.index[ref]; ok {
		s = &m.books.sides[i]
		s.named = true
	}
	if !o.Beyond {
		m.totals.OurOrders++
		if o.Status == StatusCompleted && o.Cost != nil {
			m.totals.OurCost += *o.Cost
		}
	}
	if o.Beyond && (s == nil || !s.listedIn) {
		return // neither side lists it in the period
	}
	m.add(ref, o, s)
}

// add records one reference's mismatch, if any, or counts it matched.
func (m *Matcher) add(ref string, o *OurOrder, s *theirSide) {
	if mm, ok := mismatchOf(ref, o, s); ok {
		m.out = append(m.out, mm)
	} else {
		m.matched++
	}
}

// Result matches the references the period's lines name that no order of
// ours named, and gives the mismatches (at most one a reference, of the
// first kind that applies, numbered in the order of their references),
// how many references matched, and the totals.
func (m *Matcher) Result() ([]Mismatch, int, ReconTotals) {
	for ref, i := range m.books.index {
		if s := &m.books.sides[i]; s.listedIn && !s.named {
			s.named = true
			m.add(ref, nil, s)
		}
	}
	sort.Slice(m.out, func(i, j int) bool { return m.out[i].Reference < m.out[j].Reference })
	for i := range m.out {
		m.out[i].ID = i + 1
	}
	t := m.totals
	t.TheirCost = m.books.cost
	for i := range m.books.sides {
		if m.books.sides[i].listedIn {
			t.TheirOrders++
		}
	}
	return m.out, m.matched, t
}

// Match compares our orders with the supplier's lines: the mismatches (at
// most one a reference, of the first kind that applies, numbered in the
// order of their references), how many references matched, and the totals.
func Match(ours []OurOrder, theirs []TheirRow) (out []Mismatch, matched int, t ReconTotals) {
	b := NewTheirBooks()
	for _, r := range theirs {
		b.Add(r)
	}
	m := b.Matcher()
	for i := range ours {
		m.Ours(&ours[i])
	}
	return m.Result()
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
	case s != nil && (s.manyOrders || s.charges-s.refunds > 1):
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
	// EachUpstreamOrder calls fn with each of our orders at an upstream
	// created in [start, end), as it reads them (a month may hold a
	// million: they are never all in memory at once); fn's error stops it.
	EachUpstreamOrder(ctx context.Context, upstream string, start, end time.Time, fn func(*OurOrder) error) error
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

// SupplierBooks reads a supplier's books (the upstream provider
// implements it). Its errors are UPSTREAM_REFUSED and
// UPSTREAM_UNREACHABLE.
type SupplierBooks interface {
	// Books folds into into the supplier's lines of a period (its charges
	// and refunds, and its orders' statuses), and gives our balance there
	// at the period's edges (nil without a statement).
	Books(ctx context.Context, u Upstream, p ReconPeriod, into *TheirBooks) (opening, closing *Money, err error)
	// Lookup folds into into what the supplier says of each reference,
	// wherever it falls (lines marked Beyond): our orders of the period
	// its books did not name.
	Lookup(ctx context.Context, u Upstream, refs []string, into *TheirBooks) error
}

// BalanceDrift is how far a supplier's balance moved beyond what our
// deposits and costs explain: (closing − opening) − (deposits − our cost).
// 0 when the books agree; negative when their balance fell by more.
func BalanceDrift(opening, closing, deposits, ourCost Money) Money {
	return (closing - opening) - (deposits - ourCost)
}
