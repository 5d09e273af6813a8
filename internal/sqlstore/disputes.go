package sqlstore

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/topupd/topupd"
)

// Disputes (back-office.md, section 5; migration 00045). A dispute keeps
// its codes as their fingerprints (the vault's, as the codes table keys
// them), never the codes: they are read back from the order's own.

// disputeColumns are the columns scanDispute reads; o.id and the order's
// seq come from the join.
const disputeColumns = `d.seq, d.id, d.account_id, o.id, d.order_seq, d.sandbox, d.status, d.reason, d.codes, d.detail, d.created_at,
	d.due_at, COALESCE(d.claim_ref, ''), COALESCE(d.claim_state, '')`

// disputeFrom is the join scanDispute reads from.
const disputeFrom = ` FROM disputes d JOIN orders o ON o.seq = d.order_seq`

// disputeRow is a dispute as read, its codes still fingerprints.
type disputeRow struct {
	topupd.Dispute
	prints []string
}

func scanDispute(row scanner) (disputeRow, error) {
	var d disputeRow
	var codes, claimRef, claimState string
	var created, due int64
	err := row.Scan(&d.Seq, &d.ID, &d.AccountID, &d.OrderID, &d.OrderSeq, &d.Sandbox, &d.Status, &d.Reason, &codes, &d.Detail, &created,
		&due, &claimRef, &claimState)
	if err != nil {
		return d, err
	}
	d.CreatedAt, d.DueAt = fromMS(created), fromMS(due)
	if claimRef != "" {
		d.SupplierClaim = &topupd.SupplierClaim{Reference: claimRef, State: claimState}
	}
	return d, json.Unmarshal([]byte(codes), &d.prints)
}

// withCodes reads the dispute's codes back from its order's: those whose
// fingerprints it keeps, in the order's order.
func (s *Store) withCodes(ctx context.Context, q querier, d disputeRow) (topupd.Dispute, error) {
	out := d.Dispute
	out.Codes = []string{}
	if len(d.prints) == 0 {
		return out, nil
	}
	o, err := s.orderBy(ctx, q, s.q.orderBySeq, d.OrderSeq)
	if err != nil {
		return out, fmt.Errorf("the order of dispute %s: %w", d.ID, err)
	}
	for _, c := range o.Codes {
		if slices.Contains(d.prints, s.codePrint(c)) {
			out.Codes = append(out.Codes, c)
		}
	}
	return out, nil
}

// codePrint is a code's fingerprint as a dispute keeps it.
func (s *Store) codePrint(code string) string {
	return hex.EncodeToString(s.vault.CodeFingerprint(code))
}

// OpenDispute opens a dispute of one of the books' orders under the
// order's row lock, with its dispute.opened event: the order must be
// completed within the settings' window (topupd.CheckDispute), and have
// no open dispute (disputes_one_open, DISPUTE_OPEN).
func (s *Store) OpenDispute(ctx context.Context, ch *topupd.Change, accountID, orderID string, r topupd.DisputeRequest, now time.Time) (topupd.Dispute, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Dispute
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		st, err := scanSettings(tx.QueryRowContext(ctx, `SELECT `+settingsColumns+` FROM settings WHERE id = 1`))
		if err != nil {
			return err
		}
		var seq int64
		err = tx.QueryRowContext(ctx, `SELECT seq FROM orders WHERE id = $1 AND account_id = $2`, orderID, accountID).Scan(&seq)
		if isNoRows(err) {
			return topupd.Fail(topupd.EOrderNotFound)
		} else if err != nil {
			return err
		}
		o, err := s.orderBy(ctx, tx, s.q.orderBySeq+s.d.LockRow, seq)
		if err != nil {
			return err
		}
		codes, err := topupd.CheckDispute(&o, &r, now, st.DisputeWindowDays)
		if err != nil {
			return err
		}
		var open int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM disputes WHERE order_seq = $1 AND status = 'open'`, seq).Scan(&open); err != nil {
			return err
		} else if open > 0 {
			return topupd.Errorf(topupd.EDisputeOpen, "order %s has an open dispute", orderID)
		}
		prints := make([]string, len(codes))
		for i, c := range codes {
			prints[i] = s.codePrint(c)
		}
		raw, err := json.Marshal(prints)
		if err != nil {
			return err
		}
		_, sandbox := topupd.LiveID(accountID)
		out = topupd.Dispute{ID: topupd.NewID("dsp_"), AccountID: accountID, OrderID: o.ID, OrderSeq: seq, Status: topupd.DisputeOpen,
			Reason: r.Reason, Codes: codes, Detail: r.Detail, CreatedAt: fromMS(ms(now)), Sandbox: sandbox,
			DueAt: fromMS(ms(now.Add(time.Duration(st.DisputeAnswerHours) * time.Hour)))}
		err = tx.QueryRowContext(ctx, `INSERT INTO disputes (id, account_id, order_seq, sandbox, reason, codes, detail, created_at, due_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING seq`, out.ID, accountID, seq, boolInt(sandbox), r.Reason, string(raw), r.Detail,
			ms(out.CreatedAt), ms(out.DueAt)).Scan(&out.Seq)
		if err != nil {
			if s.d.IsUniqueViolation(err) {
				return topupd.Errorf(topupd.EDisputeOpen, "order %s has an open dispute", orderID)
			}
			return err
		}
		noteChange(ctx, accountID, map[string]any{}, map[string]any{"disputeId": out.ID, "orderId": out.OrderID, "reason": out.Reason})
		return emit(ctx, tx, event(&topupd.DisputeData{Type: topupd.EventDisputeOpened, DisputeView: out.View()}, accountID, now))
	})
	if err != nil {
		return out, fmt.Errorf("store.OpenDispute %s: %w", orderID, err)
	}
	return out, nil
}

// Dispute returns one dispute; with accountID set, only that books'.
func (s *Store) Dispute(ctx context.Context, accountID, id string) (topupd.Dispute, error) {
	d, err := scanDispute(s.read.QueryRowContext(ctx, `SELECT `+disputeColumns+disputeFrom+` WHERE d.id = $1 AND ($2 = '' OR d.account_id = $2)`,
		id, accountID))
	if isNoRows(err) {
		return topupd.Dispute{}, topupd.Errorf(topupd.ENotFound, "dispute %s", id)
	} else if err != nil {
		return topupd.Dispute{}, fmt.Errorf("store.Dispute %s: %w", id, err)
	}
	out, err := s.withCodes(ctx, s.read, d)
	if err != nil {
		return out, fmt.Errorf("store.Dispute %s: %w", id, err)
	}
	return out, nil
}

// Disputes returns a page of disputes, newest first, and, for one books,
// how many it has.
func (s *Store) Disputes(ctx context.Context, q topupd.DisputesQuery) ([]topupd.Dispute, int, error) {
	before := int64(1<<63 - 1)
	if q.Before > 0 {
		before = q.Before
	}
	rows, err := readAll(ctx, s, "store.Disputes", scanDispute, `SELECT `+disputeColumns+disputeFrom+`
		WHERE ($1 = '' OR d.status = $1) AND (CASE WHEN $2 = '' THEN d.sandbox = $3 ELSE d.account_id = $2 END)
		AND ($4 = 0 OR (d.status = 'open' AND d.due_at < $5)) AND d.seq < $8
		ORDER BY d.seq DESC LIMIT $6 OFFSET $7`, q.Status, q.AccountID, boolInt(q.Sandbox), boolInt(q.Overdue), ms(q.Now), q.Limit, q.Offset,
		before)
	if err != nil {
		return nil, 0, err
	}
	out := make([]topupd.Dispute, 0, len(rows))
	for _, d := range rows {
		one, err := s.withCodes(ctx, s.read, d)
		if err != nil {
			return nil, 0, fmt.Errorf("store.Disputes: %w", err)
		}
		out = append(out, one)
	}
	if q.AccountID == "" {
		return out, 0, nil
	}
	var n int
	err = s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM disputes WHERE account_id = $1 AND ($2 = '' OR status = $2)`, q.AccountID, q.Status).Scan(&n)
	if err != nil {
		return nil, 0, fmt.Errorf("store.Disputes: %w", err)
	}
	return out, n, nil
}

