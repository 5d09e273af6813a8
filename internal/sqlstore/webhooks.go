package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/topupd/topupd"
)

// Webhook endpoints and their events, as integration.md's "Webhooks"
// section has them; the deliveries are in webhookdelivery.go.

// webhookSealContext binds an endpoint's sealed secrets to its id.
func webhookSealContext(id string) string { return "webhook:" + id }

const webhookColumns = `id, account_id, url, events, description, enabled, disabled_reason, secret, old_secret, old_secret_until, created_at`

// scanWebhook reads an endpoint, its secrets opened.
func (s *Store) scanWebhook(row scanner) (topupd.WebhookEndpoint, error) {
	var e topupd.WebhookEndpoint
	var secret, old []byte
	var oldUntil, created int64
	if err := row.Scan(&e.ID, &e.AccountID, &e.URL, jsonColumn(&e.Events), &e.Description, &e.Enabled, &e.DisabledReason, &secret, &old, &oldUntil, &created); err != nil {
		return e, err
	}
	var err error
	if e.Secret, err = s.vault.Open(webhookSealContext(e.ID), secret); err != nil {
		return e, fmt.Errorf("webhook %s secret: %w", e.ID, err)
	}
	if old != nil {
		if e.OldSecret, err = s.vault.Open(webhookSealContext(e.ID), old); err != nil {
			return e, fmt.Errorf("webhook %s old secret: %w", e.ID, err)
		}
		e.OldSecretUntil = fromMS(oldUntil)
	}
	e.CreatedAt = fromMS(created)
	return e, nil
}

// webhookIn reads an endpoint in a transaction, locking its row.
func (s *Store) webhookIn(ctx context.Context, tx *sql.Tx, id string) (topupd.WebhookEndpoint, error) {
	e, err := s.scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = $1`+s.d.LockRow, id))
	if isNoRows(err) {
		return e, topupd.Errorf(topupd.ENotFound, "webhook endpoint %s", id)
	}
	return e, err
}

// eventsText stores an endpoint's event types: [] for every one.
func eventsText(events []string) string {
	if events == nil {
		events = []string{}
	}
	return jsonText(events)
}

// CreateWebhook stores a new endpoint, its secret sealed: EWebhookLimit
// when the account has its MaxWebhookEndpoints already (counted under the
// account's lock), ENotFound for no such account.
func (s *Store) CreateWebhook(ctx context.Context, ch *topupd.Change, e topupd.WebhookEndpoint) (topupd.WebhookEndpoint, error) {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		ok, err := s.lockAccount(ctx, tx, e.AccountID)
		if err != nil {
			return err
		}
		if !ok {
			return topupd.Errorf(topupd.ENotFound, "account %s", e.AccountID)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_endpoints WHERE account_id = $1`, e.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= topupd.MaxWebhookEndpoints {
			return topupd.Errorf(topupd.EWebhookLimit, "an account has at most %d webhook endpoints", topupd.MaxWebhookEndpoints)
		}
		noteChange(ctx, e.AccountID, map[string]any{}, e.LogFields())
		_, err = tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (id, account_id, url, events, description, enabled, disabled_reason, secret, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, '', $7, $8)`,
			e.ID, e.AccountID, e.URL, eventsText(e.Events), e.Description, boolInt(e.Enabled), s.vault.Seal(webhookSealContext(e.ID), e.Secret), ms(e.CreatedAt))
		return err
	})
	if err != nil {
		return e, fmt.Errorf("store.CreateWebhook %s: %w", e.AccountID, err)
	}
	return e, nil
}

// Webhook returns one endpoint with its secrets.
func (s *Store) Webhook(ctx context.Context, id string) (topupd.WebhookEndpoint, error) {
	e, err := s.scanWebhook(s.read.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE id = $1`, id))
	if isNoRows(err) {
		return e, topupd.Errorf(topupd.ENotFound, "webhook endpoint %s", id)
	}
	if err != nil {
		return e, fmt.Errorf("store.Webhook %s: %w", id, err)
	}
	return e, nil
}

