package simulation

import (
	"context"
	"fmt"

	"github.com/topupd/topupd"
)

// checkDeposits holds every ticket of the deposit side's books to the
// bank: a confirmed one names a transfer the bank holds, that credited
// no other deposit, and was credited exactly what that transfer brought,
// with its ledger entry; any other has no credit; a deposit seen credited
// stays so, at the same amount. A deposit first seen confirmed adds its
// credit to its books' in the model, so that a second credit of it (or a
// credit without its confirmation) shows as a balance the model does not
// hold (check).
func (w *World) checkDeposits(ctx context.Context) error {
	d := w.deps
	if d == nil {
		return nil
	}
	for _, books := range d.books {
		list, _, err := w.store.Deposits(ctx, topupd.DepositsQuery{AccountID: books, Limit: 10_000})
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		for i := range list {
			w.checkDeposit(&list[i])
		}
	}
	return nil
}

// checkDeposit checks one ticket as the store holds it.
func (w *World) checkDeposit(dep *topupd.Deposit) {
	d := w.deps
	t := d.byID[dep.ID]
	if t == nil {
		w.fail("the store holds deposit %s of %s, which no client was answered with", dep.ID, w.shop(dep.AccountID))
		return
	}
	if dep.AccountID != t.books || dep.Amount != t.amount || dep.Memo != t.memo {
		w.fail("t%d is held for %s at %s, memo %s; its client was told %s at %s, memo %s", t.n, w.shop(dep.AccountID), dep.Amount.Dollars(),
			dep.Memo, w.shop(t.books), t.amount.Dollars(), t.memo)
	}
	if dep.Status != topupd.DepositConfirmed {
		if t.credited != nil {
			w.fail("t%d was credited %s, and is now %s", t.n, t.credited.Dollars(), dep.Status)
		}
		if dep.Credited != nil || dep.EntryID != 0 {
			w.fail("t%d is %s with a credit (%v, entry %d)", t.n, dep.Status, dep.Credited, dep.EntryID)
		}
		return
	}
	row := d.byRef[dep.BankRef]
	switch {
	case dep.Credited == nil || dep.EntryID == 0:
		w.fail("t%d is confirmed without its credit (%v, entry %d)", t.n, dep.Credited, dep.EntryID)
		return
	case row == nil:
		w.fail("t%d was credited %s with bank ref %q, which no transfer has", t.n, dep.Credited.Dollars(), dep.BankRef)
		return
	case row.creditedTo != nil && row.creditedTo != t:
		w.fail("transfer r%d credited t%d and t%d", row.n, row.creditedTo.n, t.n)
		return
	case *dep.Credited != row.amount:
		w.fail("t%d was credited %s; its transfer r%d brought %s", t.n, dep.Credited.Dollars(), row.n, row.amount.Dollars())
		return
	case t.credited != nil && *t.credited != *dep.Credited:
		w.fail("t%d was credited %s, and now says %s", t.n, t.credited.Dollars(), dep.Credited.Dollars())
		return
	case t.credited == nil:
		credit := *dep.Credited
		t.credited, row.creditedTo = &credit, t
		w.model.credited[t.books] += credit
	}
}
