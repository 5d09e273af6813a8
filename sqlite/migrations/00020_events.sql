-- The stream of events: every change of an order's state (placed,
-- completed, cancelled, retried, moved to another supplier), every credit,
-- and every change an operator or a chat made to an account, written in
-- the transaction of the change (sqlstore/stream.go). Consumers read it in
-- order, each from a cursor of its own kept in event_consumers under a
-- lease, so that one node of a cluster consumes at a time.
--
-- tx orders the stream with seq: on SQLite one writer commits events in
-- seq order, so it is 0; PostgreSQL's is the writing transaction's id,
-- which lets a reader wait for transactions still open (see stream.go).

-- +goose Up
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    tx         INTEGER NOT NULL DEFAULT 0,
    id         TEXT NOT NULL UNIQUE,
    at         INTEGER NOT NULL,
    type       TEXT NOT NULL,
    account_id TEXT REFERENCES accounts (id),
    order_seq  INTEGER REFERENCES orders (seq),
    data       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_stream ON events (tx, seq);
CREATE INDEX events_account ON events (account_id, seq);
CREATE INDEX events_order ON events (order_seq) WHERE order_seq IS NOT NULL;

CREATE TABLE event_consumers (
    name        TEXT NOT NULL PRIMARY KEY,
    after_tx    INTEGER NOT NULL DEFAULT 0,
    after_seq   INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until INTEGER NOT NULL DEFAULT 0
);

-- Where the stream stood when a chat was linked: it hears of its
-- account's events after that, and of none before (chats linked before the
-- stream hear of everything from it).
ALTER TABLE chats ADD COLUMN linked_tx INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chats ADD COLUMN linked_seq INTEGER NOT NULL DEFAULT 0;

-- The orders and credits from before the stream are told of once, here,
-- so that every order and credit has its events (the audit checks it);
-- consumers start at the end of the stream, so these go to nobody.
INSERT INTO events (id, at, type, account_id, order_seq, data)
SELECT 'evt_' || lower(hex(randomblob(10))), created_at, 'order.placed', account_id, seq, '{"backfilled":true}' FROM orders ORDER BY seq;
INSERT INTO events (id, at, type, account_id, order_seq, data)
SELECT 'evt_' || lower(hex(randomblob(10))), finished_at, 'order.' || status, account_id, seq, '{"backfilled":true}'
FROM orders WHERE status IN ('completed', 'cancelled') ORDER BY finished_at, seq;
INSERT INTO events (id, at, type, account_id, data)
SELECT 'evt_' || lower(hex(randomblob(10))), created_at, 'balance.credited', account_id, '{"backfilled":true}' FROM ledger WHERE kind = 'credit' ORDER BY seq;

-- +goose Down
ALTER TABLE chats DROP COLUMN linked_seq;
ALTER TABLE chats DROP COLUMN linked_tx;
DROP TABLE event_consumers;
DROP TABLE events;
