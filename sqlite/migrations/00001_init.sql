-- The first schema of topupd on SQLite. Times are Unix milliseconds; money is
-- an integer count of ten-thousandths of a USD. The constraints and triggers
-- here, not the Go code, are what keep balances, stock and orders right.

-- +goose Up
CREATE TABLE accounts (
    id                    TEXT PRIMARY KEY,
    name                  TEXT NOT NULL,
    api_enabled           INTEGER NOT NULL DEFAULT 1 CHECK (api_enabled IN (0, 1)),
    admin_disabled        INTEGER NOT NULL DEFAULT 0 CHECK (admin_disabled IN (0, 1)),
    banned                INTEGER NOT NULL DEFAULT 0 CHECK (banned IN (0, 1)),
    restricted_until      INTEGER,
    ip_allowlist          TEXT NOT NULL DEFAULT '[]',
    ip_allowlist_required INTEGER NOT NULL DEFAULT 0 CHECK (ip_allowlist_required IN (0, 1)),
    order_count           INTEGER NOT NULL DEFAULT 0 CHECK (order_count >= 0),
    created_at            INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    hash       BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);

CREATE TABLE lines (
    slug              TEXT PRIMARY KEY,
    product_name      TEXT NOT NULL,
    game_name         TEXT NOT NULL,
    game              TEXT NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('topup', 'subscription', 'gamekey', 'giftcard')),
    status            TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    required          TEXT NOT NULL DEFAULT '[]',
    server_id_options TEXT,
    region_options    TEXT
);

CREATE TABLE packs (
    pid          TEXT PRIMARY KEY,
    slug         TEXT NOT NULL,
    name         TEXT NOT NULL,
    category     TEXT NOT NULL DEFAULT '',
    price        INTEGER NOT NULL CHECK (price > 0),
    status       TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    stock_based  INTEGER NOT NULL DEFAULT 0 CHECK (stock_based IN (0, 1)),
    provider     TEXT NOT NULL DEFAULT 'sim',
    upstream     TEXT NOT NULL DEFAULT '',
    upstream_pid TEXT NOT NULL DEFAULT ''
);

CREATE TABLE orders (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    account_seq     INTEGER NOT NULL CHECK (account_seq >= 1),
    trxid           TEXT NOT NULL UNIQUE,
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
    UNIQUE (account_id, account_seq),
    CHECK ((status = 'processing') = (finished_at IS NULL)),
    CHECK (refunded = 0 OR status = 'cancelled')
);
-- The idempotency key (idempotencyKey, or else the trxid) is the account's: one order per key.
CREATE UNIQUE INDEX orders_idem_key ON orders (account_id, idem_key);
-- The fulfilment engine's queue: processing orders by when they fall due.
CREATE INDEX orders_due ON orders (status, next_attempt_at) WHERE status = 'processing';
-- The operator's listing by status.
CREATE INDEX orders_status ON orders (status, seq);

-- +goose StatementBegin
CREATE TRIGGER orders_final_is_final BEFORE UPDATE OF status, refunded, amount, account_id ON orders
WHEN OLD.status <> 'processing'
BEGIN
    SELECT RAISE(ABORT, 'orders: a final order cannot change');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER orders_no_delete BEFORE DELETE ON orders
BEGIN
    SELECT RAISE(ABORT, 'orders: orders are never deleted');
END;
-- +goose StatementEnd

-- The ledger is a chain per account: each entry's balance_after is the one
-- before it plus its amount, and never below zero. The balance is the newest
-- entry's balance_after, so it always equals the sum of the entries.
CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL CHECK (kind IN ('credit', 'charge', 'refund')),
    amount        INTEGER NOT NULL,
    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
    order_seq     INTEGER REFERENCES orders (seq),
    reference     TEXT,
    created_at    INTEGER NOT NULL,
    UNIQUE (account_id, seq),
    CHECK ((kind = 'credit') = (reference IS NOT NULL)),
    CHECK ((kind = 'credit') = (order_seq IS NULL)),
    CHECK (kind <> 'charge' OR amount < 0),
    CHECK (kind <> 'refund' OR amount > 0)
);
-- A repeated credit reference credits nothing.
CREATE UNIQUE INDEX ledger_credit_reference ON ledger (account_id, reference) WHERE kind = 'credit';
-- One charge and at most one refund per order.
CREATE UNIQUE INDEX ledger_one_charge ON ledger (order_seq) WHERE kind = 'charge';
CREATE UNIQUE INDEX ledger_one_refund ON ledger (order_seq) WHERE kind = 'refund';
CREATE INDEX ledger_kind ON ledger (account_id, kind);

