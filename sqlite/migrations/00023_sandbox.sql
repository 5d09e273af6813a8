-- The sandbox (integration.md): an account's sandbox keys use books of
-- their own, kept apart from the live ones by the schema rather than by the
-- code that reads them.
--
-- An account's sandbox is an account row of its own, named after the live
-- account (its id and '~sandbox'), whose sandbox_of names it: its balance is
-- its own ledger chain, its orders its own (the ledger already refuses an
-- entry of an order of another account), its events its own. A sandbox
-- order carries sandbox = 1, which must agree with its account; it never
-- holds a code (so it can never draw a live one) and never enters the sales
-- roll-up. A trxid is unique among the live orders and, apart, among the
-- sandbox ones; orders.trxid was UNIQUE by itself, so the table is rebuilt
-- here with every index and trigger it had.

-- +goose Up
ALTER TABLE accounts ADD COLUMN sandbox_of TEXT REFERENCES accounts (id);
CREATE UNIQUE INDEX accounts_sandbox_of ON accounts (sandbox_of) WHERE sandbox_of IS NOT NULL;

-- +goose StatementBegin
CREATE TRIGGER accounts_sandbox_named BEFORE INSERT ON accounts
BEGIN
    SELECT RAISE(ABORT, 'accounts: a sandbox is named after the live account it belongs to')
    WHERE (NEW.sandbox_of IS NULL AND NEW.id LIKE '%~sandbox')
       OR (NEW.sandbox_of IS NOT NULL AND (NEW.id IS NOT NEW.sandbox_of || '~sandbox'
           OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = NEW.sandbox_of AND sandbox_of IS NULL)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER accounts_sandbox_fixed BEFORE UPDATE OF id, sandbox_of ON accounts
WHEN NEW.id IS NOT OLD.id OR NEW.sandbox_of IS NOT OLD.sandbox_of
BEGIN
    SELECT RAISE(ABORT, 'accounts: an account never becomes, or stops being, a sandbox');
END;
-- +goose StatementEnd

ALTER TABLE api_keys ADD COLUMN sandbox INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1));

-- +goose StatementBegin
CREATE TRIGGER api_keys_of_live_accounts BEFORE INSERT ON api_keys
BEGIN
    SELECT RAISE(ABORT, 'api_keys: a key belongs to a live account; a sandbox key is flagged sandbox')
    WHERE EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND sandbox_of IS NOT NULL);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER api_keys_sandbox_fixed BEFORE UPDATE OF sandbox, account_id ON api_keys
WHEN NEW.sandbox IS NOT OLD.sandbox OR NEW.account_id IS NOT OLD.account_id
BEGIN
    SELECT RAISE(ABORT, 'api_keys: a key never changes account or books');
END;
-- +goose StatementEnd

