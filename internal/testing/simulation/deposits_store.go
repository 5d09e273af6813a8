package simulation

import (
	"context"
	"time"

	"github.com/topupd/topupd"
)

// depStore is the store as the deposit side's operators reach it: through
// an admin node that may stop before a write reaches the database or
// after its commit, before the answer is seen, and whose writes may meet
// a fault at the SQL driver, as opStore's do. It draws from the deposit
// side's own source, so that the rest of the seed's history is unchanged.
type depStore struct {
	topupd.Store
	w *World
}

// depCall runs one deposit write at a point where the admin node may stop.
func depCall[T any](s depStore, name string, call func() (T, error)) (T, error) {
	return adminCall(s.w, s.w.deps.rng, s.w.deps.rng, "deposits' admin node", name, call)
}

// ConfirmDeposit is the store's, at a point the admin node may crash.
func (s depStore) ConfirmDeposit(ctx context.Context, ch *topupd.Change, id string, c topupd.DepositConfirmation) (topupd.Deposit, error) {
	return depCall(s, "ConfirmDeposit", func() (topupd.Deposit, error) { return s.Store.ConfirmDeposit(ctx, ch, id, c) })
}

// RejectDeposit is the store's, at a point the admin node may crash.
func (s depStore) RejectDeposit(ctx context.Context, ch *topupd.Change, id, reason, operator string, at time.Time) (topupd.Deposit, error) {
	return depCall(s, "RejectDeposit", func() (topupd.Deposit, error) { return s.Store.RejectDeposit(ctx, ch, id, reason, operator, at) })
}

// RecordDepositImport is the store's, at a point the admin node may crash.
func (s depStore) RecordDepositImport(ctx context.Context, ch *topupd.Change, matched, unmatched int) error {
	_, err := depCall(s, "RecordDepositImport", func() (struct{}, error) {
		return struct{}{}, s.Store.RecordDepositImport(ctx, ch, matched, unmatched)
	})
	return err
}
