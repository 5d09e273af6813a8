-- Webhooks (integration.md "Webhooks"): the endpoints an account
-- registers, the events pushed to them (and pulled with GET /events), and
-- each delivery of an event to an endpoint with its attempts.
--
-- webhook_events is what the webhooks notifier made of the event stream
-- (sqlstore/stream.go) for one account: the stream event's own id, its
-- type as the integrator knows it and its data as sent. A webhook.test
-- event names the one endpoint it is for. Deliveries are claimed under a
-- lease (lease_owner, lease_until), so that one node makes each attempt; a
-- delivery is unique per endpoint, event and replay ('' for the first), so
-- a notifier that tells an event again adds nothing.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id               TEXT NOT NULL PRIMARY KEY,
    account_id       TEXT NOT NULL REFERENCES accounts (id),
    url              TEXT NOT NULL,
    events           TEXT NOT NULL DEFAULT '[]',
    description      TEXT NOT NULL DEFAULT '',
    enabled          SMALLINT NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    disabled_reason  TEXT NOT NULL DEFAULT '',
    secret           BYTEA NOT NULL,
    old_secret       BYTEA,
    old_secret_until BIGINT NOT NULL DEFAULT 0,
    created_at       BIGINT NOT NULL,
    failing_since    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    type        TEXT NOT NULL,
    at          BIGINT NOT NULL,
    data        TEXT NOT NULL DEFAULT '{}',
    endpoint_id TEXT
);
CREATE INDEX webhook_events_account ON webhook_events (account_id, seq);
CREATE INDEX webhook_events_at ON webhook_events (at);

CREATE TABLE webhook_deliveries (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint_id     TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    replay          TEXT NOT NULL DEFAULT '',
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    next_at         BIGINT NOT NULL,
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    last_attempt_at BIGINT NOT NULL DEFAULT 0,
    delivered_at    BIGINT NOT NULL DEFAULT 0,
    lease_owner     TEXT,
    lease_until     BIGINT NOT NULL DEFAULT 0,
    UNIQUE (endpoint_id, event_id, replay)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_endpoints;
