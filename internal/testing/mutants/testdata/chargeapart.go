package sqlstore

// The mutant chargeapart (internal/testing/mutants) adds this file to
// internal/sqlstore, through go test -overlay only: PlaceOrder leaves the
// order's charge for a transaction of its own, after the order's commits.

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// deferredCharge is the charge that PlaceOrder's transaction leaves for a
// transaction of its own.
type deferredCharge struct {
	entry    topupd.LedgerEntry
	orderSeq int64
	set      bool
}

// apartKey carries a *deferredCharge in a context.
type apartKey struct{}

// withChargeApart returns ctx with room for the charge placeOrder defers.
func withChargeApart(ctx context.Context) (context.Context, *deferredCharge) {
	d := new(deferredCharge)
	return context.WithValue(ctx, apartKey{}, d), d
}

// deferCharge keeps charge for chargeApart where appendEntryAfter would
// have appended it after the balance placeOrder read (bal, balSeq).
func deferCharge(ctx context.Context, charge topupd.LedgerEntry, orderSeq int64, bal topupd.Money, balSeq int64) (topupd.LedgerEntry, error) {
	if d, ok := ctx.Value(apartKey{}).(*deferredCharge); ok {
		*d = deferredCharge{entry: charge, orderSeq: orderSeq, set: true}
	}
	return charge, nil
}

// chargeApart writes the deferred charge in a transaction of its own,
// after the order's has committed: the bug itself.
func (s *Store) chargeApart(ctx context.Context, d *deferredCharge) error {
	if !d.set {
		return nil // a replay, or no order
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := s.appendEntry(ctx, tx, d.entry, d.orderSeq)
		return err
	})
}