// SetSupplierClaim sets or clears a dispute's supplier claim, open or
// resolved, under the dispute's row lock.
func (s *Store) SetSupplierClaim(ctx context.Context, ch *topupd.Change, id string, claim *topupd.SupplierClaim) (topupd.Dispute, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Dispute
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		d, err := scanDispute(tx.QueryRowContext(ctx, `SELECT `+disputeColumns+disputeFrom+` WHERE d.id = $1`+s.d.LockRow, id))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "dispute %s", id)
		} else if err != nil {
			return err
		}
		var ref, state any
		if claim != nil {
			ref, state = claim.Reference, claim.State
		}
		if _, err := tx.ExecContext(ctx, `UPDATE disputes SET claim_ref = $2, claim_state = $3 WHERE seq = $1`, d.Seq, ref, state); err != nil {
			return err
		}
		noteChange(ctx, d.AccountID, map[string]any{"supplierClaim": d.SupplierClaim}, map[string]any{"supplierClaim": claim})
		d.SupplierClaim = claim
		out, err = s.withCodes(ctx, tx, d)
		return err
	})
	if err != nil {
		return out, fmt.Errorf("store.SetSupplierClaim %s: %w", id, err)
	}
	return out, nil
}

// OpenDisputes counts the live open disputes, past their dueAt at now
// and not.
func (s *Store) OpenDisputes(ctx context.Context, now time.Time) (overdue, onTime int, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN due_at < $1 THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN due_at < $1 THEN 0 ELSE 1 END), 0)
		FROM disputes WHERE status = 'open' AND sandbox = 0`, ms(now)).Scan(&overdue, &onTime)
	if err != nil {
		return 0, 0, fmt.Errorf("store.OpenDisputes: %w", err)
	}
	return overdue, onTime, nil
}

// RecordCodeSearch writes a search of orders by code in the action log,
// found or not: its target the order found, its after {found}, never the
// code.
func (s *Store) RecordCodeSearch(ctx context.Context, ch *topupd.Change, found bool) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		noteChange(ctx, "", map[string]any{}, map[string]any{"found": found})
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RecordCodeSearch: %w", err)
	}
	return nil
}

// ClaimCounts counts a live account's disputes opened since, and its
// orders completed since.
func (s *Store) ClaimCounts(ctx context.Context, accountID string, since time.Time) (disputes, completed int, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM disputes WHERE account_id = $1 AND created_at >= $2),
		(SELECT COUNT(*) FROM orders WHERE account_id = $1 AND status = 'completed' AND finished_at >= $2)`, accountID, ms(since)).
		Scan(&disputes, &completed)
	if err != nil {
		return 0, 0, fmt.Errorf("store.ClaimCounts %s: %w", accountID, err)
	}
	return disputes, completed, nil
}
