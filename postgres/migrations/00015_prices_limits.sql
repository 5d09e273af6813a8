-- Prices and spending limits. A tier is a price level: its own prices per
-- pack, and a markup on a pack's cost (ten-thousandths of a percent),
-- rounded up to round_to. An account may sit on a tier and have its own
-- prices, which win. Its spending limits (NULL: none) are checked in the
-- order's transaction, and again here, by trigger, before an order is
-- stored: no order above max_order, and no UTC day's orders charging more
-- than daily_limit net of refunds (placements hold the account's row lock,
-- so the day's sum cannot move under the check). limits_from_seq is the
-- account's order count when they last changed: the audit checks the
-- orders after it.

-- +goose Up
CREATE TABLE tiers (
    name       TEXT COLLATE "C" PRIMARY KEY,
    markup     BIGINT CHECK (markup > -1000000),
    round_to   BIGINT NOT NULL DEFAULT 0 CHECK (round_to >= 0),
    updated_at BIGINT NOT NULL
);

CREATE TABLE tier_prices (
    tier  TEXT COLLATE "C" NOT NULL REFERENCES tiers (name),
    pid   TEXT COLLATE "C" NOT NULL,
    price BIGINT NOT NULL CHECK (price > 0),
    PRIMARY KEY (tier, pid)
);

CREATE TABLE account_prices (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    pid        TEXT COLLATE "C" NOT NULL,
    price      BIGINT NOT NULL CHECK (price > 0),
    PRIMARY KEY (account_id, pid)
);

ALTER TABLE accounts ADD COLUMN tier TEXT COLLATE "C" REFERENCES tiers (name);
ALTER TABLE accounts ADD COLUMN max_order BIGINT CHECK (max_order >= 0);
ALTER TABLE accounts ADD COLUMN daily_limit BIGINT CHECK (daily_limit >= 0);
ALTER TABLE accounts ADD COLUMN limits_from_seq BIGINT NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION orders_within_limits() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    max_order   BIGINT;
    daily_limit BIGINT;
    spent       BIGINT;
BEGIN
    SELECT a.max_order, a.daily_limit INTO max_order, daily_limit FROM accounts a WHERE a.id = NEW.account_id;
    IF NEW.amount > max_order THEN
        RAISE EXCEPTION 'orders: above the account''s spending limit';
    END IF;
    IF daily_limit IS NOT NULL THEN
        SELECT COALESCE(SUM(charged - refunds), 0) INTO spent FROM sales_daily
        WHERE account_id = NEW.account_id AND day = NEW.created_at / 86400000;
        IF spent + NEW.amount > daily_limit THEN
            RAISE EXCEPTION 'orders: above the account''s spending limit';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER orders_within_limits BEFORE INSERT ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_within_limits();

-- +goose Down
DROP TRIGGER orders_within_limits ON orders;
DROP FUNCTION orders_within_limits();
ALTER TABLE accounts DROP COLUMN limits_from_seq;
ALTER TABLE accounts DROP COLUMN daily_limit;
ALTER TABLE accounts DROP COLUMN max_order;
ALTER TABLE accounts DROP COLUMN tier;
DROP TABLE account_prices;
DROP TABLE tier_prices;
DROP TABLE tiers;
