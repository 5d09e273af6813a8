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
-- sandbox ones. (The SQLite store rebuilds orders for the same change.)

-- +goose Up
ALTER TABLE accounts ADD COLUMN sandbox_of TEXT REFERENCES accounts (id);
CREATE UNIQUE INDEX accounts_sandbox_of ON accounts (sandbox_of) WHERE sandbox_of IS NOT NULL;

-- +goose StatementBegin
CREATE FUNCTION accounts_sandbox_named() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.sandbox_of IS NULL AND NEW.id LIKE '%~sandbox')
       OR (NEW.sandbox_of IS NOT NULL AND (NEW.id IS DISTINCT FROM NEW.sandbox_of || '~sandbox'
           OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = NEW.sandbox_of AND sandbox_of IS NULL))) THEN
        RAISE EXCEPTION 'accounts: a sandbox is named after the live account it belongs to';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER accounts_sandbox_named BEFORE INSERT ON accounts
    FOR EACH ROW EXECUTE FUNCTION accounts_sandbox_named();
CREATE TRIGGER accounts_sandbox_fixed BEFORE UPDATE OF id, sandbox_of ON accounts
    FOR EACH ROW WHEN (NEW.id IS DISTINCT FROM OLD.id OR NEW.sandbox_of IS DISTINCT FROM OLD.sandbox_of)
    EXECUTE FUNCTION topupd_refuse('accounts: an account never becomes, or stops being, a sandbox');

ALTER TABLE api_keys ADD COLUMN sandbox SMALLINT NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1));

-- +goose StatementBegin
CREATE FUNCTION api_keys_of_live_accounts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND sandbox_of IS NOT NULL) THEN
        RAISE EXCEPTION 'api_keys: a key belongs to a live account; a sandbox key is flagged sandbox';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER api_keys_of_live_accounts BEFORE INSERT ON api_keys
    FOR EACH ROW EXECUTE FUNCTION api_keys_of_live_accounts();
CREATE TRIGGER api_keys_sandbox_fixed BEFORE UPDATE OF sandbox, account_id ON api_keys
    FOR EACH ROW WHEN (NEW.sandbox IS DISTINCT FROM OLD.sandbox OR NEW.account_id IS DISTINCT FROM OLD.account_id)
    EXECUTE FUNCTION topupd_refuse('api_keys: a key never changes account or books');

ALTER TABLE orders ADD COLUMN sandbox SMALLINT NOT NULL DEFAULT 0 CHECK (sandbox IN (0, 1));
-- A trxid is the live orders' or the sandbox's: one order per trxid in each.
ALTER TABLE orders DROP CONSTRAINT orders_trxid_key;
CREATE UNIQUE INDEX orders_trxid ON orders (trxid, sandbox);
-- The operator's list of sandbox orders.
CREATE INDEX orders_sandbox ON orders (created_at, seq) WHERE sandbox = 1;

-- A sandbox order is its sandbox's, and a live order a live account's.
-- +goose StatementBegin
CREATE FUNCTION orders_sandbox_books() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.sandbox IS DISTINCT FROM (SELECT CASE WHEN sandbox_of IS NULL THEN 0 ELSE 1 END FROM accounts WHERE id = NEW.account_id) THEN
        RAISE EXCEPTION 'orders: a sandbox order belongs to a sandbox, a live order to a live account';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER orders_sandbox_books BEFORE INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_sandbox_books();
CREATE TRIGGER orders_sandbox_fixed BEFORE UPDATE OF sandbox, account_id ON orders
    FOR EACH ROW WHEN (OLD.status = 'processing' AND (NEW.sandbox IS DISTINCT FROM OLD.sandbox OR NEW.account_id IS DISTINCT FROM OLD.account_id))
    EXECUTE FUNCTION topupd_refuse('orders: an order never changes account or books');

-- A sandbox order is given no code: its TEST- codes are drawn from no stock.
-- +goose StatementBegin
CREATE FUNCTION codes_live_orders_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT sandbox FROM orders WHERE seq = NEW.order_seq) IS DISTINCT FROM 0 THEN
        RAISE EXCEPTION 'codes: a sandbox order is given no code';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER codes_live_orders_only BEFORE INSERT ON codes
    FOR EACH ROW WHEN (NEW.order_seq IS NOT NULL) EXECUTE FUNCTION codes_live_orders_only();
CREATE TRIGGER codes_drawn_by_live_orders_only BEFORE UPDATE OF order_seq ON codes
    FOR EACH ROW WHEN (NEW.order_seq IS NOT NULL) EXECUTE FUNCTION codes_live_orders_only();

-- The sales roll-up (reports, spending limits) holds live orders alone.
-- +goose StatementBegin
CREATE FUNCTION sales_daily_live_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND sandbox_of IS NOT NULL) THEN
        RAISE EXCEPTION 'sales_daily: the sales roll-up holds live orders alone';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER sales_daily_live_only BEFORE INSERT ON sales_daily
    FOR EACH ROW EXECUTE FUNCTION sales_daily_live_only();

-- +goose Down
DROP TRIGGER sales_daily_live_only ON sales_daily;
DROP FUNCTION sales_daily_live_only();
DROP TRIGGER codes_drawn_by_live_orders_only ON codes;
DROP TRIGGER codes_live_orders_only ON codes;
DROP FUNCTION codes_live_orders_only();
DROP TRIGGER orders_sandbox_fixed ON orders;
DROP TRIGGER orders_sandbox_books ON orders;
DROP FUNCTION orders_sandbox_books();
DROP INDEX orders_sandbox;
DROP INDEX orders_trxid;
ALTER TABLE orders ADD CONSTRAINT orders_trxid_key UNIQUE (trxid);
ALTER TABLE orders DROP COLUMN sandbox;
DROP TRIGGER api_keys_sandbox_fixed ON api_keys;
DROP TRIGGER api_keys_of_live_accounts ON api_keys;
DROP FUNCTION api_keys_of_live_accounts();
ALTER TABLE api_keys DROP COLUMN sandbox;
DROP TRIGGER accounts_sandbox_fixed ON accounts;
DROP TRIGGER accounts_sandbox_named ON accounts;
DROP FUNCTION accounts_sandbox_named();
DROP INDEX accounts_sandbox_of;
ALTER TABLE accounts DROP COLUMN sandbox_of;
