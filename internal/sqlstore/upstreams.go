package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// sealContext binds an upstream's sealed API key to its name.
func sealContext(name string) string { return "upstream:" + name }

// PutUpstream creates or replaces an upstream, sealing its API key.
func (s *Store) PutUpstream(ctx context.Context, ch *topupd.Change, u topupd.Upstream) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		before := map[string]any{}
		var old string
		if err := tx.QueryRowContext(ctx, `SELECT base_url FROM upstreams WHERE name = $1`, u.Name).Scan(&old); err == nil {
			before["baseUrl"] = old
		} else if !isNoRows(err) {
			return err
		}
		// The key is never logged; that it was set is.
		after := u.LogFields()
		after["apiKeySet"] = true
		noteChange(ctx, "", before, after)
		_, err := tx.ExecContext(ctx, `INSERT INTO upstreams (name, base_url, api_key, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (name) DO UPDATE SET base_url = excluded.base_url, api_key = excluded.api_key, updated_at = excluded.updated_at`,
			u.Name, u.BaseURL, s.vault.Seal(sealContext(u.Name), u.APIKey), ms(u.UpdatedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("store.PutUpstream %s: %w", u.Name, err)
	}
	return nil
}

func (s *Store) scanUpstream(row scanner) (topupd.Upstream, error) {
	var u topupd.Upstream
	var sealed []byte
	var updated int64
	if err := row.Scan(&u.Name, &u.BaseURL, &sealed, &updated); err != nil {
		return u, err
	}
	key, err := s.vault.Open(sealContext(u.Name), sealed)
	if err != nil {
		return u, fmt.Errorf("upstream %s api key: %w", u.Name, err)
	}
	u.APIKey, u.UpdatedAt = key, fromMS(updated)
	return u, nil
}

// Upstream returns one upstream with its API key.
func (s *Store) Upstream(ctx context.Context, name string) (topupd.Upstream, error) {
	u, err := s.scanUpstream(s.read.QueryRowContext(ctx, `SELECT name, base_url, api_key, updated_at FROM upstreams WHERE name = $1`, name))
	if isNoRows(err) {
		return u, topupd.Errorf(topupd.ENotFound, "upstream %s", name)
	}
	if err != nil {
		return u, fmt.Errorf("store.Upstream %s: %w", name, err)
	}
	return u, nil
}

// Upstreams returns every upstream by name.
func (s *Store) Upstreams(ctx context.Context) ([]topupd.Upstream, error) {
	return readAll(ctx, s, "store.Upstreams", s.scanUpstream, `SELECT name, base_url, api_key, updated_at FROM upstreams ORDER BY name`)
}
