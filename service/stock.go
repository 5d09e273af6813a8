package service

import (
	"context"
	"strconv"

	"github.com/topupd/topupd"
)

// MaxStockCodes bounds the codes one call of the admin API adds.
const MaxStockCodes = 10_000

// MaxUploadCodes bounds the codes of one file the console uploads.
const MaxUploadCodes = 1_000_000

// AddStock adds codes (1 to MaxStockCodes, each 1 to 1,000 characters)
// to a pack's stock, in a new batch with the upload's cost and note, or in
// the batch u.BatchID names; a code held anywhere already counts as a
// duplicate and is not added. The codes are added in one transaction, all
// or none, as one stock.add in the action log; a new batch of nothing but
// duplicates is not kept (the result's BatchID is 0).
func (s *Service) AddStock(ctx context.Context, a Actor, pid string, codes []string, u topupd.StockUpload) (topupd.StockResult, error) {
	return s.addStock(ctx, a, pid, codes, u, MaxStockCodes)
}

// UploadStock is AddStock for a whole file of up to MaxUploadCodes codes,
// as the console uploads it: still one transaction and one entry.
func (s *Service) UploadStock(ctx context.Context, a Actor, pid string, codes []string, u topupd.StockUpload) (topupd.StockResult, error) {
	return s.addStock(ctx, a, pid, codes, u, MaxUploadCodes)
}

func (s *Service) addStock(ctx context.Context, a Actor, pid string, codes []string, u topupd.StockUpload, most int) (topupd.StockResult, error) {
	if err := Allowed(a, OpAddStock); err != nil {
		return topupd.StockResult{}, err
	}
	if err := CheckCodes(codes, 1, most); err != nil {
		return topupd.StockResult{}, err
	}
	if err := u.Validate(); err != nil {
		return topupd.StockResult{}, err
	}
	res, err := s.d.Store.AddStockBatch(ctx, change(a, OpAddStock, pid), pid, codes, u, s.d.Now())
	if err != nil {
		return res, err
	}
	s.changed(ctx)
	return res, nil
}

// Batches lists a pack's batches, newest first; an unknown pack is
// NOT_FOUND.
func (s *Service) Batches(ctx context.Context, a Actor, pid string) ([]topupd.Batch, error) {
	if err := readCatalog(a); err != nil {
		return nil, err
	}
	return s.d.Store.Batches(ctx, pid)
}

// VoidBatch withdraws a batch's unsold codes: they leave the stock and
// are never sold.
func (s *Service) VoidBatch(ctx context.Context, a Actor, id int64) (topupd.Batch, error) {
	if err := Allowed(a, OpVoidBatch); err != nil {
		return topupd.Batch{}, err
	}
	b, err := s.d.Store.VoidBatch(ctx, change(a, OpVoidBatch, strconv.FormatInt(id, 10)), id, s.d.Now())
	if err != nil {
		return b, err
	}
	s.changed(ctx)
	return b, nil
}

// ExportBatch reads a batch and its unsold codes in plaintext, oldest
// first; the read is in the action log (without the codes) before any
// code is answered.
func (s *Service) ExportBatch(ctx context.Context, a Actor, id int64) (topupd.Batch, []string, error) {
	if err := Allowed(a, OpExportBatch); err != nil {
		return topupd.Batch{}, nil, err
	}
	return s.d.Store.BatchCodes(ctx, change(a, OpExportBatch, strconv.FormatInt(id, 10)), id)
}