// Webhooks lists an account's endpoints, oldest first.
func (s *Store) Webhooks(ctx context.Context, accountID string) ([]topupd.WebhookEndpoint, error) {
	out, err := queryAll(ctx, s.read, s.scanWebhook, `SELECT `+webhookColumns+` FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("store.Webhooks %s: %w", accountID, err)
	}
	return out, nil
}

// UpdateWebhook patches an endpoint. Enabling it clears why it was
// disabled and starts its count of failing days afresh.
func (s *Store) UpdateWebhook(ctx context.Context, ch *topupd.Change, id string, p topupd.WebhookPatch) (topupd.WebhookEndpoint, error) {
	ctx = withChange(ctx, ch)
	var e topupd.WebhookEndpoint
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if e, err = s.webhookIn(ctx, tx, id); err != nil {
			return err
		}
		before := e.LogFields()
		if p.URL != nil {
			e.URL = *p.URL
		}
		if p.Events != nil {
			e.Events = *p.Events
		}
		if p.Description != nil {
			e.Description = *p.Description
		}
		reset := 0 // failing_since stays
		if p.Enabled != nil && *p.Enabled != e.Enabled {
			e.Enabled, e.DisabledReason = *p.Enabled, ""
			reset = 1
		}
		noteChange(ctx, e.AccountID, before, e.LogFields())
		_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET url = $2, events = $3, description = $4, enabled = $5, disabled_reason = $6,
			failing_since = failing_since * $7 WHERE id = $1`,
			id, e.URL, eventsText(e.Events), e.Description, boolInt(e.Enabled), e.DisabledReason, 1-reset)
		return err
	})
	if err != nil {
		return e, fmt.Errorf("store.UpdateWebhook %s: %w", id, err)
	}
	return e, nil
}

// DeleteWebhook removes an endpoint and its deliveries: nothing more is
// sent to it (an attempt in flight is not recorded).
func (s *Store) DeleteWebhook(ctx context.Context, ch *topupd.Change, id string) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		e, err := s.webhookIn(ctx, tx, id)
		if err != nil {
			return err
		}
		noteChange(ctx, e.AccountID, e.LogFields(), map[string]any{"deleted": true})
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE endpoint_id = $1`, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM webhook_endpoints WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("store.DeleteWebhook %s: %w", id, err)
	}
	return nil
}

// RotateWebhookSecret makes secret the endpoint's and keeps the current
// one, which deliveries are signed with as well, until until.
func (s *Store) RotateWebhookSecret(ctx context.Context, ch *topupd.Change, id, secret string, until time.Time) error {
	ctx = withChange(ctx, ch)
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		e, err := s.webhookIn(ctx, tx, id)
		if err != nil {
			return err
		}
		noteChange(ctx, e.AccountID, map[string]any{}, map[string]any{"secretRotated": true, "oldSecretUntil": until.UTC().Format(time.RFC3339)})
		seal := webhookSealContext(id)
		_, err = tx.ExecContext(ctx, `UPDATE webhook_endpoints SET secret = $2, old_secret = $3, old_secret_until = $4 WHERE id = $1`,
			id, s.vault.Seal(seal, secret), s.vault.Seal(seal, e.Secret), ms(until))
		return err
	})
	if err != nil {
		return fmt.Errorf("store.RotateWebhookSecret %s: %w", id, err)
	}
	return nil
}

// QueueWebhookTest writes a webhook.test event for the endpoint alone and
// queues its delivery, due at once.
func (s *Store) QueueWebhookTest(ctx context.Context, endpointID string, now time.Time) (topupd.WebhookEvent, error) {
	ev := topupd.WebhookEvent{ID: topupd.NewEventID(now), Type: topupd.WebhookTest, At: now, Data: []byte("{}"), EndpointID: endpointID}
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		e, err := s.webhookIn(ctx, tx, endpointID)
		if err != nil {
			return err
		}
		ev.AccountID = e.AccountID
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, account_id, type, at, data, endpoint_id) VALUES ($1, $2, $3, $4, $5, $6)`,
			ev.ID, ev.AccountID, ev.Type, ms(now), string(ev.Data), endpointID); err != nil {
			return err
		}
		return queueDelivery(ctx, tx, endpointID, ev.ID, "", now)
	})
	if err != nil {
		return ev, fmt.Errorf("store.QueueWebhookTest %s: %w", endpointID, err)
	}
	return ev, nil
}