-- The rebuild of orders. Its rows are copied aside and back, so that the
-- rows of codes, ledger, events and the rest that point at them find them
-- again before the transaction commits (defer_foreign_keys); the rename
-- leaves the other tables' triggers as they are (legacy_alter_table).
PRAGMA defer_foreign_keys = ON;
PRAGMA legacy_alter_table = ON;
CREATE TEMP TABLE orders_copy AS SELECT * FROM orders;
CREATE TABLE orders_new (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    account_seq     INTEGER NOT NULL CHECK (account_seq >= 1),
    trxid           TEXT NOT NULL,
    idem_key        TEXT NOT NULL,
    fingerprint     TEXT NOT NULL,
    pid             TEXT NOT NULL,
    slug            TEXT NOT NULL,
    game            TEXT NOT NULL,
    kind            TEXT NOT NULL,
    pack_name       TEXT NOT NULL,
    provider        TEXT NOT NULL,
    quantity        INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 500),
    amount          INTEGER NOT NULL CHECK (amount > 0),
    user_id         TEXT NOT NULL DEFAULT '',
    zone_id         TEXT NOT NULL DEFAULT '',
    server_id       TEXT NOT NULL DEFAULT '',
    region          TEXT NOT NULL DEFAULT '',
    more_id         TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'cancelled')),
    error           TEXT NOT NULL DEFAULT '',
    refunded        INTEGER NOT NULL DEFAULT 0 CHECK (refunded IN (0, 1)),
    created_at      INTEGER NOT NULL,
    finished_at     INTEGER,
    deadline_at     INTEGER NOT NULL,
    supplier        TEXT NOT NULL DEFAULT 'new' CHECK (supplier IN ('new', 'submitting', 'accepted')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    lease_owner     TEXT,
    lease_until     INTEGER,
    upstream        TEXT NOT NULL DEFAULT '',
    upstream_pid    TEXT NOT NULL DEFAULT '',
    supplier_ref    TEXT NOT NULL DEFAULT '',
    code_count      INTEGER NOT NULL DEFAULT 0 CHECK (code_count >= 0),
    alert           TEXT NOT NULL DEFAULT '',
    cost            INTEGER CHECK (cost >= 0),
    sandbox         INTEGER NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1)),
    UNIQUE (account_id, account_seq),
    CHECK ((status = 'processing') = (finished_at IS NULL)),
    CHECK (refunded = 0 OR status = 'cancelled')
);
DROP TABLE orders;
ALTER TABLE orders_new RENAME TO orders;
PRAGMA legacy_alter_table = OFF;
INSERT INTO orders (seq, id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
    quantity, amount, user_id, zone_id, server_id, region, more_id, status, error, refunded, created_at, finished_at, deadline_at,
    supplier, attempts, next_attempt_at, lease_owner, lease_until, upstream, upstream_pid, supplier_ref, code_count, alert, cost)
SELECT seq, id, account_id, account_seq, trxid, idem_key, fingerprint, pid, slug, game, kind, pack_name, provider,
    quantity, amount, user_id, zone_id, server_id, region, more_id, status, error, refunded, created_at, finished_at, deadline_at,
    supplier, attempts, next_attempt_at, lease_owner, lease_until, upstream, upstream_pid, supplier_ref, code_count, alert, cost
FROM orders_copy ORDER BY seq;
DROP TABLE orders_copy;

-- A trxid is the live orders' or the sandbox's: one order per trxid in each.
CREATE UNIQUE INDEX orders_trxid ON orders (trxid, sandbox);
CREATE UNIQUE INDEX orders_idem_key ON orders (account_id, idem_key);
CREATE INDEX orders_due ON orders (status, next_attempt_at) WHERE status = 'processing';
CREATE INDEX orders_status ON orders (status, created_at, seq);
CREATE INDEX orders_account ON orders (account_id, created_at, seq);
CREATE INDEX orders_pack ON orders (pid, created_at, seq);
CREATE INDEX orders_line ON orders (slug, created_at, seq);
CREATE INDEX orders_provider ON orders (provider, created_at, seq);
CREATE INDEX orders_created ON orders (created_at, seq);
CREATE INDEX orders_stuck ON orders (provider, upstream, deadline_at, alert) WHERE status = 'processing';
-- The operator's list of sandbox orders.
CREATE INDEX orders_sandbox ON orders (created_at, seq) WHERE sandbox = 1;

-- +goose StatementBegin
CREATE TRIGGER orders_no_delete BEFORE DELETE ON orders
BEGIN
    SELECT RAISE(ABORT, 'orders: orders are never deleted');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_cost_on_insert BEFORE INSERT ON orders
