package topupd

import (
	"context"
	"sync"
	"time"
)

// Batch is one upload of codes to a pack's stock. Voiding it withdraws
// its unsold codes: they leave the stock and are never sold. Codes in
// stock before batches existed were put in one batch per pack, noted
// BackfillNote; codes delivered before then belong to no batch.
type Batch struct {
	ID  int64
	PID string
	// Cost is what one code of the batch cost; nil: the pack's cost at
	// each sale.
	Cost *Money
	Note string
	// Operator is who uploaded it ("" for the backfilled batches and
	// uploads made outside the admin API).
	Operator  string
	CreatedAt time.Time
	// Added counts the codes added (duplicates are not), Sold those given
	// to orders, Withdrawn those its void withdrew.
	Added, Sold, Withdrawn int
	// VoidedAt is when it was voided; nil while it is not.
	VoidedAt *time.Time
}

// BackfillNote is the note of the batch that holds a pack's codes that
// were in stock before batches existed.
const BackfillNote = "in stock before batches"

// Unsold counts the codes of the batch never sold: in stock, or withdrawn
// once it is voided.
func (b *Batch) Unsold() int { return b.Added - b.Sold }

// Voided reports whether the batch was voided.
func (b *Batch) Voided() bool { return b.VoidedAt != nil }

// LogFields are the batch's fields as the action log records them.
func (b *Batch) LogFields() map[string]any {
	f := map[string]any{"pid": b.PID, "note": b.Note, "added": b.Added, "sold": b.Sold, "unsold": b.Unsold(),
		"withdrawn": b.Withdrawn, "voided": b.Voided()}
	if b.Cost != nil {
		f["costUsd"] = *b.Cost
	}
	return f
}

// StockUpload is what an upload of codes says besides the codes.
type StockUpload struct {
	// BatchID, when set, adds the codes to this batch of the same pack,
	// which must not be voided, instead of starting a batch: how a client
	// sends one file in several calls (the console does).
	BatchID int64
	// Cost is what one code of the upload cost; nil: the pack's cost at
	// each sale.
	Cost *Money
	// Note is the operator's note on the batch (at most MaxBatchNote bytes).
	Note string
}

// MaxBatchNote bounds a batch's note, in bytes.
const MaxBatchNote = 500

// Validate checks an upload's batch fields as the admin API receives them.
func (u *StockUpload) Validate() error {
	switch {
	case u.BatchID < 0:
		return Errorf(EInvalidBody, "batchId must be above 0")
	case u.BatchID > 0 && (u.Cost != nil || u.Note != ""):
		return Errorf(EInvalidBody, "costUsd and note belong to a batch's first upload, not to one sent with batchId")
	case u.Cost != nil && *u.Cost < 0:
		return Errorf(EInvalidBody, "costUsd must not be below 0")
	case len(u.Note) > MaxBatchNote:
		return Errorf(EInvalidBody, "note: at most %d bytes", MaxBatchNote)
	}
	return nil
}

// PermExportCodes reads a batch's unsold codes in plaintext: the owner's
// alone (Role.May grants no other role a permission it does not name).
const PermExportCodes Permission = "export-codes"

// BatchStore keeps stock batches and the low-stock alerts.
type BatchStore interface {
	// AddStockBatch adds codes to a pack's stock as AddStock does, in the
	// batch the upload names or in a new one; StockResult.BatchID names
	// it. A batch of another pack, or voided, is EConflict; an unknown
	// batch or pack is ENotFound.
	AddStockBatch(ctx context.Context, ch *Change, pid string, codes []string, u StockUpload, now time.Time) (StockResult, error)
	// Batches lists a pack's batches, newest first; an unknown pack is
	// ENotFound.
	Batches(ctx context.Context, pid string) ([]Batch, error)
	// VoidBatch withdraws the unsold codes of a batch, in one transaction
	// that takes turns with the pack's draws: no order is given one of
	// them afterwards. An unknown batch is ENotFound; one already voided
	// is EConflict.
	VoidBatch(ctx context.Context, ch *Change, id int64, now time.Time) (Batch, error)
	// BatchCodes returns a batch and its unsold codes (withdrawn ones too),
	// opened, oldest first, recording the export in the action log when
	// ch is not nil. An unknown batch is ENotFound.
	BatchCodes(ctx context.Context, ch *Change, id int64) (Batch, []string, error)
	// LowStock reports, for every pack whose LowStockAt is set, whether its
	// low-stock alert is raised (its stock is at or below it).
	LowStock(ctx context.Context) (map[string]bool, error)
}

// LowStockAlert is a pack's low-stock alert raised (its stock fell to its
// LowStockAt or below) or cleared (stock was added above it).
type LowStockAlert struct {
	PID        string
	Raised     bool
	Available  int
	LowStockAt int
}

// LowStockNotes gathers the low-stock alerts a request raised or cleared,
// for its log: the store adds each one once the transaction that raised
// or cleared it has committed. The database keeps whether each pack's
// alert is raised, so one alert is noted by one request, whatever the
// nodes and orders racing it.
type LowStockNotes struct {
	mu     sync.Mutex
	alerts []LowStockAlert
}

// WithLowStockNotes returns ctx carrying n.
func WithLowStockNotes(ctx context.Context, n *LowStockNotes) context.Context {
	return withValue(ctx, n)
}

// LowStockNotesOf returns the notes ctx carries, or nil.
func LowStockNotesOf(ctx context.Context) *LowStockNotes { return valueOf[*LowStockNotes](ctx) }

// Add notes alerts raised or cleared by a committed transaction.
func (n *LowStockNotes) Add(a ...LowStockAlert) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.alerts = append(n.alerts, a...)
}

// Take returns the alerts noted so far and forgets them.
func (n *LowStockNotes) Take() []LowStockAlert {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	a := n.alerts
	n.alerts = nil
	return a
}

// LowOnStock reports whether a pack that draws stock is low on it, as the
// console and the operators' chats show it: by its low-stock alert when
// its lowStockAt is set (levels is what BatchStore.LowStock reports);
// otherwise, as before lowStockAt, when it is active and holds fewer than
// LowStock codes.
func LowOnStock(pid, status string, available int, levels map[string]bool) bool {
	if raised, ok := levels[pid]; ok {
		return raised
	}
	return status == StatusActive && available < LowStock
}
