package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

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

// DeleteUpstream removes an upstream no pack and no processing order names
// (see topupd.UpstreamStore).
func (s *Store) DeleteUpstream(ctx context.Context, ch *topupd.Change, name string) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var base string
		err := tx.QueryRowContext(ctx, `SELECT base_url FROM upstreams WHERE name = $1`+s.d.LockRow, name).Scan(&base)
		if isNoRows(err) {
			return topupd.Errorf(topupd.ENotFound, "upstream %s", name)
		} else if err != nil {
			return err
		}
		pids, err := packsNaming(ctx, tx, name)
		if err != nil {
			return err
		}
		var orders int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders o WHERE o.status = 'processing' AND (o.upstream = $1
			OR EXISTS (SELECT 1 FROM order_attempts a WHERE a.order_seq = o.seq AND a.upstream = $1 AND a.outcome IN ('trying', 'waiting')))`,
			name).Scan(&orders); err != nil {
			return err
		}
		if len(pids) > 0 || orders > 0 {
			return topupd.Errorf(topupd.EUpstreamInUse, "upstream %s is named by %d packs [%s] and %d processing orders",
				name, len(pids), strings.Join(pids, ", "), orders)
		}
		noteChange(ctx, "", map[string]any{"baseUrl": base}, map[string]any{})
		_, err = tx.ExecContext(ctx, `DELETE FROM upstreams WHERE name = $1`, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("store.DeleteUpstream %s: %w", name, err)
	}
	return nil
}

// packsNaming lists the packs that name an upstream, as their upstream or
// in their suppliers, by pid.
func packsNaming(ctx context.Context, tx *sql.Tx, name string) ([]string, error) {
	var pids []string
	err := eachRow(ctx, tx, func(r scanner) error {
		var p topupd.Pack
		if err := r.Scan(&p.PID, &p.Upstream, jsonColumn(&p.Suppliers)); err != nil {
			return err
		}
		named := p.Upstream == name
		for _, sp := range p.Suppliers {
			named = named || sp.Upstream == name
		}
		if named {
			pids = append(pids, p.PID)
		}
		return nil
	}, `SELECT pid, upstream, suppliers FROM packs ORDER BY pid`)
	return pids, err
}
