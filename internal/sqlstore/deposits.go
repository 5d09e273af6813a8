package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// Deposit tickets (back-office.md, section 3; migration 00039).

// depositColumns are the columns scanDeposit reads.
const depositColumns = `seq, id, account_id, sandbox, requested, amount, memo, bank, status, created_at, expires_at`

func scanDeposit(row scanner) (topupd.Deposit, error) {
	var d topupd.Deposit
	var bank string
	var created, expires int64
	err := row.Scan(&d.Seq, &d.ID, &d.AccountID, &d.Sandbox, &d.Requested, &d.Amount, &d.Memo, &bank, &d.Status, &created, &expires)
	if err == nil {
		err = json.Unmarshal([]byte(bank), &d.Bank)
	}
	d.CreatedAt, d.ExpiresAt = fromMS(created), fromMS(expires)
	return d, err
}

// OpenDeposit opens a deposit ticket for an account, holding its lock, so
// that its pending tickets are counted right; the exact amount is chosen
// among those no pending ticket of its books (live, or sandboxes') holds,
// and deposits_pending_amount refuses a race for one (the transaction is
// then run again).
func (s *Store) OpenDeposit(ctx context.Context, accountID string, requested topupd.Money, now time.Time) (topupd.Deposit, error) {
	var d topupd.Deposit
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		st, err := scanSettings(tx.QueryRowContext(ctx, `SELECT `+settingsColumns+` FROM settings WHERE id = 1`))
		if err != nil {
			return err
		}
		if st.DepositBank == nil {
			return topupd.Errorf(topupd.EDepositsDisabled, "the operator has set no deposit bank")
		}
		live, sandbox := topupd.LiveID(accountID)
		if sandbox {
			if err := s.openSandbox(ctx, tx, live, now); err != nil {
				return err
			}
		}
		if ok, err := s.lockAccount(ctx, tx, accountID); err != nil {
			return err
		} else if !ok {
			return topupd.Errorf(topupd.ENotFound, "account %s", accountID)
		}
		if _, err := s.expireDeposits(ctx, tx, now); err != nil {
			return err
		}
		var pending int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM deposits WHERE account_id = $1 AND status = 'pending'`, accountID).Scan(&pending); err != nil {
			return err
		}
		if pending >= topupd.MaxPendingDeposits {
			return topupd.Errorf(topupd.EDepositLimit, "%d tickets are pending: pay or wait for one first", pending)
		}
		taken := map[topupd.Money]bool{}
		err = eachRow(ctx, tx, func(r scanner) error {
			var a topupd.Money
			err := r.Scan(&a)
			taken[a] = true
			return err
		}, `SELECT amount FROM deposits WHERE status = 'pending' AND sandbox = $1 AND amount > $2 AND amount < $3`,
			boolInt(sandbox), int64(requested), int64(requested+topupd.MoneyScale))
		if err != nil {
			return err
		}
		d = topupd.Deposit{ID: topupd.NewID("dep_"), AccountID: accountID, Sandbox: sandbox, Requested: requested, Bank: *st.DepositBank,
			Status: topupd.DepositPending, CreatedAt: fromMS(ms(now)), ExpiresAt: fromMS(ms(now.Add(time.Duration(st.DepositTicketHours) * time.Hour)))}
		if d.Amount, err = topupd.DepositAmount(requested, taken); err != nil {
			return err
		}
		bank, err := json.Marshal(d.Bank)
		if err != nil {
			return err
		}
		d.Memo = topupd.NewDepositMemo()
		err = tx.QueryRowContext(ctx, `INSERT INTO deposits (id, account_id, sandbox, requested, amount, memo, bank, status, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9) RETURNING seq`, d.ID, accountID, boolInt(sandbox), int64(requested),
			int64(d.Amount), d.Memo, string(bank), ms(d.CreatedAt), ms(d.ExpiresAt)).Scan(&d.Seq)
		if err != nil && s.d.IsUniqueViolation(err) {
			// Another ticket took the amount (or, once in a billion, the
			// memo) meanwhile: choose again.
			return retryError{err: err}
		}
		return err
	})
	if err != nil {
		return d, fmt.Errorf("store.OpenDeposit %s: %w", accountID, err)
	}
	return d, nil
}

// Deposit returns one ticket; with accountID set, only that account's.
func (s *Store) Deposit(ctx context.Context, accountID, id string) (topupd.Deposit, error) {
	d, err := scanDeposit(s.read.QueryRowContext(ctx, `SELECT `+depositColumns+` FROM deposits WHERE id = $1 AND ($2 = '' OR account_id = $2)`,
		id, accountID))
	if isNoRows(err) {
		return d, topupd.Errorf(topupd.ENotFound, "deposit %s", id)
	} else if err != nil {
		return d, fmt.Errorf("store.Deposit %s: %w", id, err)
	}
	return d, nil
}

// Deposits returns a page of tickets, newest first, and, for one
// account, how many it has.
func (s *Store) Deposits(ctx context.Context, q topupd.DepositsQuery) ([]topupd.Deposit, int, error) {
	before := int64(1<<63 - 1)
	if q.Before > 0 {
		before = q.Before
	}
	list, err := readAll(ctx, s, "store.Deposits", scanDeposit, `SELECT `+depositColumns+` FROM deposits
		WHERE seq < $1 AND ($2 = '' OR status = $2) AND (CASE WHEN $3 = '' THEN sandbox = $4 ELSE account_id = $3 END)
		ORDER BY seq DESC LIMIT $5 OFFSET $6`, before, q.Status, q.AccountID, boolInt(q.Sandbox), q.Limit, q.Offset)
	if err != nil || q.AccountID == "" {
		return list, 0, err
	}
	var total int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM deposits WHERE account_id = $1`, q.AccountID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store.Deposits: %w", err)
	}
	return list, total, nil
}

