-- The stream of events: every change of an order's state (placed,
-- completed, cancelled, retried, moved to another supplier), every credit,
-- and every change an operator or a chat made to an account, written in
-- the transaction of the change (sqlstore/stream.go). Consumers read it in
-- order, each from a cursor of its own kept in event_consumers under a
-- lease, so that one node of a cluster consumes at a time.
--
-- tx orders the stream with seq: it is the writing transaction's id, so a
-- reader can pass over the events of transactions still open (seq is taken
-- at insert, but transactions commit in any order): it reads only below
-- the oldest transaction still running, in (tx, seq) order (stream.go).

-- +goose Up
CREATE TABLE events (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx         BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
    id         TEXT NOT NULL UNIQUE,
    at         BIGINT NOT NULL,
    type       TEXT NOT NULL,
    account_id TEXT REFERENCES accounts (id),
    order_seq  BIGINT REFERENCES orders (seq),
    data       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_stream ON events (tx, seq);
CREATE INDEX events_account ON events (account_id, seq);
CREATE INDEX events_order ON events (order_seq) WHERE order_seq IS NOT NULL;

CREATE TABLE event_consumers (
    name        TEXT PRIMARY KEY,
    after_tx    BIGINT NOT NULL DEFAULT 0,
    after_seq   BIGINT NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until BIGINT NOT NULL DEFAULT 0
);

-- Where the stream stood when a chat was linked: it hears of its
-- account's events after that, and of none before (chats linked before the
-- stream hear of everything from it).
ALTER TABLE chats ADD COLUMN linked_tx BIGINT NOT NULL DEFAULT 0;
ALTER TABLE chats ADD COLUMN linked_seq BIGINT NOT NULL DEFAULT 0;

-- The orders and credits from before the stream are told of once, here,
-- so that every order and credit has its events (the audit checks it);
-- consumers start at the end of the stream, so these go to nobody.
INSERT INTO events (id, at, type, account_id, order_seq, data)
SELECT 'evt_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), created_at, 'order.placed', account_id, seq, '{"backfilled":true}' FROM orders ORDER BY seq;
INSERT INTO events (id, at, type, account_id, order_seq, data)
SELECT 'evt_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), finished_at, 'order.' || status, account_id, seq, '{"backfilled":true}'
FROM orders WHERE status IN ('completed', 'cancelled') ORDER BY finished_at, seq;
INSERT INTO events (id, at, type, account_id, data)
SELECT 'evt_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20), created_at, 'balance.credited', account_id, '{"backfilled":true}' FROM ledger WHERE kind = 'credit' ORDER BY seq;

-- +goose Down
ALTER TABLE chats DROP COLUMN linked_seq;
ALTER TABLE chats DROP COLUMN linked_tx;
DROP TABLE event_consumers;
DROP TABLE events;
