-- The first schema of topupd on PostgreSQL: the same tables, columns and
-- rules as SQLite's, so that one set of queries (package sqlstore) serves
-- both. Times are Unix milliseconds (BIGINT); money is a BIGINT count of
-- ten-thousandths of a USD; flags are SMALLINT 0 or 1, as on SQLite. The
-- constraints and triggers here, not the Go code, are what keep balances,
-- stock and orders right, whichever node or tool writes.
--
-- Keys that lists are sorted by (slug, pid, upstream name) compare bytewise
-- (COLLATE "C"), as SQLite does, whatever the database's locale.

-- +goose Up

-- topupd_refuse raises the message it is given: the body of every trigger
-- that forbids a change outright.
-- +goose StatementBegin
CREATE FUNCTION topupd_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0];
END
$$;
-- +goose StatementEnd

CREATE TABLE accounts (
    id                    TEXT PRIMARY KEY,
    name                  TEXT NOT NULL,
    api_enabled           SMALLINT NOT NULL DEFAULT 1 CHECK (api_enabled IN (0, 1)),
    admin_disabled        SMALLINT NOT NULL DEFAULT 0 CHECK (admin_disabled IN (0, 1)),
    banned                SMALLINT NOT NULL DEFAULT 0 CHECK (banned IN (0, 1)),
    restricted_until      BIGINT,
    ip_allowlist          TEXT NOT NULL DEFAULT '[]',
    ip_allowlist_required SMALLINT NOT NULL DEFAULT 0 CHECK (ip_allowlist_required IN (0, 1)),
    order_count           BIGINT NOT NULL DEFAULT 0 CHECK (order_count >= 0),
    created_at            BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    hash       BYTEA NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE lines (
    slug              TEXT COLLATE "C" PRIMARY KEY,
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
    pid          TEXT COLLATE "C" PRIMARY KEY,
    slug         TEXT NOT NULL,
    name         TEXT NOT NULL,
    category     TEXT NOT NULL DEFAULT '',
    price        BIGINT NOT NULL CHECK (price > 0),
    status       TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    stock_based  SMALLINT NOT NULL DEFAULT 0 CHECK (stock_based IN (0, 1)),
    provider     TEXT NOT NULL DEFAULT 'sim',
    upstream     TEXT NOT NULL DEFAULT '',
    upstream_pid TEXT NOT NULL DEFAULT ''
);

CREATE TABLE orders (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    account_id      TEXT NOT NULL REFERENCES accounts (id),
    account_seq     BIGINT NOT NULL CHECK (account_seq >= 1),
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
    amount          BIGINT NOT NULL CHECK (amount > 0),
    user_id         TEXT NOT NULL DEFAULT '',
    zone_id         TEXT NOT NULL DEFAULT '',
    server_id       TEXT NOT NULL DEFAULT '',
    region          TEXT NOT NULL DEFAULT '',
    more_id         TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'cancelled')),
    error           TEXT NOT NULL DEFAULT '',
    refunded        SMALLINT NOT NULL DEFAULT 0 CHECK (refunded IN (0, 1)),
    created_at      BIGINT NOT NULL,
    finished_at     BIGINT,
    deadline_at     BIGINT NOT NULL,
    supplier        TEXT NOT NULL DEFAULT 'new' CHECK (supplier IN ('new', 'submitting', 'accepted')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    lease_owner     TEXT,
    lease_until     BIGINT,
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
CREATE INDEX orders_due ON orders (next_attempt_at) WHERE status = 'processing';
-- The operator's listing by status.
CREATE INDEX orders_status ON orders (status, seq);

-- A final order never changes again, in any column; orders are never deleted.
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
    FOR EACH ROW WHEN (OLD.status <> 'processing')
    EXECUTE FUNCTION topupd_refuse('orders: a final order cannot change');
CREATE TRIGGER orders_no_delete BEFORE DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('orders: orders are never deleted');
CREATE TRIGGER orders_no_truncate BEFORE TRUNCATE ON orders
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('orders: orders are never deleted');

-- The ledger is a chain per account: each entry's balance_after is the one
-- before it plus its amount, and never below zero. The balance is the newest
-- entry's balance_after, so it always equals the sum of the entries. Two
-- writers appending at once cannot fork the chain: UNIQUE (account_id, seq)
-- lets only one of them have the next seq.
CREATE TABLE ledger (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    seq           BIGINT NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL CHECK (kind IN ('credit', 'charge', 'refund')),
    amount        BIGINT NOT NULL,
    balance_after BIGINT NOT NULL CHECK (balance_after >= 0),
    order_seq     BIGINT REFERENCES orders (seq),
    reference     TEXT,
    created_at    BIGINT NOT NULL,
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
CREATE FUNCTION ledger_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    prev   BIGINT := 0;
    ord    orders%ROWTYPE;
    charge BIGINT;
BEGIN
    IF NEW.seq > 1 THEN
        SELECT balance_after INTO prev FROM ledger WHERE account_id = NEW.account_id AND seq = NEW.seq - 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ledger: entry does not continue the account chain';
        END IF;
    END IF;
    IF NEW.balance_after IS DISTINCT FROM prev + NEW.amount THEN
        RAISE EXCEPTION 'ledger: entry does not continue the account chain';
    END IF;
    IF NEW.order_seq IS NOT NULL THEN
        SELECT * INTO ord FROM orders WHERE seq = NEW.order_seq;
        IF NOT FOUND OR ord.account_id IS DISTINCT FROM NEW.account_id THEN
            RAISE EXCEPTION 'ledger: an order entry must belong to the order''s account';
        END IF;
        IF NEW.kind = 'charge' AND -NEW.amount IS DISTINCT FROM ord.amount THEN
            RAISE EXCEPTION 'ledger: a charge must be the order''s amount';
        END IF;
        IF NEW.kind = 'refund' THEN
            SELECT -amount INTO charge FROM ledger WHERE order_seq = NEW.order_seq AND kind = 'charge';
            IF NEW.amount IS DISTINCT FROM charge OR ord.status <> 'cancelled' OR ord.refunded <> 1 THEN
                RAISE EXCEPTION 'ledger: a refund must return the charge of a cancelled order flagged refunded';
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER ledger_chain BEFORE INSERT ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_check();
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('ledger: entries are never changed');
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('ledger: entries are never deleted');
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('ledger: entries are never deleted');

-- Codes: stock waiting to be sold, and codes delivered to orders. Each row is
-- sealed with AES-256-GCM bound to its pack; the fingerprint is a keyed digest
-- that finds duplicates without decrypting.
CREATE TABLE codes (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pid         TEXT NOT NULL,
    fingerprint BYTEA NOT NULL,
    sealed      BYTEA NOT NULL,
    order_seq   BIGINT REFERENCES orders (seq),
    added_at    BIGINT NOT NULL,
    UNIQUE (pid, fingerprint)
);
CREATE INDEX codes_available ON codes (pid, id) WHERE order_seq IS NULL;
CREATE INDEX codes_by_order ON codes (order_seq, id) WHERE order_seq IS NOT NULL;

-- A code is delivered to one order, ever; what a code is never changes; codes
-- are never deleted.
CREATE TRIGGER codes_delivered_once BEFORE UPDATE OF order_seq ON codes
    FOR EACH ROW WHEN (OLD.order_seq IS NOT NULL)
    EXECUTE FUNCTION topupd_refuse('codes: a code is delivered to one order, ever');
CREATE TRIGGER codes_content_fixed BEFORE UPDATE ON codes
    FOR EACH ROW WHEN (NEW.id <> OLD.id OR NEW.pid <> OLD.pid OR NEW.fingerprint <> OLD.fingerprint
        OR NEW.sealed <> OLD.sealed OR NEW.added_at <> OLD.added_at)
    EXECUTE FUNCTION topupd_refuse('codes: a code never changes');
CREATE TRIGGER codes_no_delete BEFORE DELETE ON codes
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('codes: codes are never deleted');
CREATE TRIGGER codes_no_truncate BEFORE TRUNCATE ON codes
    FOR EACH STATEMENT EXECUTE FUNCTION topupd_refuse('codes: codes are never deleted');

-- Available stock per pack, kept by triggers so the catalog need not count.
-- Its row is also the lock that draws of one pack take turns on.
CREATE TABLE stock_levels (
    pid       TEXT PRIMARY KEY,
    available BIGINT NOT NULL CHECK (available >= 0)
);

-- +goose StatementBegin
CREATE FUNCTION codes_stock_in() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO stock_levels AS s (pid, available) VALUES (NEW.pid, 1)
    ON CONFLICT (pid) DO UPDATE SET available = s.available + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION codes_stock_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stock_levels SET available = available - 1 WHERE pid = NEW.pid;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'codes: pack % has no stock level', NEW.pid;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER codes_stock_in AFTER INSERT ON codes
    FOR EACH ROW WHEN (NEW.order_seq IS NULL)
    EXECUTE FUNCTION codes_stock_in();
CREATE TRIGGER codes_stock_out AFTER UPDATE OF order_seq ON codes
    FOR EACH ROW WHEN (OLD.order_seq IS NULL AND NEW.order_seq IS NOT NULL)
    EXECUTE FUNCTION codes_stock_out();

-- Upstream servers that packs are bought from; our API key there is sealed
-- with AES-256-GCM bound to the upstream's name.
CREATE TABLE upstreams (
    name       TEXT COLLATE "C" PRIMARY KEY,
    base_url   TEXT NOT NULL,
    api_key    BYTEA NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE settings (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    maintenance           SMALLINT NOT NULL DEFAULT 0 CHECK (maintenance IN (0, 1)),
    orders_disabled       SMALLINT NOT NULL DEFAULT 0 CHECK (orders_disabled IN (0, 1)),
    eligibility_min_topup BIGINT NOT NULL DEFAULT 0 CHECK (eligibility_min_topup >= 0),
    sim_delay_ms          INTEGER NOT NULL DEFAULT 0 CHECK (sim_delay_ms >= 0),
    sim_call_ms           INTEGER NOT NULL DEFAULT 0 CHECK (sim_call_ms >= 0)
);
INSERT INTO settings (id) VALUES (1);
CREATE TRIGGER settings_no_delete BEFORE DELETE ON settings
    FOR EACH ROW EXECUTE FUNCTION topupd_refuse('settings: the settings row is never deleted');

-- +goose Down
DROP TABLE settings;
DROP TABLE upstreams;
DROP TABLE codes;
DROP FUNCTION codes_stock_in();
DROP FUNCTION codes_stock_out();
DROP TABLE stock_levels;
DROP TABLE ledger;
DROP FUNCTION ledger_check();
DROP TABLE orders;
DROP TABLE packs;
DROP TABLE lines;
DROP TABLE api_keys;
DROP TABLE accounts;
DROP FUNCTION topupd_refuse();
