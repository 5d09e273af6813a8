package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/topupd/topupd"
)

// Balance returns the newest entry's running balance.
func (s *Store) Balance(ctx context.Context, accountID string) (topupd.Money, error) {
	var gen uint64
	if s.balances != nil {
		b, g, ok := s.balances.get(accountID)
		if ok {
			return b, nil
		}
		gen = g
	}
	b, _, err := s.balanceOf(ctx, s.read, accountID)
	if err != nil {
		return 0, fmt.Errorf("store.Balance %s: %w", accountID, err)
	}
	if s.balances != nil {
		s.balances.fill(accountID, gen, b)
	}
	return b, nil
}

// balanceOf returns the account's balance and the seq of its newest entry.
func (s *Store) balanceOf(ctx context.Context, q querier, accountID string) (topupd.Money, int64, error) {
	var bal topupd.Money
	var seq int64
	err := q.QueryRowContext(ctx, s.q.balance, accountID).Scan(&bal, &seq)
	if isNoRows(err) {
		return 0, 0, nil
	}
	return bal, seq, err
}

// CreditedTotal sums the account's credit entries.
func (s *Store) CreditedTotal(ctx context.Context, accountID string) (topupd.Money, error) {
	var total topupd.Money
	err := s.read.QueryRowContext(ctx, s.q.creditedTotal, accountID).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("store.CreditedTotal %s: %w", accountID, err)
	}
	return total, nil
}

// appendEntry adds one entry to the account's chain inside tx, which must
// hold the account's lock (lockAccount). A balance that would fall below
// zero is EInsufficientBalance (the CHECK on balance_after would refuse it
// anyway).
func (s *Store) appendEntry(ctx context.Context, tx *sql.Tx, e topupd.LedgerEntry, orderSeq int64) (topupd.LedgerEntry, error) {
	bal, seq, err := s.balanceOf(ctx, tx, e.AccountID)
	if err != nil {
		return e, err
	}
	return s.appendEntryAfter(ctx, tx, e, orderSeq, bal, seq)
}

// appendEntryAfter is appendEntry for a caller that has read the account's
// balance and newest entry's seq in the same transaction, under its lock.
// The ledger's chain trigger refuses an entry that does not follow them.
func (s *Store) appendEntryAfter(ctx context.Context, tx *sql.Tx, e topupd.LedgerEntry, orderSeq int64, bal topupd.Money, seq int64) (topupd.LedgerEntry, error) {
	e.CreatedAt = fromMS(ms(e.CreatedAt)) // what is stored, as Ledger reads it back
	e.BalanceAfter = bal + e.Amount
	if e.BalanceAfter < 0 {
		return e, topupd.Fail(topupd.EInsufficientBalance)
	}
	var ref, order any
	if e.Kind == topupd.EntryCredit || e.Kind == topupd.EntryDeposit {
		ref = e.Reference
	} else {
		order = orderSeq
	}
	noteBalance(ctx, e.AccountID)
	err := tx.QueryRowContext(ctx, `INSERT INTO ledger (account_id, seq, kind, amount, balance_after, order_seq, reference, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		e.AccountID, seq+1, string(e.Kind), int64(e.Amount), int64(e.BalanceAfter), order, ref, ms(e.CreatedAt)).Scan(&e.ID)
	return e, err
}

// Credit adds a credit or correction entry, once per reference. A
// sandbox's id (topupd.SandboxID) credits the sandbox, opening it first if
// it was not.
func (s *Store) Credit(ctx context.Context, ch *topupd.Change, accountID string, amount topupd.Money, reference string, now time.Time) (topupd.LedgerEntry, bool, error) {
	ctx = withChange(ctx, ch)
	var e topupd.LedgerEntry
	repeated := false
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		e, repeated = topupd.LedgerEntry{}, false
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
		prev, err := scanEntry(tx.QueryRowContext(ctx, `SELECT `+entryColumns+` FROM ledger l WHERE account_id = $1 AND kind = 'credit' AND reference = $2`, accountID, reference))
		if err == nil {
			e, repeated = prev, true
			noteChange(ctx, accountID, map[string]any{}, map[string]any{}) // a repeat changes nothing
			return nil
		}
		if !isNoRows(err) {
			return err
		}
		e, err = s.appendEntry(ctx, tx, topupd.LedgerEntry{AccountID: accountID, Kind: topupd.EntryCredit, Amount: amount, Reference: reference, CreatedAt: now}, 0)
		if err != nil && s.d.IsUniqueViolation(err) {
			// Someone else's entry got there first: run again, to answer
			// with their entry for a repeated reference, or to append after it.
			return again(err)
		}
		if err != nil {
			return err
		}
		noteChange(ctx, accountID, map[string]any{"balanceUsd": e.BalanceAfter - amount},
			map[string]any{"balanceUsd": e.BalanceAfter, "amountUsd": amount, "reference": reference})
		data := &topupd.BalanceCreditedData{Amount: amount, Balance: e.BalanceAfter, Reference: reference, Sandbox: sandbox}
		if c := changeOf(ctx); c != nil {
			data.By = c.Operator
		}
		return emit(ctx, tx, event(data, accountID, now))
	})
	if err != nil {
		return e, false, fmt.Errorf("store.Credit %s %q: %w", accountID, reference, err)
	}
	return e, repeated, nil
}

func scanEntry(row scanner) (topupd.LedgerEntry, error) {
	return scanEntryAnd(row)
}

// scanEntryAnd scans the entryColumns of an entry, then into extra the
// columns that follow them.
func scanEntryAnd(row scanner, extra ...any) (topupd.LedgerEntry, error) {
	var e topupd.LedgerEntry
	var kind string
	var created int64
	err := row.Scan(append([]any{&e.ID, &e.AccountID, &kind, &e.Amount, &e.BalanceAfter, &e.OrderID, &e.Reference, &created}, extra...)...)
	e.Kind = topupd.EntryKind(kind)
	e.CreatedAt = fromMS(created)
	return e, err
}

// Ledger returns the account's entries, newest first.
func (s *Store) Ledger(ctx context.Context, accountID string, limit int) ([]topupd.LedgerEntry, error) {
	out, err := queryAll(ctx, s.read, scanEntry, `SELECT `+entryColumns+` FROM ledger l WHERE account_id = $1 ORDER BY seq DESC LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("store.Ledger %s: %w", accountID, err)
	}
	return out, nil
}

