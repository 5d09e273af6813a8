package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/topupd/topupd"
)

// Our money at each upstream (back-office.md, section 1), kept here so
// that every node answers the same: the known balance (a read, less the
// costs of the orders it accepted since: acceptedCost), the balance
// alert with its hysteresis, each change of it an operator event in the
// stream, and the orders waiting for funds woken by a read.

// RecordSupplierRead records a good read of our balance at an upstream.
func (s *Store) RecordSupplierRead(ctx context.Context, r topupd.SupplierRead) (topupd.Upstream, error) {
	var out topupd.Upstream
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		before, err := s.lockUpstream(ctx, tx, r.Upstream)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE upstreams SET state = 'ok', balance = $2, balance_at = $3 WHERE name = $1`,
			r.Upstream, int64(r.Balance), ms(r.At)); err != nil {
			return err
		}
		out = before
		out.State, out.Balance, out.BalanceAt = topupd.UpstreamOK, &r.Balance, &r.At
		return s.setBalanceAlert(ctx, tx, &out, topUp(&before, &r.Balance), r.At)
	})
	if err != nil {
		return out, fmt.Errorf("store.RecordSupplierRead %s: %w", r.Upstream, err)
	}
	s.wakeWaitingFunds(ctx, r.At)
	return out, nil
}

// topUp reports whether a read is higher than the balance known before it.
func topUp(before *topupd.Upstream, read *topupd.Money) bool {
	return read != nil && before.Balance != nil && *read > *before.Balance
}

// RecordSupplierDry records an INSUFFICIENT BALANCE answer: the upstream
// answered (state ok), and our balance there is 0 until the next read.
func (s *Store) RecordSupplierDry(ctx context.Context, name string, at time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		u, err := s.lockUpstream(ctx, tx, name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE upstreams SET state = 'ok', balance = 0, balance_at = $2 WHERE name = $1`, name, ms(at)); err != nil {
			return err
		}
		zero := topupd.Money(0)
		u.State, u.Balance, u.BalanceAt = topupd.UpstreamOK, &zero, &at
		return s.setBalanceAlert(ctx, tx, &u, false, at)
	})
	if err != nil {
		return fmt.Errorf("store.RecordSupplierDry %s: %w", name, err)
	}
	return nil
}

// RecordSupplierCall records how a call went: ok, or failing once an
// upstream has answered before (it stays unchecked until its first
// success). A state already recorded writes nothing.
func (s *Store) RecordSupplierCall(ctx context.Context, name string, ok bool, at time.Time) error {
	var state string
	err := s.read.QueryRowContext(ctx, `SELECT state FROM upstreams WHERE name = $1`, name).Scan(&state)
	switch {
	case isNoRows(err):
		return nil
	case err != nil:
		return fmt.Errorf("store.RecordSupplierCall %s: %w", name, err)
	case ok && state == topupd.UpstreamOK, !ok && state != topupd.UpstreamOK:
		return nil // already so, or never answered
	}
	q := `UPDATE upstreams SET state = 'ok' WHERE name = $1 AND state <> 'ok'`
	if !ok {
		q = `UPDATE upstreams SET state = 'failing' WHERE name = $1 AND state = 'ok'`
	}
	err = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, q, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("store.RecordSupplierCall %s: %w", name, err)
	}
	return nil
}

// acceptedCost subtracts from the known balance at an order's upstream
// what the order costs there, as the upstream accepts it (gives its own id
// of the order for the first time): the supplier's cost, else the pack's,
// times the quantity. A balance not yet known stays unknown.
func (s *Store) acceptedCost(ctx context.Context, tx *sql.Tx, o *topupd.Order, st *topupd.Settlement) error {
	if o.Provider != topupd.ProviderUpstream || o.Upstream == "" || o.SupplierRef != "" || st.SupplierRef == "" {
		return nil
	}
	cost, err := s.completionCost(ctx, tx, o)
	if err != nil || cost == nil || *cost == 0 {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE upstreams SET balance = balance - $2 WHERE name = $1 AND balance IS NOT NULL`, o.Upstream, int64(*cost))
	if n, err := rowsAffected(res, err); err != nil || n == 0 {
		return err
	}
	u, err := s.scanUpstream(tx.QueryRowContext(ctx, upstreamSelect+` WHERE name = $2`, dayStart(st.Now), o.Upstream))
	if err != nil {
		return err
	}
	return s.setBalanceAlert(ctx, tx, &u, false, st.Now)
}

// setBalanceAlert works u's balance alert out after a change (topUp: a
// read higher than the balance before it) and, when it changes, writes it
// and its operator event.
func (s *Store) setBalanceAlert(ctx context.Context, tx *sql.Tx, u *topupd.Upstream, topUp bool, at time.Time) error {
	level := u.Funds().NextLevel(u.BalanceAlert, topUp)
	if level == u.BalanceAlert {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE upstreams SET balance_alert = $2 WHERE name = $1`, u.Name, level); err != nil {
		return err
	}
	u.BalanceAlert = level
	return emit(ctx, tx, event(topupd.SupplierBalanceEvent(u, level), "", at))
}

