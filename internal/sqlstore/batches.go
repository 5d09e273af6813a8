package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// batchColumns are the columns scanBatch reads, in order.
const batchColumns = `id, pid, cost, note, operator, created_at, added, sold, withdrawn, voided_at`

func scanBatch(row scanner) (topupd.Batch, error) {
	var b topupd.Batch
	var cost, voided sql.NullInt64
	var created int64
	err := row.Scan(&b.ID, &b.PID, &cost, &b.Note, &b.Operator, &created, &b.Added, &b.Sold, &b.Withdrawn, &voided)
	if cost.Valid {
		c := topupd.Money(cost.Int64)
		b.Cost = &c
	}
	if voided.Valid {
		t := fromMS(voided.Int64)
		b.VoidedAt = &t
	}
	b.CreatedAt = fromMS(created)
	return b, err
}

// AddStock adds codes to a pack's stock in a new batch without a cost or a
// note (see AddStockBatch).
func (s *Store) AddStock(ctx context.Context, pid string, codes []string, now time.Time) (topupd.StockResult, error) {
	return s.AddStockBatch(ctx, nil, pid, codes, topupd.StockUpload{}, now)
}

// stockStatement is how many codes one INSERT of AddStockBatch carries
// (three parameters each, well under SQLite's and PostgreSQL's limits).
const stockStatement = 1000

