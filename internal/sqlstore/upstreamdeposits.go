package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// upstreamDepositColumns are the columns scanUpstreamDeposit reads.
const upstreamDepositColumns = `seq, id, upstream, amount, reference, at, operator, created_at`

func scanUpstreamDeposit(row scanner) (topupd.UpstreamDeposit, error) {
	var d topupd.UpstreamDeposit
	var at, created int64
	err := row.Scan(&d.Seq, &d.ID, &d.Upstream, &d.Amount, &d.Reference, &at, &d.Operator, &created)
	d.At, d.CreatedAt = fromMS(at), fromMS(created)
	return d, err
}

// AddUpstreamDeposit records a deposit once per upstream and reference
// (see topupd.UpstreamDepositStore); the unique index decides between
// two operators recording it at once.
func (s *Store) AddUpstreamDeposit(ctx context.Context, ch *topupd.Change, d topupd.UpstreamDeposit) (topupd.UpstreamDeposit, bool, error) {
	ctx = withChange(ctx, ch)
	var out topupd.UpstreamDeposit
	repeated := false
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out, repeated = topupd.UpstreamDeposit{}, false
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM upstreams WHERE name = $1`, d.Upstream).Scan(&one); isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "upstream %s", d.Upstream)
		} else if err != nil {
			return err
		}
		var err error
		out, err = scanUpstreamDeposit(tx.QueryRowContext(ctx, `INSERT INTO upstream_deposits (id, upstream, amount, reference, at, operator, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (upstream, reference) DO NOTHING RETURNING `+upstreamDepositColumns,
			d.ID, d.Upstream, int64(d.Amount), d.Reference, ms(d.At), d.Operator, ms(d.CreatedAt)))
		if isNoRows(err) { // the reference is recorded: answer the first
			repeated = true
			noteChange(ctx, "", map[string]any{}, map[string]any{})
			out, err = scanUpstreamDeposit(tx.QueryRowContext(ctx, `SELECT `+upstreamDepositColumns+` FROM upstream_deposits
				WHERE upstream = $1 AND reference = $2`, d.Upstream, d.Reference))
			return err
		}
		if err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{}, map[string]any{"amountUsd": out.Amount, "reference": out.Reference,
			"at": out.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"), "id": out.ID})
		return nil
	})
	if err != nil {
		return out, false, fmt.Errorf("store.AddUpstreamDeposit %s: %w", d.Upstream, err)
	}
	return out, repeated, nil
}

// UpstreamDeposits reads a page of an upstream's deposits, newest first.
func (s *Store) UpstreamDeposits(ctx context.Context, q topupd.UpstreamDepositsQuery) ([]topupd.UpstreamDeposit, error) {
	var from, to int64 = 0, 1<<63 - 1
	if !q.From.IsZero() {
		from = ms(q.From)
	}
	if !q.To.IsZero() {
		to = ms(q.To)
	}
	beforeAt, beforeSeq := int64(1<<63-1), int64(0)
	if q.Before != nil {
		beforeAt, beforeSeq = ms(q.Before.At), q.Before.Seq
	}
	out, err := queryAll(ctx, s.read, scanUpstreamDeposit, `SELECT `+upstreamDepositColumns+` FROM upstream_deposits
		WHERE upstream = $1 AND at >= $2 AND at < $3 AND (at < $4 OR (at = $4 AND seq < $5))
		ORDER BY at DESC, seq DESC LIMIT $6`, q.Upstream, from, to, beforeAt, beforeSeq, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("store.UpstreamDeposits %s: %w", q.Upstream, err)
	}
	return out, nil
}
