package storetest

import (
	"fmt"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/racer"
)

// testVoidRacingUpload: an upload adding to a batch races the batch's
// void. Either the upload comes first and the void withdraws its codes,
// or the void comes first and the upload is CONFLICT; nothing else, and
// no code of the voided batch is ever available. (A batch holds at least
// one code: an upload of nothing new starts none.)
func testVoidRacingUpload(t *testing.T, e *env) {
	e.catalog()
	for i := range 10 {
		empty := e.upload(pidCard, []string{e.uniq("FIRST")}, topupd.StockUpload{Note: fmt.Sprint("round ", i)})
		if empty.Added != 1 {
			t.Fatalf("round %d: the first upload added %d", i, empty.Added)
		}
		codes := []string{e.uniq("RACE"), e.uniq("RACE")}
		errs := racer.Run(2, func(j int) error {
			if j == 0 {
				_, err := e.s.AddStockBatch(e.ctx, nil, pidCard, codes, topupd.StockUpload{BatchID: empty.BatchID}, t0)
				return err
			}
			_, err := e.s.VoidBatch(e.ctx, nil, empty.BatchID, t0)
			return err
		})
		if errs[1] != nil {
			t.Fatalf("round %d: the void: %v", i, errs[1])
		}
		b := e.batch(pidCard, empty.BatchID)
		switch {
		case errs[0] == nil && b.Added == 3 && b.Withdrawn == 3:
		case topupd.CodeOf(errs[0]) == topupd.EConflict && b.Added == 1 && b.Withdrawn == 1:
		default:
			t.Errorf("round %d: the upload: %v; the batch: %+v", i, errs[0], b)
		}
		levels, err := e.s.StockLevels(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if levels[pidCard] != 0 {
			t.Errorf("round %d: %d codes of a voided batch available", i, levels[pidCard])
		}
	}
	checkAuditClean(t, e)
}
