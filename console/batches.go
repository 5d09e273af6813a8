package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// batchesData is a pack's stock page: its count, whether it is low, its
// low-stock level and its batches, newest first.
type batchesData struct {
	P       stockPack
	Batches []topupd.Batch
}

// stockPackPage shows a pack's stock batches, with the forms to set its
// low-stock level and to void a batch, and the export links, as the
// operator's role allows.
func (c *Console) stockPackPage(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	packs, err := c.stockPacks(r, s)
	if err != nil {
		return err
	}
	d := batchesData{}
	found := false
	for _, p := range packs {
		if p.PID == pid {
			d.P, found = p, true
		}
	}
	if !found {
		return pageError{http.StatusNotFound, "No pack " + pid + " draws from stock."}
	}
	if d.Batches, err = c.Service.Batches(r.Context(), s.actor, pid); err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "batches", "Stock of "+pid, d)
	return nil
}

// setLowStockAt sets or (empty) clears a pack's low-stock level.
func (c *Console) setLowStockAt(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	var level *int // nil clears it
	if v := strings.TrimSpace(r.FormValue("lowStockAt")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return pageError{http.StatusBadRequest, fmt.Sprintf("Low-stock level: %q is not a count of codes, such as 20.", v)}
		}
		level = &n
	}
	if _, err := c.Service.UpdatePack(r.Context(), s.actor, pid, service.PackPatch{LowStockAt: &level}); err != nil {
		return err
	}
	msg := fmt.Sprintf("Pack %s is low on stock under %d codes, as packs without a level are.", pid, LowStock)
	if level != nil {
		msg = fmt.Sprintf("Pack %s is low on stock at %d codes or fewer.", pid, *level)
	}
	return c.done(w, r, "/console/stock/"+url.PathEscape(pid), msg)
}

// voidBatch voids a batch, once confirmed: its unsold codes are withdrawn.
func (c *Console) voidBatch(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return pageError{http.StatusNotFound, "There is no such batch."}
	}
	pid := r.PostFormValue("pid")
	if !c.confirmed(w, r, s, fmt.Sprintf("Void batch %d of %s? Its unsold codes leave the stock and are never sold.", id, pid), "/console/stock/"+pid) {
		return nil
	}
	b, err := c.Service.VoidBatch(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	return c.done(w, r, "/console/stock/"+b.PID, fmt.Sprintf("Batch %d voided: %s withdrawn.", id, plural(b.Withdrawn, "code")))
}

// exportBatch downloads a batch's unsold codes as a text file, one a line
// (the owner's alone; the service records it in the action log).
func (c *Console) exportBatch(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return pageError{http.StatusNotFound, "There is no such batch."}
	}
	b, codes, err := c.Service.ExportBatch(r.Context(), s.actor, id)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="batch-%d-%s.txt"`, b.ID, b.PID))
	h.Set("Cache-Control", "no-store")
	for _, code := range codes {
		fmt.Fprintln(w, code)
	}
	return nil
}
