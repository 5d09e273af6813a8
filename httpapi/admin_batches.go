package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/client"
	"github.com/topupd/topupd/internal/metrics"
)

// Stock batches: every upload is a batch (POST /admin/products/{pid}/stock
// answers its batchId; a further call may add to it by passing batchId
// back, as the console does with a large file); a batch is listed with its
// counts, voided (its unsold codes withdrawn: owner only, as stock is) and
// exported (its unsold codes in plaintext: owner only, in the action log
// without them).

// viewBatch is a batch as the admin API shows it.
func viewBatch(b *topupd.Batch) client.Batch {
	return client.Batch{ID: b.ID, PID: b.PID, CreatedAt: b.CreatedAt.UTC(), CostUSD: b.Cost, Note: b.Note, Operator: b.Operator,
		Added: b.Added, Sold: b.Sold, Unsold: b.Unsold(), Withdrawn: b.Withdrawn, Voided: b.Voided(), VoidedAt: utcPtr(b.VoidedAt)}
}

// stockAnswer is what an upload of codes did.
type stockAnswer struct {
	Added      int   `json:"added"`
	Available  int   `json:"available"`
	BatchID    int64 `json:"batchId"`
	Duplicates int   `json:"duplicates"`
	Success    bool  `json:"success"`
}

// addStock adds an upload's codes to a pack's stock, in a new batch or in
// the one batchId names.
func (a *admin) addStock(w http.ResponseWriter, r *http.Request) error {
	obj, err := readAdminObject(r)
	if err != nil {
		return err
	}
	var codes []string
	var u topupd.StockUpload
	obj.take("codes", &codes)
	if cost, ok := obj.money("costUsd"); ok {
		u.Cost = &cost
	}
	obj.take("note", &u.Note)
	obj.take("batchId", &u.BatchID)
	if err := obj.done(); err != nil {
		return err
	}
	res, err := a.Service.AddStock(r.Context(), a.actor(r), r.PathValue("pid"), codes, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stockAnswer{Added: res.Added, Available: res.Available, BatchID: res.BatchID, Duplicates: res.Duplicates, Success: true})
	return nil
}

// batchesAnswer is a pack's batches.
type batchesAnswer struct {
	Batches []client.Batch `json:"batches"`
	Success bool           `json:"success"`
}

// listBatches lists a pack's batches, newest first.
func (a *admin) listBatches(w http.ResponseWriter, r *http.Request) error {
	list, err := a.Service.Batches(r.Context(), a.actor(r), r.PathValue("pid"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, batchesAnswer{Batches: viewEach(list, viewBatch), Success: true})
	return nil
}

// batchID reads the {id} of a batch's path; one that is no batch id is
// a batch that does not exist.
func batchID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, topupd.Errorf(topupd.ENotFound, "batch %q", r.PathValue("id"))
	}
	return id, nil
}

// batchAnswer is one batch, and its unsold codes when exported.
type batchAnswer struct {
	Batch   client.Batch `json:"batch"`
	Codes   *[]string    `json:"codes,omitempty"`
	Success bool         `json:"success"`
}

// voidBatch withdraws a batch's unsold codes.
func (a *admin) voidBatch(w http.ResponseWriter, r *http.Request) error {
	id, err := batchID(r)
	if err != nil {
		return err
	}
	if obj, err := readAdminObject(r); err != nil {
		return err
	} else if err := obj.done(); err != nil {
		return err
	}
	b, err := a.Service.VoidBatch(r.Context(), a.actor(r), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, batchAnswer{Batch: viewBatch(&b), Success: true})
	return nil
}

// exportBatch answers a batch's unsold codes, oldest first.
func (a *admin) exportBatch(w http.ResponseWriter, r *http.Request) error {
	id, err := batchID(r)
	if err != nil {
		return err
	}
	b, codes, err := a.Service.ExportBatch(r.Context(), a.actor(r), id)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, batchAnswer{Batch: viewBatch(&b), Codes: &codes, Success: true})
	return nil
}

// withLowStockLog gives a request's context the notes the store adds the
// low-stock alerts it raises and clears to, and returns what writes them
// to the log, one line each, and counts them, once the answer is given.
// The database keeps whether each alert is raised, so each is raised and
// cleared by one request, on whichever node.
func withLowStockLog(ctx context.Context, log *slog.Logger, m *metrics.Metrics) (context.Context, func()) {
	n := &topupd.LowStockNotes{}
	ctx = topupd.WithLowStockNotes(ctx, n)
	return ctx, func() {
		for _, a := range n.Take() {
			level, msg := slog.LevelInfo, "low stock alert cleared"
			if a.Raised {
				level, msg = slog.LevelWarn, "low stock alert raised"
			}
			log.LogAttrs(ctx, level, msg, slog.String("pid", a.PID), slog.Int("available", a.Available), slog.Int("lowStockAt", a.LowStockAt))
			m.LowStockAlert(a.PID, a.Raised)
		}
	}
}
