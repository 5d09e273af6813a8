package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/topupd/topupd"
)

// openSandbox opens the live account's sandbox, once: its account row and
// the credit of topupd.SandboxOpeningBalance, told as the sandbox's
// balance.credited event. The caller's transaction has found the live
// account; the schema refuses a sandbox not named after a live account
// (00023_sandbox.sql).
func (s *Store) openSandbox(ctx context.Context, tx *sql.Tx, liveID string, now time.Time) error {
	id := topupd.SandboxID(liveID)
	res, err := tx.ExecContext(ctx, `INSERT INTO accounts (id, name, created_at, sandbox_of)
		SELECT $1, name, $2, id FROM accounts WHERE id = $3 AND sandbox_of IS NULL
		ON CONFLICT (id) DO NOTHING`, id, ms(now), liveID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err // open already (or no such live account: the caller found it)
	}
	if _, err := s.lockAccount(ctx, tx, id); err != nil {
		return err
	}
	e, err := s.appendEntry(ctx, tx, topupd.LedgerEntry{AccountID: id, Kind: topupd.EntryCredit, Amount: topupd.SandboxOpeningBalance,
		Reference: topupd.SandboxOpeningReference, CreatedAt: now}, 0)
	if err != nil {
		return err
	}
	return emit(ctx, tx, event(&topupd.BalanceCreditedData{Amount: e.Amount, Balance: e.BalanceAfter, Reference: e.Reference, Sandbox: true}, id, now))
}