// ExpireDeposits expires the pending tickets whose time has passed.
func (s *Store) ExpireDeposits(ctx context.Context, now time.Time) (int, error) {
	var due int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM deposits WHERE status = 'pending' AND expires_at <= $1 LIMIT 1) x`,
		ms(now)).Scan(&due); err != nil {
		return 0, fmt.Errorf("store.ExpireDeposits: %w", err)
	}
	if due == 0 {
		return 0, nil // no write transaction every few seconds for nothing
	}
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		n, err = s.expireDeposits(ctx, tx, now)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store.ExpireDeposits: %w", err)
	}
	return n, nil
}

// expireDeposits is ExpireDeposits in a transaction: each ticket it
// expires tells its account with a deposit.expired event.
func (s *Store) expireDeposits(ctx context.Context, tx *sql.Tx, now time.Time) (int, error) {
	due, err := queryAll(ctx, tx, scanDeposit, `SELECT `+depositColumns+` FROM deposits WHERE status = 'pending' AND expires_at <= $1
		ORDER BY seq`+s.d.LockRow, ms(now))
	if err != nil || len(due) == 0 {
		return 0, err
	}
	expired := 0
	for i := range due {
		d := &due[i]
		n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE deposits SET status = 'expired' WHERE seq = $1 AND status = 'pending'`, d.Seq))
		if err != nil {
			return 0, err
		}
		if n == 0 {
			continue // another transaction expired it first, and told it
		}
		d.Status = topupd.DepositExpired
		expired++
		if err := emit(ctx, tx, event(&topupd.DepositData{Type: topupd.EventDepositExpired, DepositView: d.View()}, d.AccountID, now)); err != nil {
			return 0, err
		}
	}
	return expired, nil
}

// OpenDeposits counts the live tickets pending and awaiting a second
// approval, by status (deposits_status finds them).
func (s *Store) OpenDeposits(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := eachRow(ctx, s.read, func(r scanner) error {
		var status string
		var n int
		if err := r.Scan(&status, &n); err != nil {
			return err
		}
		out[status] = n
		return nil
	}, `SELECT status, COUNT(*) FROM deposits WHERE status IN ('pending', 'awaiting_second') AND sandbox = 0 GROUP BY status`)
	if err != nil {
		return nil, fmt.Errorf("store.OpenDeposits: %w", err)
	}
	return out, nil
}
