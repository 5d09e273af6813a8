package storetest

import (
	"fmt"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/racer"
)

// testVoidRacingUpload: a chunk of an upload adding to a batch races the
// batch's void, for a pack with no stock yet (so no stock level row to
// lock). Either the chunk comes first and the void withdraws its codes,
// or the void comes first and the chunk is CONFLICT; nothing else, and
// no code of the voided batch is ever available.
func testVoidRacingUpload(t *testing.T, e *env) {
	e.catalog()
	held := e.stock(pidKey, 1) // a code held elsewhere: the batch starts empty
	for i := range 10 {
		empty := e.upload(pidCard, held, topupd.StockUpload{Note: fmt.Sprint("round ", i)})
		if empty.Added != 0 {
			t.Fatalf("round %d: the first upload added %d", i, empty.Added)
		}
		codes := []string{e.uniq("RACE"), e.uniq("RACE")}
		errs := racer.Run(2, func(j int) error {
			if j == 0 {
				_, err := e.s.AddStockBatch(e.ctx, pidCard, codes, topupd.StockUpload{BatchID: empty.BatchID}, t0)
				return err
			}
			_, err := e.s.VoidBatch(e.ctx, empty.BatchID, t0)
			return err
		})
		if errs[1] != nil {
			t.Fatalf("round %d: the void: %v", i, errs[1])
		}
		b := e.batch(pidCard, empty.BatchID)
		switch {
		case errs[0] == nil && b.Added == 2 && b.Withdrawn == 2:
		case topupd.CodeOf(errs[0]) == topupd.EConflict && b.Added == 0:
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
