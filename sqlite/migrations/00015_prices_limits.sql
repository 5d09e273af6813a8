-- Prices and spending limits. A tier is a price level: its own prices per
-- pack, and a markup on a pack's cost (ten-thousandths of a percent),
-- rounded up to round_to. An account may sit on a tier and have its own
-- prices, which win. Its spending limits (NULL: none) are checked in the
-- order's transaction, and again here, by trigger, before an order is
-- stored: no order above max_order, and no UTC day's orders charging more
-- than daily_limit net of refunds. limits_from_seq is the account's order
-- count when they last changed: the audit checks the orders after it.

-- +goose Up
CREATE TABLE tiers (
    name       TEXT PRIMARY KEY,
    markup     INTEGER CHECK (markup > -1000000),
    round_to   INTEGER NOT NULL DEFAULT 0 CHECK (round_to >= 0),
    updated_at INTEGER NOT NULL
);

CREATE TABLE tier_prices (
    tier  TEXT NOT NULL REFERENCES tiers (name),
    pid   TEXT NOT NULL,
    price INTEGER NOT NULL CHECK (price > 0),
    PRIMARY KEY (tier, pid)
);

CREATE TABLE account_prices (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    pid        TEXT NOT NULL,
    price      INTEGER NOT NULL CHECK (price > 0),
    PRIMARY KEY (account_id, pid)
);

ALTER TABLE accounts ADD COLUMN tier TEXT REFERENCES tiers (name);
ALTER TABLE accounts ADD COLUMN max_order INTEGER CHECK (max_order >= 0);
ALTER TABLE accounts ADD COLUMN daily_limit INTEGER CHECK (daily_limit >= 0);
ALTER TABLE accounts ADD COLUMN limits_from_seq INTEGER NOT NULL DEFAULT 0;

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

-- +goose Down
DROP TRIGGER orders_within_limits;
ALTER TABLE accounts DROP COLUMN limits_from_seq;
ALTER TABLE accounts DROP COLUMN daily_limit;
ALTER TABLE accounts DROP COLUMN max_order;
ALTER TABLE accounts DROP COLUMN tier;
DROP TABLE account_prices;
DROP TABLE tier_prices;
DROP TABLE tiers;
