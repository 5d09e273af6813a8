package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

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
		state := u.State
		if state == "" {
			state = topupd.UpstreamUnchecked
		}
		var bal, balAt any
		if u.Balance != nil && u.BalanceAt != nil {
			bal, balAt = int64(*u.Balance), ms(*u.BalanceAt)
		}
		// A saved upstream keeps its thresholds; its state and balance are
		// what its check found (unchecked, and none, without one).
		_, err := tx.ExecContext(ctx, `INSERT INTO upstreams (name, base_url, api_key, updated_at, state, balance, balance_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (name) DO UPDATE SET base_url = excluded.base_url, api_key = excluded.api_key, updated_at = excluded.updated_at,
				state = excluded.state, balance = excluded.balance, balance_at = excluded.balance_at`,
			u.Name, u.BaseURL, s.vault.Seal(sealContext(u.Name), u.APIKey), ms(u.UpdatedAt), state, bal, balAt)
		return err
	})
	if err != nil {
		return fmt.Errorf("store.PutUpstream %s: %w", u.Name, err)
	}
	return nil
}

// upstreamSelect reads the upstreams for scanUpstream; $1 is when the day
// of its burn starts (dayStart): an upstream's day is the known cost of
// the orders completed there since (orders_upstream_done).
const upstreamSelect = `SELECT name, base_url, api_key, updated_at, state, balance, balance_at, warn_hours, critical_hours, balance_alert,
	(SELECT CAST(COALESCE(SUM(o.cost), 0) AS BIGINT) FROM orders o WHERE o.status = 'completed' AND o.upstream = upstreams.name
		AND o.finished_at >= $1) FROM upstreams`

// dayStart is the start of the 24 hours before now, for upstreamSelect.
func dayStart(now time.Time) int64 { return ms(now.Add(-24 * time.Hour)) }

func (s *Store) scanUpstream(row scanner) (topupd.Upstream, error) {
	var u topupd.Upstream
	var sealed []byte
	var updated int64
	var bal, balAt sql.NullInt64
	if err := row.Scan(&u.Name, &u.BaseURL, &sealed, &updated, &u.State, &bal, &balAt, &u.WarnHours, &u.CriticalHours,
		&u.BalanceAlert, &u.Day); err != nil {
		return u, err
	}
	u.Balance = nullMoney(bal)
	if balAt.Valid {
		t := fromMS(balAt.Int64)
		u.BalanceAt = &t
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
	u, err := s.scanUpstream(s.read.QueryRowContext(ctx, upstreamSelect+` WHERE name = $2`, dayStart(s.now()), name))
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
	return readAll(ctx, s, "store.Upstreams", s.scanUpstream, upstreamSelect+` ORDER BY name`, dayStart(s.now()))
}

// DeleteUpstream removes an upstream no pack and no processing order names
// (see topupd.UpstreamStore).
func (s *Store) DeleteUpstream(ctx context.Context, ch *topupd.Change, name string) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		u, err := s.lockUpstream(ctx, tx, name)
		if err != nil {
			return err
		}
		pids, err := packsNaming(ctx, tx, name)
		if err != nil {
			return err
		}
		var orders int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders o WHERE o.status = 'processing' AND (o.upstream = $1
			OR EXISTS (SELECT 1 FROM order_attempts a WHERE a.order_seq = o.seq AND a.upstream = $1 AND (a.outcome IN ('trying', 'waiting')
				OR (a.outcome IN ('skipped', 'refused') AND a.why IN ($2, $3)))))`,
			name, topupd.WhyBalance, topupd.WhyInsufficient).Scan(&orders); err != nil {
			return err
		}
		if len(pids) > 0 || orders > 0 {
			return topupd.Errorf(topupd.EUpstreamInUse, "upstream %s is named by %d packs [%s] and %d processing orders",
				name, len(pids), strings.Join(pids, ", "), orders)
		}
		noteChange(ctx, "", u.LogFields(), map[string]any{})
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

// RecordUpstreamCheck records how a check of an upstream went: ok with the
// balance it read, at at, or failing. It answers the upstream as stored;
// ENotFound when there is none.
func (s *Store) RecordUpstreamCheck(ctx context.Context, ch *topupd.Change, name string, balance *topupd.Money, at time.Time) (topupd.Upstream, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Upstream
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		before, err := s.lockUpstream(ctx, tx, name)
		if err != nil {
			return err
		}
		if balance != nil {
			_, err = tx.ExecContext(ctx, `UPDATE upstreams SET state = 'ok', balance = $2, balance_at = $3 WHERE name = $1`, name, int64(*balance), ms(at))
		} else {
			_, err = tx.ExecContext(ctx, `UPDATE upstreams SET state = 'failing' WHERE name = $1`, name)
		}
		if err != nil {
			return err
		}
		out, err = s.scanUpstream(tx.QueryRowContext(ctx, upstreamSelect+` WHERE name = $2`, dayStart(at), name))
		if err != nil {
			return err
		}
		if err := s.setBalanceAlert(ctx, tx, &out, topUp(&before, balance), at); err != nil {
			return err
		}
		noteChange(ctx, "", before.CheckFields(), out.CheckFields())
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.RecordUpstreamCheck %s: %w", name, err)
	}
	if balance != nil {
		s.wakeWaitingFunds(ctx, at)
	}
	return out, nil
}

// SetUpstreamThresholds sets an upstream's runway thresholds (nil keeps
// one): EInvalidBody unless both are above 0 and critical is not above
// warn; ENotFound when there is none.
func (s *Store) SetUpstreamThresholds(ctx context.Context, ch *topupd.Change, name string, warn, critical *float64) (topupd.Upstream, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Upstream
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		before, err := s.lockUpstream(ctx, tx, name)
		if err != nil {
			return err
		}
		out = before
		if warn != nil {
			out.WarnHours = *warn
		}
		if critical != nil {
			out.CriticalHours = *critical
		}
		if err := topupd.CheckThresholds(out.WarnHours, out.CriticalHours); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE upstreams SET warn_hours = $2, critical_hours = $3 WHERE name = $1`,
			name, out.WarnHours, out.CriticalHours); err != nil {
			return err
		}
		noteChange(ctx, "", before.CheckFields(), out.CheckFields())
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("store.SetUpstreamThresholds %s: %w", name, err)
	}
	return out, nil
}

// lockUpstream reads an upstream under its row lock: ENotFound when there
// is none.
func (s *Store) lockUpstream(ctx context.Context, tx *sql.Tx, name string) (topupd.Upstream, error) {
	u, err := s.scanUpstream(tx.QueryRowContext(ctx, upstreamSelect+` WHERE name = $2`+s.d.LockRow, dayStart(s.now()), name))
	if isNoRows(err) {
		return u, topupd.Errorf(topupd.ENotFound, "upstream %s", name)
	}
	return u, err
}
