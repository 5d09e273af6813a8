package sqlstore

// The mutant dailyread (internal/testing/mutants) adds this file to
// internal/sqlstore, through go test -overlay only: PlaceOrder reads the
// account's spend of the day before the order's transaction, and the
// daily limit is checked against what it read then.

import (
	"context"
	"database/sql"

	"github.com/topupd/topupd"
)

// spentKey carries the spend spentBefore read in a context.
type spentKey struct{}

// spentBefore reads the account's spend of the day in a read-only
// transaction of its own, before the order's, and returns ctx carrying it.
func (s *Store) spentBefore(ctx context.Context, p topupd.PlaceOrder) (context.Context, error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return ctx, err
	}
	defer tx.Rollback()
	spent, err := s.spentToday(ctx, tx, p.AccountID, p.Now)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, spentKey{}, spent), tx.Commit()
}

// spentRead is the spend spentBefore read: the bug itself, for the order's
// transaction checks the limit against it.
func spentRead(ctx context.Context) (topupd.Money, error) {
	spent, _ := ctx.Value(spentKey{}).(topupd.Money)
	return spent, nil
}
