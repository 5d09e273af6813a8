package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// Instance returns this deployment's instance id: the one row of instance
// (migration 00032), made by the first call on the database. Servers
// starting at once agree on the first one written.
func (s *Store) Instance(ctx context.Context) (string, error) {
	var id string
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO instance (singleton, id) VALUES (1, $1) ON CONFLICT (singleton) DO NOTHING`,
			topupd.NewInstanceID()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT id FROM instance WHERE singleton = 1`).Scan(&id)
	})
	if err != nil {
		return "", fmt.Errorf("store.Instance: %w", err)
	}
	if !topupd.ValidInstanceID(id) {
		return "", fmt.Errorf("store.Instance: %q is not an instance id", id)
	}
	return id, nil
}
