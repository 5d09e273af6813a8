package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/topupd/topupd"
)

const deliveryColumns = `d.seq, d.endpoint_id, d.event_id, ev.type, d.state, d.attempts, d.last_status, d.last_error,
	d.created_at, d.next_at, d.last_attempt_at, d.delivered_at`

func scanDelivery(row scanner) (topupd.WebhookDelivery, error) {
	var d topupd.WebhookDelivery
	var created, next, last, delivered int64
	if err := row.Scan(&d.Seq, &d.EndpointID, &d.EventID, &d.Type, &d.State, &d.Attempts, &d.LastStatus, &d.LastError,
		&created, &next, &last, &delivered); err != nil {
		return d, err
	}
	d.CreatedAt, d.NextAt = fromMS(created), fromMS(next)
	if last != 0 {
		d.LastAttemptAt = fromMS(last)
	}
	if delivered != 0 {
		d.DeliveredAt = fromMS(delivered)
	}
	return d, nil
}

// WebhookDeliveries lists an endpoint's deliveries, newest first, from
// after before (by its Seq) when set.
func (s *Store) WebhookDeliveries(ctx context.Context, endpointID string, before *topupd.ListKey, limit int) ([]topupd.WebhookDelivery, error) {
	var below int64 = 1<<63 - 1
	if before != nil {
		below = before.Seq
	}
	out, err := queryAll(ctx, s.read, scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
		WHERE d.endpoint_id = $1 AND d.seq < $2 ORDER BY d.seq DESC LIMIT $3`, endpointID, below, limit)
	if err != nil {
		return nil, fmt.Errorf("store.WebhookDeliveries %s: %w", endpointID, err)
	}
	return out, nil
}

// ClaimWebhookDeliveries leases up to limit due deliveries of enabled
// endpoints to owner until until (on PostgreSQL passing over those another
// node is claiming), and answers each with its endpoint and event.
func (s *Store) ClaimWebhookDeliveries(ctx context.Context, owner string, now, until time.Time, limit int) ([]topupd.WebhookJob, error) {
	var out []topupd.WebhookJob
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out = nil
		claimed, err := queryAll(ctx, tx, scanInt64, claimDeliveriesSQL(s.d), owner, ms(until), ms(now), limit)
		if err != nil || len(claimed) == 0 {
			return err
		}
		slices.Sort(claimed) // RETURNING's rows come in no order: by seq on both databases

		endpoints := map[string]topupd.WebhookEndpoint{}
		for _, seq := range claimed {
			var j topupd.WebhookJob
			if j.Delivery, err = scanDelivery(tx.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d
				JOIN webhook_events ev ON ev.id = d.event_id WHERE d.seq = $1`, seq)); err != nil {
				return fmt.Errorf("delivery %d: %w", seq, err)
			}
			if j.Event, err = scanWebhookEvent(tx.QueryRowContext(ctx, `SELECT `+webhookEventColumns+` FROM webhook_events WHERE id = $1`, j.Delivery.EventID)); err != nil {
				return fmt.Errorf("delivery %d: event: %w", seq, err)
			}
			e, ok := endpoints[j.Delivery.EndpointID]
			if !ok {
				if e, err = s.scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = $1`, j.Delivery.EndpointID)); err != nil {
					return fmt.Errorf("delivery %d: endpoint: %w", seq, err)
				}
				endpoints[e.ID] = e
			}
			j.Endpoint = e
			out = append(out, j)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store.ClaimWebhookDeliveries: %w", err)
	}
	return out, nil
}

// claimDeliveriesSQL leases the due deliveries of enabled endpoints,
// oldest first (by seq among those due at once): $1 owner, $2 lease end, $3 now, $4 limit. The endpoint is
// checked per row (EXISTS), not with endpoint_id IN (…), which led SQLite
// to read every delivery an endpoint ever had through its endpoint index
// and sort them, each claim costing as much as the endpoint's history;
// this way the due index serves it (TestHotQueriesUseIndexes).
func claimDeliveriesSQL(d Dialect) string {
	return `UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2
		WHERE seq IN (SELECT d.seq FROM webhook_deliveries d
			WHERE d.state = 'pending' AND d.next_at <= $3 AND d.lease_until <= $3
				AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.enabled = 1)
			ORDER BY d.next_at, d.seq LIMIT $4` + d.SkipLocked + `)
		RETURNING seq`
}

func scanInt64(row scanner) (int64, error) {
	var v int64
	err := row.Scan(&v)
	return v, err
}

// RecordWebhookAttempt records an attempt of a delivery that owner holds
// (EConflict when it no longer does: its lease ran out and another node
// took it, or the endpoint was deleted) and lets the delivery go: delivered,
// failed, or pending until a.NextAt. A 410 disables the endpoint at once
// (gone); a failure WebhookFailingAfter or more after the first failure
// since the last success, with a failed delivery, disables it too
// (failing). Disabling is an event of the stream (webhook.disabled), in
// the same transaction; the reason is answered.
func (s *Store) RecordWebhookAttempt(ctx context.Context, a topupd.WebhookAttempt) (string, error) {
	var reason string
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		reason = ""
		var endpointID string
		err := tx.QueryRowContext(ctx, `SELECT endpoint_id FROM webhook_deliveries WHERE seq = $1 AND lease_owner = $2 AND state = 'pending'`+s.d.LockRow,
			a.Seq, a.Owner).Scan(&endpointID)
		if isNoRows(err) {
			return topupd.Errorf(topupd.EConflict, "delivery %d is not leased to %s", a.Seq, a.Owner)
		} else if err != nil {
			return err
		}
		state, next, delivered := topupd.DeliveryPending, a.NextAt, int64(0)
		switch {
		case a.OK:
			state, next, delivered = topupd.DeliveryDelivered, a.At, ms(a.At)
		case a.Gone || a.NextAt.IsZero():
			state, next = topupd.DeliveryFailed, a.At
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = $2, attempts = attempts + 1, last_status = $3, last_error = $4,
			last_attempt_at = $5, next_at = $6, delivered_at = $7, lease_owner = NULL, lease_until = 0 WHERE seq = $1`,
			a.Seq, state, a.Status, a.Error, ms(a.At), ms(next), delivered); err != nil {
			return err
		}
		var account, url string
		var enabled bool
		var failingSince int64
		err = tx.QueryRowContext(ctx, `SELECT account_id, url, enabled, failing_since FROM webhook_endpoints WHERE id = $1`+s.d.LockRow, endpointID).
			Scan(&account, &url, &enabled, &failingSince)
		if err != nil {
			return err
		}
		switch {
		case a.OK:
			_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = 0 WHERE id = $1 AND failing_since <> 0`, endpointID)
			return err
		case !enabled:
			return nil
		case a.Gone:
			reason = topupd.WebhookGone
		case failingSince == 0:
			_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1`, endpointID, ms(a.At))
			return err
		case a.At.Sub(fromMS(failingSince)) >= topupd.WebhookFailingAfter:
			var failed int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND state = 'failed'`, endpointID).Scan(&failed); err != nil {
				return err
			}
			if failed > 0 {
				reason = topupd.WebhookFailing
			}
		}
		if reason == "" {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $2 WHERE id = $1`, endpointID, reason); err != nil {
			return err
		}
		return emit(ctx, tx, event(&topupd.WebhookDisabledData{EndpointID: endpointID, URL: url, Reason: reason, Status: a.Status}, account, a.At))
	})
	if err != nil {
		return "", fmt.Errorf("store.RecordWebhookAttempt %d: %w", a.Seq, err)
	}
	return reason, nil
}

// ReleaseWebhookDeliveries gives up owner's leases on deliveries still
// pending: another node may attempt them at once.
func (s *Store) ReleaseWebhookDeliveries(ctx context.Context, owner string) error {
	if _, err := s.retryExec(ctx, `UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = 0 WHERE lease_owner = $1 AND state = 'pending'`, owner); err != nil {
		return fmt.Errorf("store.ReleaseWebhookDeliveries %s: %w", owner, err)
	}
	return nil
}
