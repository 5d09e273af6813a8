package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/topupd/topupd"
)

// PutLine creates or replaces a line.
func (s *Store) PutLine(ctx context.Context, ch *topupd.Change, l topupd.Line) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		old, err := s.putLine(ctx, tx, l)
		if err != nil {
			return err
		}
		before := map[string]any{}
		if old != nil {
			before = old.LogFields()
		}
		noteChange(ctx, "", before, l.LogFields())
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.PutLine %s: %w", l.Slug, err)
	}
	return nil
}

// putLine writes a line, and what its change tells (lineWritten); it
// returns the line as it was (nil: a new line).
func (s *Store) putLine(ctx context.Context, tx *sql.Tx, l topupd.Line) (*topupd.Line, error) {
	var old *topupd.Line
	if was, err := scanLine(tx.QueryRowContext(ctx, `SELECT `+lineColumns+` FROM lines WHERE slug = $1`, l.Slug)); err == nil {
		old = &was
	} else if !isNoRows(err) {
		return nil, err
	}
	required := l.Required
	if required == nil {
		required = []topupd.RequiredField{}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO lines (`+lineColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (slug) DO UPDATE SET product_name = excluded.product_name, game_name = excluded.game_name, game = excluded.game,
			kind = excluded.kind, status = excluded.status, required = excluded.required,
			server_id_options = excluded.server_id_options, region_options = excluded.region_options`,
		l.Slug, l.ProductName, l.GameName, l.Game, string(l.Kind), l.Status, jsonText(required), optionsText(l.ServerIDOptions), optionsText(l.RegionOptions))
	if err != nil {
		return nil, err
	}
	return old, s.lineWritten(ctx, tx, old, &l)
}

// UpdateLine changes a line under its row lock: apply gets the line as
// stored and changes it (its error, a refusal, leaves the line as it was).
// An unknown slug is ENotFound.
func (s *Store) UpdateLine(ctx context.Context, ch *topupd.Change, slug string, apply func(*topupd.Line) error) (topupd.Line, error) {
	ctx = withChange(ctx, ch)
	var l topupd.Line
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		l, err = changeLocked(ctx, tx, scanLine, topupd.Errorf(topupd.ENotFound, "service line %s", slug), func(l *topupd.Line) error {
			if err := apply(l); err != nil {
				return err
			}
			l.Slug = slug
			return nil
		}, `SELECT `+lineColumns+` FROM lines WHERE slug = $1`+s.d.LockRow, slug)
		if err != nil {
			return err
		}
		_, err = s.putLine(ctx, tx, l)
		return err
	})
	if err != nil {
		return l, fmt.Errorf("store.UpdateLine %s: %w", slug, err)
	}
	return l, nil
}

func optionsText(o []topupd.Option) any {
	if len(o) == 0 {
		return nil
	}
	return jsonText(o)
}

func scanLine(row scanner) (topupd.Line, error) {
	var l topupd.Line
	var kind string
	err := row.Scan(&l.Slug, &l.ProductName, &l.GameName, &l.Game, &kind, &l.Status,
		jsonColumn(&l.Required), jsonColumn(&l.ServerIDOptions), jsonColumn(&l.RegionOptions))
	l.Kind = topupd.LineKind(kind)
	return l, err
}

// Lines returns every line by slug.
func (s *Store) Lines(ctx context.Context) ([]topupd.Line, error) {
	return readAll(ctx, s, "store.Lines", scanLine, `SELECT `+lineColumns+` FROM lines ORDER BY slug`)
}

// PutPack creates or replaces a pack.
func (s *Store) PutPack(ctx context.Context, ch *topupd.Change, p topupd.Pack) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := s.applyDue(ctx, tx, p.PID, s.now()); err != nil { // a change that took effect comes first
			return err
		}
		old, err := s.putPack(ctx, tx, &p)
		if err != nil {
			return err
		}
		before := map[string]any{}
		if old != nil {
			before = old.LogFields()
		}
		noteChange(ctx, "", before, p.LogFields())
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.PutPack %s: %w", p.PID, err)
	}
	return nil
}