// queueDelivery adds a delivery of an event to an endpoint, due at now,
// unless that endpoint, event and replay have one.
func queueDelivery(ctx context.Context, tx *sql.Tx, endpointID, eventID, replay string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (endpoint_id, event_id, replay, created_at, next_at) VALUES ($1, $2, $3, $4, $4)
		ON CONFLICT (endpoint_id, event_id, replay) DO NOTHING`, endpointID, eventID, replay, ms(now))
	return err
}

// ReplayWebhook queues the endpoint's account's events that q selects, of
// the types the endpoint wants (webhook.test aside), as new deliveries of
// one replay, and says how many.
func (s *Store) ReplayWebhook(ctx context.Context, ch *topupd.Change, endpointID string, q topupd.WebhookReplay, now time.Time) (int, error) {
	ctx = withChange(ctx, ch)
	n := 0
	replay := topupd.NewID("rpl_")
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n = 0
		e, err := s.webhookIn(ctx, tx, endpointID)
		if err != nil {
			return err
		}
		var events []topupd.WebhookEvent
		if len(q.EventIDs) > 0 {
			for _, id := range q.EventIDs {
				ev, err := scanWebhookEvent(tx.QueryRowContext(ctx, `SELECT `+webhookEventColumns+` FROM webhook_events WHERE id = $1 AND account_id = $2`, id, e.AccountID))
				if isNoRows(err) {
					continue
				} else if err != nil {
					return err
				}
				events = append(events, ev)
			}
		} else {
			to := q.To
			if to.IsZero() {
				to = now.Add(time.Millisecond)
			}
			if events, err = queryAll(ctx, tx, scanWebhookEvent, `SELECT `+webhookEventColumns+` FROM webhook_events
				WHERE account_id = $1 AND at >= $2 AND at < $3 ORDER BY seq`, e.AccountID, ms(q.From), ms(to)); err != nil {
				return err
			}
		}
		for _, ev := range events {
			if ev.Type == topupd.WebhookTest || !e.Wants(ev.Type) {
				continue
			}
			if err := queueDelivery(ctx, tx, endpointID, ev.ID, replay, now); err != nil {
				return err
			}
			n++
		}
		noteChange(ctx, e.AccountID, map[string]any{}, map[string]any{"queued": n, "replay": replay})
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store.ReplayWebhook %s: %w", endpointID, err)
	}
	return n, nil
}

const webhookEventColumns = `seq, id, account_id, type, at, data, COALESCE(endpoint_id, '')`

func scanWebhookEvent(row scanner) (topupd.WebhookEvent, error) {
	var ev topupd.WebhookEvent
	var at int64
	var data string
	if err := row.Scan(&ev.Seq, &ev.ID, &ev.AccountID, &ev.Type, &at, &data, &ev.EndpointID); err != nil {
		return ev, err
	}
	ev.At, ev.Data = fromMS(at), []byte(data)
	return ev, nil
}

// AddWebhookEvents stores events and, for each one new here, queues its
// deliveries to the enabled endpoints of its account that want it (a
// webhook.test event: to its endpoint). An event told again adds nothing.
func (s *Store) AddWebhookEvents(ctx context.Context, events []topupd.WebhookEvent, now time.Time) error {
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		endpoints := map[string][]topupd.WebhookEndpoint{}
		for _, ev := range events {
			var endpoint any
			if ev.EndpointID != "" {
				endpoint = ev.EndpointID
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, account_id, type, at, data, endpoint_id) VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (id) DO NOTHING`, ev.ID, ev.AccountID, ev.Type, ms(ev.At), string(ev.Data), endpoint)
			if n, err := rowsAffected(res, err); err != nil || n == 0 {
				if err != nil {
					return fmt.Errorf("event %s: %w", ev.ID, err)
				}
				continue
			}
			// A sandbox's events go to its account's endpoints (integration.md).
			owner, _ := topupd.LiveID(ev.AccountID)
			list, ok := endpoints[owner]
			if !ok {
				if list, err = queryAll(ctx, tx, scanEndpointEvents, `SELECT id, events FROM webhook_endpoints WHERE account_id = $1 AND enabled = 1`, owner); err != nil {
					return err
				}
				endpoints[owner] = list
			}
			for _, e := range list {
				if ev.EndpointID != "" && ev.EndpointID != e.ID || ev.EndpointID == "" && !e.Wants(ev.Type) {
					continue
				}
				if err := queueDelivery(ctx, tx, e.ID, ev.ID, "", now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.AddWebhookEvents: %w", err)
	}
	return nil
}

