package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/topupd/topupd"
)

// testAbortingCallers races callers that hang up mid-transaction (their
// contexts end after a few microseconds) against callers that do not,
// placing orders and settling them. A caller's cancellation must never touch
// anyone else's work: the normal callers see no error at all, and each
// aborted caller's work either committed whole or not at all.
func testAbortingCallers(t *testing.T, e *env) {
	e.catalog()
	const aborters, normal, rounds = 24, 8, 12
	quitter := e.account("quitter", topupd.USD(1_000))
	steady := e.account("steady", topupd.USD(1_000))

	var wg sync.WaitGroup
	errs := make(chan error, normal*rounds*2)
	stop := make(chan struct{})
	for i := range aborters {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(e.ctx, time.Duration(rand.N(3000))*time.Microsecond)
				_, _, _ = e.s.PlaceOrder(ctx, topupd.PlaceOrder{AccountID: quitter.ID, Request: topup(fmt.Sprintf("Q-%02d-%05d", i, n)),
					Now: t0, Deadline: deadline, LeaseOwner: "quitter", LeaseUntil: t0.Add(time.Hour)})
				cancel()
			}
		})
	}
	var normals sync.WaitGroup
	for i := range normal {
		normals.Go(func() {
			for n := range rounds {
				o, _, err := e.s.PlaceOrder(e.ctx, topupd.PlaceOrder{AccountID: steady.ID, Request: topup(fmt.Sprintf("S-%02d-%03d", i, n)),
					Now: t0, Deadline: deadline, LeaseOwner: "steady", LeaseUntil: t0.Add(time.Hour)})
				if err != nil {
					errs <- fmt.Errorf("placing: %w", err)
					continue
				}
				st := topupd.Settlement{Status: topupd.StatusCompleted, Now: t0, LeaseOwner: "steady"}
				if n%2 == 1 {
					st = topupd.Settlement{Status: topupd.StatusCancelled, Error: "INVALID PLAYER", Refund: true, Now: t0, LeaseOwner: "steady"}
				}
				if _, err := e.s.Settle(e.ctx, nil, o.Seq, st); err != nil {
					errs <- fmt.Errorf("settling %s: %w", o.ID, err)
				}
			}
		})
	}
	normals.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a caller that did not hang up failed: %v", err)
	}
	checkLedger(t, e, quitter.ID)
	checkLedger(t, e, steady.ID)
	refunds := ofKind(e.ledger(steady.ID), topupd.EntryRefund)
	if want := normal * rounds / 2; len(refunds) != want {
		t.Errorf("%d refunds of the steady account, want %d", len(refunds), want)
	}
	wantSteady := topupd.USD(1_000) - times(priceTopup, normal*rounds/2)
	if b := e.balance(steady.ID); b != wantSteady {
		t.Errorf("steady balance %v, want %v", b, wantSteady)
	}
	e.auditClean()
}