// putPack writes a pack, its low-stock alert and what its change tells
// (packWritten); it returns the pack as it was (nil: a new pack).
func (s *Store) putPack(ctx context.Context, tx *sql.Tx, p *topupd.Pack) (*topupd.Pack, error) {
	// The pack's lock (as it was read), then its stock level's, as
	// uploads, voids and draws take them: the level's alert is set as the
	// stock stands.
	var old *topupd.Pack
	if was, err := scanPack(tx.QueryRowContext(ctx, `SELECT `+packColumns+` FROM packs WHERE pid = $1`+s.d.LockRow, p.PID)); err == nil {
		old = &was
	} else if !isNoRows(err) {
		return nil, err
	}
	if err := s.priceByRule(ctx, tx, old, p); err != nil {
		return nil, err
	}
	if err := s.guardCost(ctx, tx, old, p); err != nil {
		return nil, err
	}
	var available int
	if err := tx.QueryRowContext(ctx, s.q.lockStock, p.PID).Scan(&available); err != nil && !isNoRows(err) {
		return nil, err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO packs (`+packColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (pid) DO UPDATE SET slug = excluded.slug, name = excluded.name, category = excluded.category,
			price = excluded.price, status = excluded.status, stock_based = excluded.stock_based,
			provider = excluded.provider, upstream = excluded.upstream, upstream_pid = excluded.upstream_pid,
			cost = excluded.cost, low_stock_at = excluded.low_stock_at, suppliers = excluded.suppliers, price_pinned = excluded.price_pinned`,
		p.PID, p.Slug, p.Name, p.Category, int64(p.Price), p.Status, boolInt(p.StockBased), p.Provider, p.Upstream, p.UpstreamPID,
		int64(p.Cost), nullInt(p.LowStockAt), suppliersJSON(p.Suppliers), boolInt(p.PricePinned))
	if err != nil {
		return nil, err
	}
	var oldLevel *int
	if old != nil {
		oldLevel = old.LowStockAt
	}
	if err := levelMoved(ctx, tx, p.PID, oldLevel, p.LowStockAt, available); err != nil {
		return nil, err
	}
	return old, s.packWritten(ctx, tx, old, p)
}

// suppliersJSON is how a pack's supplier list is stored: ” for none.
func suppliersJSON(list []topupd.Supplier) string {
	if len(list) == 0 {
		return ""
	}
	return jsonText(list)
}

// nullInt stores an optional integer.
func nullInt(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

// UpdatePack changes a pack under its row lock, as UpdateLine does a line:
// a patch racing another patch never undoes its change.
func (s *Store) UpdatePack(ctx context.Context, ch *topupd.Change, pid string, apply func(*topupd.Pack) error) (topupd.Pack, error) {
	ctx = withChange(ctx, ch)
	var p topupd.Pack
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := s.applyDue(ctx, tx, pid, s.now()); err != nil { // a change that took effect comes first
			return err
		}
		var err error
		p, err = changeLocked(ctx, tx, scanPack, topupd.Errorf(topupd.ENotFound, "pack %s", pid), func(p *topupd.Pack) error {
			if err := apply(p); err != nil {
				return err
			}
			p.PID = pid
			return nil
		}, `SELECT `+packColumns+` FROM packs WHERE pid = $1`+s.d.LockRow, pid)
		if err != nil {
			return err
		}
		_, err = s.putPack(ctx, tx, &p)
		return err
	})
	if err != nil {
		return p, fmt.Errorf("store.UpdatePack %s: %w", pid, err)
	}
	return p, nil
}

func scanPack(row scanner) (topupd.Pack, error) {
	var p topupd.Pack
	var lowStockAt sql.NullInt64
	err := row.Scan(&p.PID, &p.Slug, &p.Name, &p.Category, &p.Price, &p.Status, &p.StockBased, &p.Provider, &p.Upstream, &p.UpstreamPID,
		&p.Cost, &lowStockAt, jsonColumn(&p.Suppliers), &p.PricePinned)
	if err != nil {
		return p, err
	}
	if lowStockAt.Valid {
		n := int(lowStockAt.Int64)
		p.LowStockAt = &n
	}
	return p, nil
}

// Packs returns every pack by PID.
func (s *Store) Packs(ctx context.Context) ([]topupd.Pack, error) {
	return readAll(ctx, s, "store.Packs", scanPack, `SELECT `+packColumns+` FROM packs ORDER BY pid`)
}

// StockLevels returns the codes available per PID.
func (s *Store) StockLevels(ctx context.Context) (map[string]int, error) {
	out, err := queryMap[string, int](ctx, s.read, `SELECT pid, available FROM stock_levels WHERE available > 0`)
	if err != nil {
		return nil, fmt.Errorf("store.StockLevels: %w", err)
	}
	return out, nil
}

// AddStock and AddStockBatch, which add codes to stock in batches, are in
// batches.go.
