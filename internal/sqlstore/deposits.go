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
const depositColumns = `seq, id, account_id, sandbox, requested, amount, memo, bank, status, created_at, expires_at,
	COALESCE(bank_ref, ''), received, first_by, first_at, credited, confirmed_by, confirmed_at, COALESCE(entry_id, 0), reason, rejected_by`

func scanDeposit(row scanner) (topupd.Deposit, error) {
	var d topupd.Deposit
	var bank, firstBy string
	var created, expires int64
	var received, firstAt, credited, confirmedAt sql.NullInt64
	err := row.Scan(&d.Seq, &d.ID, &d.AccountID, &d.Sandbox, &d.Requested, &d.Amount, &d.Memo, &bank, &d.Status, &created, &expires,
		&d.BankRef, &received, &firstBy, &firstAt, &credited, &d.ConfirmedBy, &confirmedAt, &d.EntryID, &d.Reason, &d.RejectedBy)
	if err == nil {
		err = json.Unmarshal([]byte(bank), &d.Bank)
	}
	d.CreatedAt, d.ExpiresAt, d.Received, d.Credited = fromMS(created), fromMS(expires), nullMoney(received), nullMoney(credited)
	if firstBy != "" {
		// The first of two confirmations named the bank reference and the
		// amount received, which the ticket keeps.
		d.First = &topupd.DepositConfirmation{Operator: firstBy, At: fromMS(firstAt.Int64), BankRef: d.BankRef, Received: d.Received}
	}
	if confirmedAt.Valid {
		t := fromMS(confirmedAt.Int64)
		d.ConfirmedAt = &t
	}
	return d, err
}

// lockDeposit reads a ticket, holding its row lock.
func (s *Store) lockDeposit(ctx context.Context, tx *sql.Tx, id string) (topupd.Deposit, error) {
	d, err := scanDeposit(tx.QueryRowContext(ctx, `SELECT `+depositColumns+` FROM deposits WHERE id = $1`+s.d.LockRow, id))
	if isNoRows(err) {
		return d, topupd.Errorf(topupd.ENotFound, "deposit %s", id)
	}
	return d, err
}

// ConfirmDeposit records a confirmation of a ticket (topupd.ConfirmDeposit
// decides what it makes of it): the first of two, or the one that
// credits it, in one transaction with its action log entry. The bank
// reference is checked here and held by deposits_bank_ref; the credit by
// ledger_one_deposit.
func (s *Store) ConfirmDeposit(ctx context.Context, ch *topupd.Change, id string, c topupd.DepositConfirmation) (topupd.Deposit, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Deposit
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		d, err := s.lockDeposit(ctx, tx, id)
		if err != nil {
			return err
		}
		if d.Status == topupd.DepositPending && !d.ExpiresAt.After(c.At) {
			return topupd.Errorf(topupd.EDepositFinal, "the ticket expired at %s: credit what arrived through the account's credits",
				d.ExpiresAt.UTC().Format(time.RFC3339))
		}
		st, err := scanSettings(tx.QueryRowContext(ctx, `SELECT `+settingsColumns+` FROM settings WHERE id = 1`))
		if err != nil {
			return err
		}
		step, err := topupd.ConfirmDeposit(d.Status, d.Amount, d.First, c, st.DepositSecondApprovalAbove)
		if err != nil {
			return err
		}
		var other int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM deposits WHERE bank_ref = $1 AND seq <> $2`, c.BankRef, d.Seq).Scan(&other); err != nil {
			return err
		}
		if other > 0 {
			return topupd.Errorf(topupd.EBankRefUsed, "bank reference %q confirmed another ticket", c.BankRef)
		}
		before := map[string]any{"status": d.Status}
		if step.Status == topupd.DepositAwaitingSecond {
			_, err = tx.ExecContext(ctx, `UPDATE deposits SET status = 'awaiting_second', bank_ref = $2, received = $3, first_by = $4, first_at = $5
				WHERE seq = $1`, d.Seq, c.BankRef, moneyOrNull(c.Received), c.Operator, ms(c.At))
			if err != nil {
				return bankRefUsed(s, err, c.BankRef)
			}
			d.Status, d.BankRef, d.Received = step.Status, c.BankRef, c.Received
			d.First = &topupd.DepositConfirmation{Operator: c.Operator, At: fromMS(ms(c.At)), BankRef: c.BankRef, Received: c.Received}
			noteChange(ctx, d.AccountID, before, map[string]any{"status": d.Status, "bankRef": c.BankRef, "receivedUsd": c.Received})
			out = d
			return nil
		}
		if _, err := s.lockAccount(ctx, tx, d.AccountID); err != nil {
			return err
		}
		e, err := s.appendEntry(ctx, tx, topupd.LedgerEntry{AccountID: d.AccountID, Kind: topupd.EntryDeposit, Amount: step.Credit,
			Reference: d.ID, CreatedAt: c.At}, 0)
		if err != nil {
			return err
		}
		received := c.Received
		if d.First != nil {
			received = d.First.Received
		}
		_, err = tx.ExecContext(ctx, `UPDATE deposits SET status = 'confirmed', bank_ref = $2, received = $3, credited = $4, confirmed_by = $5,
			confirmed_at = $6, entry_id = $7 WHERE seq = $1`, d.Seq, c.BankRef, moneyOrNull(received), int64(step.Credit), c.Operator, ms(c.At), e.ID)
		if err != nil {
			return bankRefUsed(s, err, c.BankRef)
		}
		at := fromMS(ms(c.At))
		d.Status, d.BankRef, d.Received, d.Credited, d.ConfirmedBy, d.ConfirmedAt, d.EntryID = step.Status, c.BankRef, received, &step.Credit,
			c.Operator, &at, e.ID
		_, sandbox := topupd.LiveID(d.AccountID)
		if err := emit(ctx, tx, event(&topupd.DepositData{Type: topupd.EventDepositConfirmed, DepositView: d.View()}, d.AccountID, c.At),
			event(&topupd.BalanceCreditedData{Amount: step.Credit, Balance: e.BalanceAfter, Reference: d.ID, By: c.Operator, Sandbox: sandbox},
				d.AccountID, c.At)); err != nil {
			return err
		}
		noteChange(ctx, d.AccountID, before, map[string]any{"status": d.Status, "bankRef": c.BankRef, "receivedUsd": received,
			"creditedUsd": step.Credit, "entryId": e.ID})
		out = d
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.ConfirmDeposit %s: %w", id, err)
	}
	return out, nil
}

// bankRefUsed is a confirmation's write refused: BANK_REF_USED when
// deposits_bank_ref refused it (another ticket took the reference
// meanwhile).
func bankRefUsed(s *Store, err error, ref string) error {
	if s.d.IsUniqueViolation(err) {
		return topupd.Errorf(topupd.EBankRefUsed, "bank reference %q confirmed another ticket", ref)
	}
	return err
}

// RejectDeposit rejects a ticket (topupd.RejectDeposit decides whether it
// may be), with its deposit.rejected event.
func (s *Store) RejectDeposit(ctx context.Context, ch *topupd.Change, id, reason, operator string, at time.Time) (topupd.Deposit, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Deposit
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		d, err := s.lockDeposit(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := topupd.RejectDeposit(d.Status, reason); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE deposits SET status = 'rejected', reason = $2, rejected_by = $3 WHERE seq = $1`,
			d.Seq, reason, operator); err != nil {
			return err
		}
		before := map[string]any{"status": d.Status}
		d.Status, d.Reason, d.RejectedBy = topupd.DepositRejected, reason, operator
		if err := emit(ctx, tx, event(&topupd.DepositData{Type: topupd.EventDepositRejected, DepositView: d.View()}, d.AccountID, at)); err != nil {
			return err
		}
		noteChange(ctx, d.AccountID, before, map[string]any{"status": d.Status, "reason": reason})
		out = d
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.RejectDeposit %s: %w", id, err)
	}
	return out, nil
}

