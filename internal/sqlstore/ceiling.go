package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// CeilingOrder is one order of the storage ceiling (RawOrder): an account
// with a balance, a pack of a sim top-up line, and the order's own ids.
type CeilingOrder struct {
	AccountID, PID, Slug, Game, TrxID string
	Amount                            topupd.Money
	Now                               time.Time
	// OneTx places and settles the order in one transaction; otherwise in
	// two, as an instant order is today.
	OneTx bool
}

// RawOrder makes the storage writes of an instant top-up and nothing
// else, through the store's own write path (its pool, its group commit,
// its retries): the account's lock, its balance read, its order count
// raised, the order's row and the charge's ledger row inserted; then the
// order's lock and its completion. The rows pass the schema's indexes and
// triggers as an order's do. What an order also does (the catalog, price
// and limit reads, repeats, roll-ups, events, attempts, supplier snapshots,
// HTTP, Redis) is left out: this is the ceiling the benchmarks compare
// the order path against. It is not part of topupd.Store.
func (s *Store) RawOrder(ctx context.Context, c CeilingOrder) error {
	o := topupd.Order{
		ID: topupd.NewOrderID(c.Now), AccountID: c.AccountID, TrxID: c.TrxID, IdempotencyKey: c.TrxID, Fingerprint: c.TrxID,
		PID: c.PID, Slug: c.Slug, Game: c.Game, Kind: topupd.KindTopup, PackName: c.PID, Provider: topupd.ProviderSim,
		Quantity: 1, Amount: c.Amount, Fields: topupd.AccountFields{UserID: "5000001"}, Status: topupd.StatusProcessing,
		CreatedAt: fromMS(ms(c.Now)), DeadlineAt: fromMS(ms(c.Now.Add(time.Hour))), Supplier: topupd.SupplierSubmitting,
	}
	p := topupd.PlaceOrder{AccountID: c.AccountID, Now: c.Now, LeaseOwner: "ceiling", LeaseUntil: c.Now.Add(time.Minute)}
	place := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := s.lockAccount(ctx, tx, c.AccountID); err != nil {
			return err
		}
		bal, balSeq, err := s.balanceOf(ctx, tx, c.AccountID)
		if err != nil {
			return err
		}
		if err := insertOrderRow(ctx, tx, &o, p, time.Time{}); err != nil {
			return err
		}
		charge := topupd.LedgerEntry{AccountID: c.AccountID, Kind: topupd.EntryCharge, Amount: -o.Amount, CreatedAt: c.Now}
		_, err = s.appendEntryAfter(ctx, tx, charge, o.Seq, bal, balSeq)
		return err
	}
	settle := func(ctx context.Context, tx *sql.Tx) error {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM orders WHERE seq = $1`+s.d.LockRow, o.Seq).Scan(&status); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE orders SET status = 'completed', finished_at = $2, supplier = 'accepted', code_count = 0,
			next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, cost = $3 WHERE seq = $1`, o.Seq, ms(c.Now), int64(0))
		return err
	}
	var err error
	if c.OneTx {
		err = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			if err := place(ctx, tx); err != nil {
				return err
			}
			return settle(ctx, tx)
		})
	} else if err = s.inTx(ctx, place); err == nil {
		err = s.inTx(ctx, settle)
	}
	if err != nil {
		return fmt.Errorf("store.RawOrder %q: %w", c.TrxID, err)
	}
	return nil
}
