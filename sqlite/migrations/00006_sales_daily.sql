-- Daily sales roll-ups: per UTC day of an order's creation, account, pack,
-- line and provider, the orders and their states, what they were charged,
-- what completed ones brought in and what was refunded. The store keeps each
-- row in the same transaction as the order it counts (placed, then
-- settled), so a report of a month reads a few thousand rows instead of
-- every order; /admin/audit checks the roll-ups against the orders.

-- +goose Up
CREATE TABLE sales_daily (
    day        INTEGER NOT NULL,
    account_id TEXT NOT NULL,
    pid        TEXT NOT NULL,
    slug       TEXT NOT NULL,
    provider   TEXT NOT NULL,
    orders     INTEGER NOT NULL DEFAULT 0 CHECK (orders >= 0),
    completed  INTEGER NOT NULL DEFAULT 0 CHECK (completed >= 0),
    cancelled  INTEGER NOT NULL DEFAULT 0 CHECK (cancelled >= 0),
    processing INTEGER NOT NULL DEFAULT 0 CHECK (processing >= 0),
    charged    INTEGER NOT NULL DEFAULT 0,
    revenue    INTEGER NOT NULL DEFAULT 0,
    refunds    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, account_id, pid, slug, provider)
);

INSERT INTO sales_daily (day, account_id, pid, slug, provider, orders, completed, cancelled, processing, charged, revenue, refunds)
SELECT created_at / 86400000, account_id, pid, slug, provider, COUNT(*),
       SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END),
       SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END),
       SUM(CASE WHEN status = 'processing' THEN 1 ELSE 0 END),
       SUM(amount),
       SUM(CASE WHEN status = 'completed' THEN amount ELSE 0 END),
       SUM(CASE WHEN refunded = 1 THEN amount ELSE 0 END)
FROM orders GROUP BY created_at / 86400000, account_id, pid, slug, provider;

-- Orders by creation time: the edges of a report that are not whole days.
CREATE INDEX orders_created ON orders (created_at);

-- +goose Down
DROP INDEX orders_created;
DROP TABLE sales_daily;