// LedgerBefore returns the account's entries older than its entry
// beforeID, newest first: that entry's number in the account (seq, found by
// its primary key) starts one descending range of the (account_id, seq)
// unique index, so a deep page costs what the first does. An id not of
// the account's entries selects none.
func (s *Store) LedgerBefore(ctx context.Context, accountID string, beforeID int64, limit int) ([]topupd.LedgerEntry, error) {
	out, err := queryAll(ctx, s.read, scanEntry, ledgerBeforeSQL, accountID, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("store.LedgerBefore %s: %w", accountID, err)
	}
	return out, nil
}

// ledgerBeforeSQL reads a page of an account's older entries.
const ledgerBeforeSQL = `SELECT ` + entryColumns + ` FROM ledger l WHERE account_id = $1
	AND seq < (SELECT c.seq FROM ledger c WHERE c.id = $2 AND c.account_id = $1) ORDER BY seq DESC LIMIT $3`

// OrderEntries returns an order's charge and refund, oldest first, each by
// its own unique index.
func (s *Store) OrderEntries(ctx context.Context, orderSeq int64) ([]topupd.LedgerEntry, error) {
	out, err := queryAll(ctx, s.read, scanEntry, s.q.orderEntries, orderSeq)
	if err != nil {
		return nil, fmt.Errorf("store.OrderEntries %d: %w", orderSeq, err)
	}
	slices.SortFunc(out, func(a, b topupd.LedgerEntry) int { return cmp.Compare(a.ID, b.ID) }) // the union's order is not promised
	return out, nil
}

// Statement reads an account's entries made in [from, to), oldest first,
// with the balances at from and at to: each the sum of the entries made
// before it, so that the closing balance is the ledger's balance at to
// whatever order the entries' times came in. Both reads run in one read
// transaction, so a write in between cannot tear the statement.
func (s *Store) Statement(ctx context.Context, accountID string, from, to time.Time) (topupd.Statement, error) {
	st := topupd.Statement{AccountID: accountID, From: from, To: to, Entries: []topupd.StatementEntry{}}
	fail := func(err error) (topupd.Statement, error) {
		return st, fmt.Errorf("store.Statement %s: %w", accountID, err)
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) FROM ledger WHERE account_id = $1 AND created_at < $2`,
		accountID, ms(from)).Scan(&st.Opening); err != nil {
		return fail(err)
	}
	st.Entries, err = queryAll(ctx, tx, func(r scanner) (topupd.StatementEntry, error) {
		var e topupd.StatementEntry
		var err error
		e.LedgerEntry, err = scanEntryAnd(r, &e.TrxID, &e.PID)
		return e, err
	}, `SELECT `+entryColumns+`, COALESCE(o.trxid, ''), COALESCE(o.pid, '') FROM ledger l
		LEFT JOIN orders o ON o.seq = l.order_seq
		WHERE l.account_id = $1 AND l.created_at >= $2 AND l.created_at < $3 ORDER BY l.created_at, l.seq LIMIT $4`,
		accountID, ms(from), ms(to), topupd.MaxStatementEntries+1)
	if err != nil {
		return fail(err)
	}
	st.Closing = st.Opening
	for _, e := range st.Entries {
		st.Closing += e.Amount
	}
	if len(st.Entries) > topupd.MaxStatementEntries {
		return st, topupd.Errorf(topupd.EInvalidRequest, "more than %d entries: ask for a shorter period", topupd.MaxStatementEntries)
	}
	return st, nil
}
