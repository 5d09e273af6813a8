package sqlstore

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// deferredCharge is, under the planted bug plantedChargeApart, the charge
// that PlaceOrder's transaction leaves for a transaction of its own.
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

// deferCharge keeps charge for chargeApart instead of writing it.
func deferCharge(ctx context.Context, charge topupd.LedgerEntry, orderSeq int64) {
	if d, ok := ctx.Value(apartKey{}).(*deferredCharge); ok {
		*d = deferredCharge{entry: charge, orderSeq: orderSeq, set: true}
	}
}

// chargeApart writes the deferred charge in a transaction of its own,
// after the order's has committed: the planted bug itself.
func (s *Store) chargeApart(ctx context.Context, d *deferredCharge) error {
	if !d.set {
		return nil // a replay, or no order
	}
	return s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := s.appendEntry(ctx, tx, d.entry, d.orderSeq)
		return err
	})
}
