package postgres_test

import (
	"fmt"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/storetest"
)

// BenchmarkStockUpload uploads a batch of n fresh codes to a pack and
// voids it, as an operator does with a stock file and its withdrawal. Both
// hold the pack's stock level, which every order of the pack takes turns
// on, for their whole transaction, so their cost per code must not grow
// with n: with a row trigger per code (before migration 00030) an upload
// of 10,000 codes cost 17 times one of 2,000 instead of 5.
func BenchmarkStockUpload(b *testing.B) {
	s := openStore(b, newDB(b), storetest.NewVault(b))
	catalog(b, s)
	round := 0
	for _, n := range []int{2_000, 10_000} {
		b.Run(fmt.Sprintf("codes=%d", n), func(b *testing.B) {
			for b.Loop() {
				round++
				codes := make([]string, n)
				for i := range codes {
					codes[i] = fmt.Sprintf("UP-%d-%06d", round, i)
				}
				r, err := s.AddStock(b.Context(), pidKey, codes, t0)
				if err != nil || r.Added != n {
					b.Fatalf("upload: %+v, %v", r, err)
				}
				if _, err := s.VoidBatch(b.Context(), nil, r.BatchID, t0); err != nil {
					b.Fatalf("void: %v", err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/code")
		})
	}
}

// BenchmarkKeyOrder places one-code key orders from stock, one at a time:
// the draw that every key order makes, under the triggers on codes.
func BenchmarkKeyOrder(b *testing.B) {
	s := openStore(b, newDB(b), storetest.NewVault(b))
	catalog(b, s)
	acct := account(b, s, "acc_keys", price*topupd.Money(200_000))
	for batch := range 10 { // uploads of 1,000: cheap on either trigger
		codes := make([]string, 1_000)
		for i := range codes {
			codes[i] = fmt.Sprintf("KEY-%d-%04d", batch, i)
		}
		if _, err := s.AddStock(b.Context(), pidKey, codes, t0); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		i++
		o, _, err := place(s, b.Context(), acct, topupd.OrderRequest{PID: pidKey, TrxID: fmt.Sprintf("key-%d", i), Quantity: 1})
		if err != nil || len(o.Codes) != 1 {
			b.Fatalf("order %d: %d codes, %v", i, len(o.Codes), err)
		}
	}
}