// OpenDeposit opens a deposit ticket for an account, holding its lock, so
// that its pending tickets are counted right; the exact amount is chosen
// among those no pending ticket of its books (live, or sandboxes') holds,
// and deposits_pending_amount refuses a race for one (the transaction is
// then run again).
func (s *Store) OpenDeposit(ctx context.Context, ch *topupd.Change, accountID string, requested topupd.Money, now time.Time) (topupd.Deposit, error) {
	ctx = withChange(ctx, ch)
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
		} else if err != nil {
			return err
		}
		noteChange(ctx, accountID, map[string]any{}, map[string]any{"depositId": d.ID, "requestedUsd": requested, "amountUsd": d.Amount,
			"memo": d.Memo})
		return nil
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

// Deposits returns a page of tickets, newest first (oldest first with
// q.Oldest), and, for one account, how many it has.
func (s *Store) Deposits(ctx context.Context, q topupd.DepositsQuery) ([]topupd.Deposit, int, error) {
	before := int64(1<<63 - 1)
	if q.Before > 0 {
		before = q.Before
	}
	order := "DESC"
	if q.Oldest {
		order = "ASC"
	}
	list, err := readAll(ctx, s, "store.Deposits", scanDeposit, `SELECT `+depositColumns+` FROM deposits
		WHERE seq < $1 AND ($2 = '' OR status = $2) AND (CASE WHEN $3 = '' THEN sandbox = $4 ELSE account_id = $3 END)
		ORDER BY seq `+order+` LIMIT $5 OFFSET $6`, before, q.Status, q.AccountID, boolInt(q.Sandbox), q.Limit, q.Offset)
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

// DepositByMemo returns the live ticket of a memo.
func (s *Store) DepositByMemo(ctx context.Context, memo string) (topupd.Deposit, error) {
	d, err := scanDeposit(s.read.QueryRowContext(ctx, `SELECT `+depositColumns+` FROM deposits WHERE memo = $1 AND sandbox = 0`, memo))
	if isNoRows(err) {
		return d, topupd.Errorf(topupd.ENotFound, "deposit memo %s", memo)
	} else if err != nil {
		return d, fmt.Errorf("store.DepositByMemo: %w", err)
	}
	return d, nil
}

// BankRefUsed tells whether a bank reference confirmed a ticket.
func (s *Store) BankRefUsed(ctx context.Context, bankRef string) (bool, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM deposits WHERE bank_ref = $1`, bankRef).Scan(&n); err != nil {
		return false, fmt.Errorf("store.BankRefUsed: %w", err)
	}
	return n > 0, nil
}

// RecordDepositImport writes an import's action log entry.
func (s *Store) RecordDepositImport(ctx context.Context, ch *topupd.Change, matched, unmatched int) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		noteChange(ctx, "", map[string]any{}, map[string]any{"matched": matched, "unmatched": unmatched})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RecordDepositImport: %w", err)
	}
	return nil
}