// AddStockBatch adds codes to a pack in one transaction, sealed and
// fingerprinted beforehand, outside it: the upload is added whole or not
// at all, and is one entry in the action log. A new batch that would hold
// no code (every code a duplicate) is not kept: StockResult.BatchID is 0.
func (s *Store) AddStockBatch(ctx context.Context, ch *topupd.Change, pid string, codes []string, u topupd.StockUpload, now time.Time) (topupd.StockResult, error) {
	ctx = withChange(ctx, ch)
	type sealedCode struct {
		fingerprint, codeFP []byte
		sealed              []byte
	}
	sealed := make([]sealedCode, len(codes))
	for i, c := range codes {
		sealed[i] = sealedCode{s.vault.Fingerprint(pid, c), s.vault.CodeFingerprint(c), s.vault.Seal(pid, c)}
	}
	c := changeOf(ctx)
	var r topupd.StockResult
	err := s.inTx(withAlone(ctx), func(ctx context.Context, tx *sql.Tx) error {
		r = topupd.StockResult{BatchID: u.BatchID}
		before, err := s.openBatch(ctx, tx, pid, &u, &r.BatchID, c, now)
		if err != nil {
			return err
		}
		// The codes, stockStatement to a statement: a code held anywhere,
		// in any pack's stock or delivered by any order, or earlier in the
		// upload, trips a unique index and is not inserted (a duplicate).
		// The rows inserted are the codes added.
		for start := 0; start < len(sealed); start += stockStatement {
			part := sealed[start:min(start+stockStatement, len(sealed))]
			args := []any{pid, ms(now), r.BatchID}
			for _, c := range part {
				args = append(args, c.fingerprint, c.codeFP, c.sealed)
			}
			res, err := tx.ExecContext(ctx, insertCodes(len(part)), args...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			r.Added += int(n)
			if before != nil && n > 0 && r.Added == int(n) {
				// The new batch is kept: its savepoint, which keeps the
				// first image of each page changed since, in memory on
				// SQLite, ends now rather than after the last code.
				if _, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT new_batch`); err != nil {
					return err
				}
			}
		}
		r.Duplicates = len(sealed) - r.Added
		if before != nil && r.Added == 0 { // a new batch of nothing: not kept (batches are never deleted: undone)
			if _, err := tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT new_batch`); err != nil {
				return err
			}
			r.BatchID, before = 0, map[string]any{}
		}
		var level sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT available FROM stock_levels WHERE pid = $1), 0), low_stock_at FROM packs WHERE pid = $1`,
			pid).Scan(&r.Available, &level); err != nil {
			return err
		}
		// Codes added lift the stock: the pack's alert clears when it
		// rises above its level.
		if err := s.stockMoved(ctx, tx, pid, levelOf(level), r.Available-r.Added, r.Available); err != nil {
			return err
		}
		after := map[string]any{"available": r.Available, "added": r.Added, "duplicates": r.Duplicates, "batchId": r.BatchID}
		for k, v := range before {
			after[k] = v
		}
		noteChange(ctx, "", map[string]any{"available": r.Available - r.Added}, after)
		return nil
	})
	if err != nil {
		return topupd.StockResult{BatchID: u.BatchID}, fmt.Errorf("store.AddStock %s (%d codes, none added): %w", pid, len(codes), err)
	}
	return r, nil
}

// openBatch takes the pack's locks for an upload's chunk (the pack's row,
// then its stock level, the order every writer of a pack's stock takes
// them in) and sets *id to the batch the chunk adds to: the one *id names,
// of this pack and not voided, or else a new one, made from u. It returns
// the new batch's fields for the action log.
func (s *Store) openBatch(ctx context.Context, tx *sql.Tx, pid string, u *topupd.StockUpload, id *int64, c *topupd.Change, now time.Time) (map[string]any, error) {
	var one int
	if err := tx.QueryRowContext(ctx, s.q.lockPack, pid).Scan(&one); isNoRows(err) {
		return nil, topupd.Errorf(topupd.ENotFound, "pack %s", pid)
	} else if err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, s.q.lockStock, pid).Scan(&one); err != nil && !isNoRows(err) {
		return nil, err
	}
	if *id != 0 {
		b, err := scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM stock_batches WHERE id = $1`, *id))
		switch {
		case isNoRows(err):
			return nil, topupd.Errorf(topupd.ENotFound, "batch %d", *id)
		case err != nil:
			return nil, err
		case b.PID != pid:
			return nil, topupd.Errorf(topupd.EConflict, "batch %d is a batch of pack %s", *id, b.PID)
		case b.Voided():
			return nil, topupd.Errorf(topupd.EConflict, "batch %d is voided", *id)
		}
		return nil, nil
	}
	operator := ""
	if c != nil {
		operator = c.Operator
	}
	// AddStockBatch undoes the new batch, once the locks are held, should
	// the upload add no code.
	if _, err := tx.ExecContext(ctx, `SAVEPOINT new_batch`); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `INSERT INTO stock_batches (pid, cost, note, operator, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		pid, moneyOrNull(u.Cost), u.Note, operator, ms(now)).Scan(id); err != nil {
		return nil, err
	}
	fields := map[string]any{"note": u.Note}
	if u.Cost != nil {
		fields["costUsd"] = *u.Cost
	}
	return fields, nil
}

// Batches lists a pack's batches, newest first.
func (s *Store) Batches(ctx context.Context, pid string) ([]topupd.Batch, error) {
	var one int
	if err := s.read.QueryRowContext(ctx, `SELECT 1 FROM packs WHERE pid = $1`, pid).Scan(&one); isNoRows(err) {
		return nil, fmt.Errorf("store.Batches %s: %w", pid, topupd.Errorf(topupd.ENotFound, "pack %s", pid))
	} else if err != nil {
		return nil, fmt.Errorf("store.Batches %s: %w", pid, err)
	}
	out, err := queryAll(ctx, s.read, scanBatch, `SELECT `+batchColumns+` FROM stock_batches WHERE pid = $1 ORDER BY id DESC`, pid)
	if err != nil {
		return nil, fmt.Errorf("store.Batches %s: %w", pid, err)
	}
	return out, nil
}

// VoidBatch withdraws a batch's unsold codes. It takes the pack's stock
// level lock first, the lock every draw of the pack holds from its count
// to its commit: a draw racing the void either committed before it (its
// codes are sold, not withdrawn) or runs after it and finds the codes
// gone. The database refuses to give a withdrawn code to an order anyway.
func (s *Store) VoidBatch(ctx context.Context, ch *topupd.Change, id int64, now time.Time) (topupd.Batch, error) {
	ctx = withChange(ctx, ch)
	var b topupd.Batch
	err := s.inTx(withAlone(ctx), func(ctx context.Context, tx *sql.Tx) error {
		var err error
		read := func() error {
			b, err = scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM stock_batches WHERE id = $1`, id))
			if isNoRows(err) {
				return topupd.Errorf(topupd.ENotFound, "batch %d", id)
			}
			return err
		}
		if err := read(); err != nil {
			return err
		}
		// The pack's row, then its stock level, as uploads take them: an
		// upload's chunk adding to the batch finishes first or finds it
		// voided (its pack may have no stock level row yet to lock).
		var one int
		if err := tx.QueryRowContext(ctx, s.q.lockPack, b.PID).Scan(&one); err != nil && !isNoRows(err) {
			return err
		}
		if err := tx.QueryRowContext(ctx, s.q.lockStock, b.PID).Scan(&one); err != nil && !isNoRows(err) {
			return err
		}
		if err := read(); err != nil { // as it is once the uploads and draws have let go
			return err
		}
		if b.Voided() {
			return topupd.Errorf(topupd.EConflict, "batch %d was voided at %s", id, b.VoidedAt.Format(time.RFC3339))
		}
		before := b.LogFields()
		if _, err := tx.ExecContext(ctx, `UPDATE stock_batches SET voided_at = $2 WHERE id = $1`, id, ms(now)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE codes SET voided_at = $2 WHERE batch_id = $1 AND order_seq IS NULL`, id, ms(now)); err != nil {
			return err
		}
		if err := read(); err != nil {
			return err
		}
		var available int
		var level sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT available FROM stock_levels WHERE pid = $1), 0), low_stock_at FROM packs WHERE pid = $1`,
			b.PID).Scan(&available, &level); err != nil && !isNoRows(err) {
			return err
		}
		if err := s.stockMoved(ctx, tx, b.PID, levelOf(level), available+b.Withdrawn, available); err != nil {
			return err
		}
		after := b.LogFields()
		after["voidedAt"] = b.VoidedAt.Format(time.RFC3339Nano)
		noteChange(ctx, "", before, after)
		return nil
	})
	if err != nil {
		return b, fmt.Errorf("store.VoidBatch %d: %w", id, err)
	}
	return b, nil
}

