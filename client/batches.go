package client

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// Batch is one upload of codes to a pack's stock.
type Batch struct {
	ID        int64     `json:"id"`
	PID       string    `json:"pid"`
	CreatedAt time.Time `json:"createdAt"`
	// CostUSD is what one code cost; nil: the pack's cost at each sale.
	CostUSD  *Money `json:"costUsd,omitempty"`
	Note     string `json:"note"`
	Operator string `json:"operator"`
	// Added counts the codes added, Sold those given to orders, Unsold the
	// rest (in stock, or withdrawn once voided), Withdrawn those the void
	// withdrew.
	Added     int  `json:"added"`
	Sold      int  `json:"sold"`
	Unsold    int  `json:"unsold"`
	Withdrawn int  `json:"withdrawn"`
	Voided    bool `json:"voided"`
	// VoidedAt is when it was voided; nil while it is not.
	VoidedAt *time.Time `json:"voidedAt,omitempty"`
}

// StockUpload is what an upload of codes says besides the codes.
type StockUpload struct {
	// BatchID, when set, adds the codes to this batch of the pack instead
	// of starting one (Cost and Note must then be empty).
	BatchID int64
	// CostUSD is what one code cost; nil: the pack's cost at each sale.
	CostUSD *Money
	Note    string
}

// AddStockBatch adds codes to a pack's stock as a batch (a new one, or
// the one u names); the result names the batch.
func (a *Admin) AddStockBatch(ctx context.Context, pid string, codes []string, u StockUpload) (StockResult, error) {
	body := map[string]any{"codes": codes}
	if u.BatchID != 0 {
		body["batchId"] = u.BatchID
	}
	if u.CostUSD != nil {
		body["costUsd"] = *u.CostUSD
	}
	if u.Note != "" {
		body["note"] = u.Note
	}
	var out StockResult
	err := a.Do(ctx, http.MethodPost, "/admin/products/"+esc(pid)+"/stock", body, &out)
	return out, err
}

// Batches lists a pack's batches, newest first.
func (a *Admin) Batches(ctx context.Context, pid string) ([]Batch, error) {
	var out struct {
		Batches []Batch `json:"batches"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/products/"+esc(pid)+"/batches", nil, &out)
	return out.Batches, err
}

// VoidBatch withdraws a batch's unsold codes: they are never sold.
func (a *Admin) VoidBatch(ctx context.Context, id int64) (Batch, error) {
	var out struct {
		Batch Batch `json:"batch"`
	}
	err := a.Do(ctx, http.MethodPost, "/admin/batches/"+strconv.FormatInt(id, 10)+"/void", nil, &out)
	return out.Batch, err
}

// ExportBatch reads a batch and its unsold codes in plaintext (the
// owner's alone; recorded in the action log).
func (a *Admin) ExportBatch(ctx context.Context, id int64) (Batch, []string, error) {
	var out struct {
		Batch Batch    `json:"batch"`
		Codes []string `json:"codes"`
	}
	err := a.Do(ctx, http.MethodGet, "/admin/batches/"+strconv.FormatInt(id, 10)+"/codes", nil, &out)
	return out.Batch, out.Codes, err
}