// scanEndpointEvents reads an endpoint's id and the types it wants.
func scanEndpointEvents(row scanner) (topupd.WebhookEndpoint, error) {
	var e topupd.WebhookEndpoint
	return e, row.Scan(&e.ID, jsonColumn(&e.Events))
}

// WebhookEvents pages an account's events oldest first (webhook.test
// aside), after the event named ("" for the oldest kept): EInvalidRequest
// for an event that is unknown, another account's, or a test. It says
// whether more follow.
func (s *Store) WebhookEvents(ctx context.Context, accountID, after string, limit int) ([]topupd.WebhookEvent, bool, error) {
	var from int64
	if after != "" {
		var account, typ string
		err := s.read.QueryRowContext(ctx, `SELECT seq, account_id, type FROM webhook_events WHERE id = $1`, after).Scan(&from, &account, &typ)
		if isNoRows(err) || err == nil && (account != accountID || typ == topupd.WebhookTest) {
			return nil, false, topupd.Errorf(topupd.EInvalidRequest, "after: no event %s of this account", after)
		}
		if err != nil {
			return nil, false, fmt.Errorf("store.WebhookEvents %s: %w", accountID, err)
		}
	}
	out, err := queryAll(ctx, s.read, scanWebhookEvent, `SELECT `+webhookEventColumns+` FROM webhook_events
		WHERE account_id = $1 AND seq > $2 AND type <> $3 ORDER BY seq LIMIT $4`, accountID, from, topupd.WebhookTest, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("store.WebhookEvents %s: %w", accountID, err)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// DeleteWebhookEvents deletes the events from before t with their
// deliveries, and says how many events.
func (s *Store) DeleteWebhookEvents(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE at < $1)`, ms(before)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM webhook_events WHERE at < $1`, ms(before))
		n, err = rowsAffected(res, err)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store.DeleteWebhookEvents: %w", err)
	}
	return int(n), nil
}

// DisabledWebhooks lists the endpoints the server disabled, of every
// account, oldest first, without their secrets.
func (s *Store) DisabledWebhooks(ctx context.Context) ([]topupd.WebhookEndpoint, error) {
	out, err := queryAll(ctx, s.read, func(row scanner) (topupd.WebhookEndpoint, error) {
		var e topupd.WebhookEndpoint
		err := row.Scan(&e.ID, &e.AccountID, &e.URL, &e.DisabledReason)
		return e, err
	}, `SELECT id, account_id, url, disabled_reason FROM webhook_endpoints WHERE enabled = 0 AND disabled_reason <> '' ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store.DisabledWebhooks: %w", err)
	}
	return out, nil
}