// EvaluateBalanceAlerts works every upstream's balance alert out again at
// now: an upstream whose level would change is locked and worked out
// again in a transaction of its own.
func (s *Store) EvaluateBalanceAlerts(ctx context.Context, now time.Time) error {
	ups, err := readAll(ctx, s, "store.EvaluateBalanceAlerts", s.scanUpstream, upstreamSelect+` ORDER BY name`, dayStart(now))
	if err != nil {
		return err
	}
	for _, u := range ups {
		if u.Funds().NextLevel(u.BalanceAlert, false) == u.BalanceAlert {
			continue
		}
		err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			u, err := s.scanUpstream(tx.QueryRowContext(ctx, upstreamSelect+` WHERE name = $2`+s.d.LockRow, dayStart(now), u.Name))
			if isNoRows(err) {
				return nil
			} else if err != nil {
				return err
			}
			return s.setBalanceAlert(ctx, tx, &u, false, now)
		})
		if err != nil {
			return fmt.Errorf("store.EvaluateBalanceAlerts %s: %w", u.Name, err)
		}
	}
	return nil
}

// wakeWaitingFunds makes the orders waiting for supplier funds that no
// worker holds due at now, after a read: each is looked at again, and
// goes to the first supplier that can now cover it. A failure is left to
// the orders' deadline and the next read.
func (s *Store) wakeWaitingFunds(ctx context.Context, now time.Time) {
	_ = s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE orders SET next_attempt_at = $2 WHERE status = 'processing' AND alert = $1
			AND next_attempt_at > $2 AND lease_owner IS NULL`, topupd.AlertWaitingFunds, ms(now))
		return err
	})
}

// WaitingFunds counts the orders waiting for supplier funds.
func (s *Store) WaitingFunds(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE status = 'processing' AND alert = $1`,
		topupd.AlertWaitingFunds).Scan(&n); err != nil {
		return 0, fmt.Errorf("store.WaitingFunds: %w", err)
	}
	return n, nil
}

// operatorTypes is the SQL list of the operator events' types, as the
// partial index events_operator names them (migration 00035).
var operatorTypes = func() string {
	var b strings.Builder
	for i, t := range []string{"supplier.balance.warn", "supplier.balance.critical", "supplier.balance.recovered",
		"reconciliation.mismatches", "reconciliation.failed", "price.held"} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + t + "'")
	}
	return b.String()
}()

// OperatorEvents reads a page of the operator events after the one with
// id after, those at or after since, in stream order.
func (s *Store) OperatorEvents(ctx context.Context, after string, limit int, since time.Time) ([]topupd.Event, bool, error) {
	var pos topupd.StreamPos
	if after != "" {
		err := s.read.QueryRowContext(ctx, `SELECT tx, seq FROM events WHERE id = $1 AND type IN (`+operatorTypes+`)`, after).
			Scan(&pos.Tx, &pos.Seq)
		if isNoRows(err) {
			return nil, false, topupd.Errorf(topupd.EInvalidRequest, "after: no operator event %s", after)
		} else if err != nil {
			return nil, false, fmt.Errorf("store.OperatorEvents: %w", err)
		}
	}
	cond := `(e.tx, e.seq) > ($1, $2)`
	if s.d.StreamAfter != "" {
		cond = s.d.StreamAfter
	}
	out, err := readAll(ctx, s, "store.OperatorEvents", scanEvent, `SELECT `+eventColumns+` FROM events e LEFT JOIN orders o ON o.seq = e.order_seq
		WHERE e.type IN (`+operatorTypes+`) AND `+cond+` AND e.at >= $4`+s.d.StreamSettled+` ORDER BY e.tx, e.seq LIMIT $3`,
		pos.Tx, pos.Seq, limit+1, ms(since))
	if err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// ClaimBalancePoll takes the poll of an upstream's balance for this node
// when none was taken within every before now; an upstream never polled
// is first polled every after it was saved.
func (s *Store) ClaimBalancePoll(ctx context.Context, name string, now time.Time, every time.Duration) (bool, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE upstreams SET polled_at = $2 WHERE name = $1 AND COALESCE(polled_at, updated_at) <= $3`,
			name, ms(now), ms(now.Add(-every)))
		n, err = rowsAffected(res, err)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("store.ClaimBalancePoll %s: %w", name, err)
	}
	return n == 1, nil
}