// BatchCodes returns a batch and its unsold codes, opened, oldest first.
// It runs as a write transaction so that the export is in the action log
// exactly when the codes were read; the log holds their count, never them.
func (s *Store) BatchCodes(ctx context.Context, ch *topupd.Change, id int64) (topupd.Batch, []string, error) {
	ctx = withChange(ctx, ch)
	var b topupd.Batch
	var codes []string
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		b, err = scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM stock_batches WHERE id = $1`, id))
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "batch %d", id)
		} else if err != nil {
			return err
		}
		codes, err = queryAll(ctx, tx, func(r scanner) (string, error) {
			var sealed []byte
			if err := r.Scan(&sealed); err != nil {
				return "", err
			}
			return s.vault.Open(b.PID, sealed)
		}, `SELECT sealed FROM codes WHERE batch_id = $1 AND order_seq IS NULL ORDER BY id`, id)
		if err != nil {
			return err
		}
		noteChange(ctx, "", map[string]any{}, map[string]any{"pid": b.PID, "voided": b.Voided(), "exported": len(codes)})
		return nil
	})
	if err != nil {
		return b, nil, fmt.Errorf("store.BatchCodes %d: %w", id, err)
	}
	return b, codes, nil
}

// LowStock reports, for every pack whose low_stock_at is set, whether its
// alert is raised.
func (s *Store) LowStock(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	err := eachRow(ctx, s.read, func(r scanner) error {
		var pid string
		var raised int
		err := r.Scan(&pid, &raised)
		out[pid] = raised == 1
		return err
	}, `SELECT p.pid, CASE WHEN a.pid IS NULL THEN 0 ELSE 1 END FROM packs p
		LEFT JOIN stock_alerts a ON a.pid = p.pid WHERE p.low_stock_at IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("store.LowStock: %w", err)
	}
	return out, nil
}

// stockCost is what the quantity codes an order is about to draw cost:
// each its batch's cost, or the pack's (unit) for a code whose batch has
// none; nil, no known cost, when a code has neither (a unit of 0 is no
// cost set). Under the pack's stock level lock, which the caller holds
// from its count of the stock, these are the very codes drawCodes then
// gives.
func (s *Store) stockCost(ctx context.Context, tx *sql.Tx, pid string, quantity int, unit topupd.Money) (*topupd.Money, error) {
	var total topupd.Money
	known := true
	var packCost any // NULL: the pack has no cost set
	if unit > 0 {
		packCost = int64(unit)
	}
	err := eachRow(ctx, tx, func(r scanner) error {
		var c sql.NullInt64
		err := r.Scan(&c)
		total += topupd.Money(c.Int64)
		known = known && c.Valid
		return err
	}, stockCostSQL, pid, quantity, packCost)
	if err != nil || !known {
		return nil, err
	}
	return &total, nil
}

// stockCostSQL is the cost of each code a draw of a pack ($1) for $2
// codes is about to take, $3 (NULL when the pack has none) for a code
// whose batch has no cost: the draw's own choice of codes (see the
// drawCodes query).
const stockCostSQL = `SELECT COALESCE((SELECT b.cost FROM stock_batches b WHERE b.id = c.batch_id), $3) FROM codes c
	WHERE c.pid = $1 AND c.order_seq IS NULL AND c.voided_at IS NULL ORDER BY c.id LIMIT $2`
