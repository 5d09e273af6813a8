package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/topupd/topupd"
)

func scanSettings(row scanner) (topupd.Settings, error) {
	var st topupd.Settings
	var at, bank sql.NullString
	err := row.Scan(&st.Maintenance, &st.OrdersDisabled, &st.EligibilityMinTopup, &st.SimDelayMs, &st.SimCallMs, &st.UpstreamBalancePollMinutes, &at,
		&bank, &st.DepositTicketHours, &st.DepositSecondApprovalAbove, &st.HoldAbove,
		&st.DisputeWindowDays, &st.DisputeAnswerHours)
	st.ReconcileAt = at.String
	if err == nil && bank.Valid {
		st.DepositBank = new(topupd.DepositBank)
		err = json.Unmarshal([]byte(bank.String), st.DepositBank)
	}
	return st, err
}

// bankJSON stores a deposit bank as JSON, nil as NULL.
func bankJSON(b *topupd.DepositBank) (any, error) {
	if b == nil {
		return nil, nil
	}
	raw, err := json.Marshal(b)
	return string(raw), err
}

// Settings returns the operator's settings.
func (s *Store) Settings(ctx context.Context) (topupd.Settings, error) {
	st, err := scanSettings(s.read.QueryRowContext(ctx, `SELECT `+settingsColumns+` FROM settings WHERE id = 1`))
	if err != nil {
		return st, fmt.Errorf("store.Settings: %w", err)
	}
	return st, nil
}

// UpdateSettings applies a patch to the settings, holding their row lock so
// that concurrent patches do not undo one another.
func (s *Store) UpdateSettings(ctx context.Context, ch *topupd.Change, p topupd.SettingsPatch) (topupd.Settings, error) {
	ctx = withChange(ctx, ch)
	var out topupd.Settings
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		cur, err := scanSettings(tx.QueryRowContext(ctx, s.q.lockSettings))
		if err != nil {
			return err
		}
		if out, err = p.Apply(cur); err != nil {
			return err
		}
		bank, err := bankJSON(out.DepositBank)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE settings SET maintenance = $1, orders_disabled = $2, eligibility_min_topup = $3,
			sim_delay_ms = $4, sim_call_ms = $5, upstream_balance_poll_minutes = $6, reconcile_at = $7, deposit_bank = $8,
			deposit_ticket_hours = $9, deposit_second_approval_above = $10, hold_above_percent = $11,
			dispute_window_days = $12, dispute_answer_hours = $13 WHERE id = 1`,
			boolInt(out.Maintenance), boolInt(out.OrdersDisabled), int64(out.EligibilityMinTopup), out.SimDelayMs, out.SimCallMs,
			out.UpstreamBalancePollMinutes, nullString(out.ReconcileAt), bank, out.DepositTicketHours, int64(out.DepositSecondApprovalAbove),
			int64(out.HoldAbove), out.DisputeWindowDays, out.DisputeAnswerHours)
		noteChange(ctx, "", cur.LogFields(), out.LogFields())
		return err
	})
	if err != nil {
		return out, fmt.Errorf("store.UpdateSettings: %w", err)
	}
	return out, nil
}

// nullString stores "" as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
