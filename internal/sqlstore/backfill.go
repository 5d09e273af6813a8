package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
)

// backfillBatch is how many codes one transaction of the backfill reads.
const backfillBatch = 256

// BackfillCodeFingerprints gives every code stored before codes were unique
// across packs its global fingerprint (code_fp), unsealing it with the
// vault. A code equal to one that already has its fingerprint is a
// duplicate from those days: it keeps none, is logged, and is named by the
// audit's code-unique-globally check for the operator to resolve. It is
// safe to run on every start and on several nodes at once.
func (s *Store) BackfillCodeFingerprints(ctx context.Context) error {
	var after int64
	for {
		type row struct {
			id     int64
			pid    string
			sealed []byte
		}
		batch, err := queryAll(ctx, s.read, func(sc scanner) (row, error) {
			var r row
			err := sc.Scan(&r.id, &r.pid, &r.sealed)
			return r, err
		}, `SELECT id, pid, sealed FROM codes WHERE code_fp IS NULL AND id > $1 ORDER BY id LIMIT $2`, after, backfillBatch)
		if err != nil {
			return fmt.Errorf("store.BackfillCodeFingerprints: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			after = r.id
			code, err := s.vault.Open(r.pid, r.sealed)
			if err != nil {
				return fmt.Errorf("store.BackfillCodeFingerprints: code %d: %w", r.id, err)
			}
			err = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, `UPDATE codes SET code_fp = $2 WHERE id = $1 AND code_fp IS NULL`, r.id, s.vault.CodeFingerprint(code))
				return err
			})
			if err != nil && s.d.IsUniqueViolation(err) {
				slog.Warn("store: a code stored before codes were unique across packs duplicates another; see /admin/audit", "codeId", r.id, "pid", r.pid)
				continue
			}
			if err != nil {
				return fmt.Errorf("store.BackfillCodeFingerprints: code %d: %w", r.id, err)
			}
		}
	}
}