-- +goose StatementBegin
CREATE TRIGGER ledger_chain BEFORE INSERT ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entry does not continue the account chain')
    WHERE (NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1))
       OR NEW.balance_after IS NOT COALESCE((SELECT balance_after FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1), 0) + NEW.amount;
    SELECT RAISE(ABORT, 'ledger: an order entry must belong to the order''s account')
    WHERE NEW.order_seq IS NOT NULL
      AND NEW.account_id IS NOT (SELECT account_id FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a charge must be the order''s amount')
    WHERE NEW.kind = 'charge' AND -NEW.amount IS NOT (SELECT amount FROM orders WHERE seq = NEW.order_seq);
    SELECT RAISE(ABORT, 'ledger: a refund must return the charge of a cancelled order flagged refunded')
    WHERE NEW.kind = 'refund'
      AND (NEW.amount IS NOT (SELECT -amount FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge')
           OR (SELECT status || ':' || refunded FROM orders WHERE seq = NEW.order_seq) IS NOT 'cancelled:1');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entries are never changed');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN
    SELECT RAISE(ABORT, 'ledger: entries are never deleted');
END;
-- +goose StatementEnd

-- Codes: stock waiting to be sold, and codes delivered to orders. Each row is
-- sealed with AES-256-GCM bound to its pack; the fingerprint is a keyed digest
-- that finds duplicates without decrypting.
CREATE TABLE codes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    pid          TEXT NOT NULL,
    fingerprint  BLOB NOT NULL,
    sealed       BLOB NOT NULL,
    order_seq    INTEGER REFERENCES orders (seq),
    added_at     INTEGER NOT NULL,
    UNIQUE (pid, fingerprint)
);
CREATE INDEX codes_available ON codes (pid, id) WHERE order_seq IS NULL;
CREATE INDEX codes_by_order ON codes (order_seq, id) WHERE order_seq IS NOT NULL;

-- +goose StatementBegin
CREATE TRIGGER codes_delivered_once BEFORE UPDATE OF order_seq ON codes
WHEN OLD.order_seq IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'codes: a code is delivered to one order, ever');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_no_delete BEFORE DELETE ON codes
BEGIN
    SELECT RAISE(ABORT, 'codes: codes are never deleted');
END;
-- +goose StatementEnd

-- Available stock per pack, kept by triggers so the catalog need not count.
CREATE TABLE stock_levels (
    pid       TEXT PRIMARY KEY,
    available INTEGER NOT NULL CHECK (available >= 0)
);

-- +goose StatementBegin
CREATE TRIGGER codes_stock_in AFTER INSERT ON codes
WHEN NEW.order_seq IS NULL
BEGIN
    INSERT INTO stock_levels (pid, available) VALUES (NEW.pid, 1)
    ON CONFLICT (pid) DO UPDATE SET available = available + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_stock_out AFTER UPDATE OF order_seq ON codes
WHEN OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL
BEGIN
    UPDATE stock_levels SET available = available - 1 WHERE pid = NEW.pid;
END;
-- +goose StatementEnd

-- Upstream servers that packs are bought from; our API key there is sealed
-- with AES-256-GCM bound to the upstream's name.
CREATE TABLE upstreams (
    name       TEXT PRIMARY KEY,
    base_url   TEXT NOT NULL,
    api_key    BLOB NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE settings (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    maintenance           INTEGER NOT NULL DEFAULT 0,
    orders_disabled       INTEGER NOT NULL DEFAULT 0,
    eligibility_min_topup INTEGER NOT NULL DEFAULT 0 CHECK (eligibility_min_topup >= 0),
    sim_delay_ms          INTEGER NOT NULL DEFAULT 0 CHECK (sim_delay_ms >= 0),
    sim_call_ms           INTEGER NOT NULL DEFAULT 0 CHECK (sim_call_ms >= 0)
);
INSERT INTO settings (id) VALUES (1);

-- +goose Down
DROP TABLE settings;
DROP TABLE upstreams;
DROP TABLE stock_levels;
DROP TABLE codes;
DROP TABLE ledger;
DROP TABLE orders;
DROP TABLE packs;
DROP TABLE lines;
DROP TABLE api_keys;
DROP TABLE accounts;