WHEN (NEW.status = 'completed') <> (NEW.cost IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_cost_once BEFORE UPDATE OF status, cost ON orders
WHEN (OLD.status = 'processing' AND (NEW.status = 'completed') <> (NEW.cost IS NOT NULL))
  OR (OLD.cost IS NOT NULL AND NEW.cost IS NOT OLD.cost)
BEGIN
    SELECT RAISE(ABORT, 'orders: a completed order, and only a completed order, has a cost, fixed once');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_within_limits BEFORE INSERT ON orders
BEGIN
    SELECT RAISE(ABORT, 'orders: above the account''s spending limit')
    FROM accounts a
    WHERE a.id = NEW.account_id
      AND (NEW.amount > a.max_order
        OR NEW.amount + COALESCE((SELECT SUM(charged - refunds) FROM sales_daily
                                  WHERE account_id = NEW.account_id AND day = NEW.created_at / 86400000), 0) > a.daily_limit);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_price_fixed BEFORE UPDATE OF amount, quantity ON orders
WHEN (NEW.amount IS NOT OLD.amount AND OLD.status = 'processing') OR NEW.quantity IS NOT OLD.quantity
BEGIN
    SELECT RAISE(ABORT, 'orders: the price an order charged never changes');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
WHEN OLD.status <> 'processing'
BEGIN
    SELECT RAISE(ABORT, 'orders: a final order cannot change');
END;
-- +goose StatementEnd

-- A sandbox order is its sandbox's, and a live order a live account's.
-- +goose StatementBegin
CREATE TRIGGER orders_sandbox_books BEFORE INSERT ON orders
BEGIN
    SELECT RAISE(ABORT, 'orders: a sandbox order belongs to a sandbox, a live order to a live account')
    WHERE NEW.sandbox IS NOT (SELECT sandbox_of IS NOT NULL FROM accounts WHERE id = NEW.account_id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_sandbox_fixed BEFORE UPDATE OF sandbox, account_id ON orders
WHEN OLD.status = 'processing' AND (NEW.sandbox IS NOT OLD.sandbox OR NEW.account_id IS NOT OLD.account_id)
BEGIN
    SELECT RAISE(ABORT, 'orders: an order never changes account or books');
END;
-- +goose StatementEnd

-- A sandbox order is given no code: its TEST- codes are drawn from no stock.
-- +goose StatementBegin
CREATE TRIGGER codes_live_orders_only BEFORE INSERT ON codes
WHEN NEW.order_seq IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'codes: a sandbox order is given no code')
    WHERE (SELECT sandbox FROM orders WHERE seq = NEW.order_seq) IS NOT 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_drawn_by_live_orders_only BEFORE UPDATE OF order_seq ON codes
WHEN NEW.order_seq IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'codes: a sandbox order is given no code')
    WHERE (SELECT sandbox FROM orders WHERE seq = NEW.order_seq) IS NOT 0;
END;
-- +goose StatementEnd

-- The sales roll-up (reports, spending limits) holds live orders alone.
-- +goose StatementBegin
CREATE TRIGGER sales_daily_live_only BEFORE INSERT ON sales_daily
BEGIN
    SELECT RAISE(ABORT, 'sales_daily: the sales roll-up holds live orders alone')
    WHERE EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND sandbox_of IS NOT NULL);
END;
-- +goose StatementEnd

-- +goose Down
-- The sandbox's rows stay (orders and the ledger are never deleted); the
-- rules that keep them apart go, and trxids are unique across both again
-- (which fails while a sandbox order shares a live order's trxid).
DROP TRIGGER sales_daily_live_only;
DROP TRIGGER codes_drawn_by_live_orders_only;
DROP TRIGGER codes_live_orders_only;
DROP TRIGGER orders_sandbox_fixed;
DROP TRIGGER orders_sandbox_books;
DROP INDEX orders_sandbox;
DROP INDEX orders_trxid;
CREATE UNIQUE INDEX orders_trxid ON orders (trxid);
DROP TRIGGER api_keys_sandbox_fixed;
DROP TRIGGER api_keys_of_live_accounts;
ALTER TABLE api_keys DROP COLUMN sandbox;
DROP TRIGGER accounts_sandbox_fixed;
DROP TRIGGER accounts_sandbox_named;
DROP INDEX accounts_sandbox_of;
