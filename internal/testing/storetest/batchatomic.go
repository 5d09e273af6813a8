package storetest

import (
	"fmt"
	"testing"

	"github.com/topupd/topupd"
)

// testUploadIsOneChange: an upload of more codes than one statement
// carries is one transaction and one entry in the action log; one of
// nothing but duplicates keeps no batch.
func testUploadIsOneChange(t *testing.T, e *env) {
	e.catalog()
	codes := make([]string, 2*stockStatementForTests+17)
	for i := range codes {
		codes[i] = fmt.Sprintf("ATOM-%05d", i)
	}
	change := func() *topupd.Change {
		return &topupd.Change{Actor: topupd.Actor{Operator: "kim", RequestID: "req-upload"}, Action: "stock.add", Target: pidKey}
	}
	r, err := e.s.AddStockBatch(e.ctx, change(), pidKey, codes, topupd.StockUpload{Note: "big"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Added != len(codes) || r.Duplicates != 0 || r.BatchID == 0 {
		t.Fatalf("the upload: %+v", r)
	}
	acts, err := e.s.Actions(e.ctx, topupd.ActionsQuery{Action: "stock.add", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || fmt.Sprint(acts[0].After["added"]) != fmt.Sprint(len(codes)) {
		t.Fatalf("the action log of one upload of %d codes: %d entries, %+v", len(codes), len(acts), acts)
	}
	before, err := e.s.Batches(e.ctx, pidKey)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.s.AddStockBatch(e.ctx, change(), pidKey, codes[:5], topupd.StockUpload{Note: "again"}, t0)
	if err != nil || again.Added != 0 || again.Duplicates != 5 || again.BatchID != 0 {
		t.Fatalf("an upload of duplicates: %+v, %v", again, err)
	}
	after, err := e.s.Batches(e.ctx, pidKey)
	if err != nil || len(after) != len(before) {
		t.Errorf("batches after an upload of duplicates: %d, were %d (%v)", len(after), len(before), err)
	}
	e.auditClean()
}

// stockStatementForTests is the store's codes per INSERT, as of writing:
// the test's upload spans several statements.
const stockStatementForTests = 1000
