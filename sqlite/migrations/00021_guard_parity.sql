-- Rules that PostgreSQL's schema enforced and SQLite's did not, found by
-- the schema parity test (internal/schematest):
--
--   - a final order never changes, in any column: orders_final_is_final
--     watched only status, refunded, amount and account_id, so a final
--     order's error, alert, supplier reference, lease or code count could
--     be rewritten, and a cancelled order given a cost;
--   - what a code is never changes: its id, pack, fingerprint, sealed
--     content and time added (codes_content_fixed);
--   - the settings row and the bot_state row are never deleted;
--   - the settings flags maintenance and orders_disabled are 0 or 1: SQLite
--     cannot add a CHECK to a table, so settings is rebuilt with them (a
--     flag stored as anything but 0 is carried over as 1).
--
-- A later migration that must rewrite final orders drops and recreates
-- orders_final_is_final around its UPDATE, as PostgreSQL's disable it.

-- +goose Up
DROP TRIGGER orders_final_is_final;

-- +goose StatementBegin
CREATE TRIGGER orders_final_is_final BEFORE UPDATE ON orders
WHEN OLD.status <> 'processing'
BEGIN
    SELECT RAISE(ABORT, 'orders: a final order cannot change');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER codes_content_fixed BEFORE UPDATE ON codes
WHEN NEW.id IS NOT OLD.id OR NEW.pid IS NOT OLD.pid OR NEW.fingerprint IS NOT OLD.fingerprint
  OR NEW.sealed IS NOT OLD.sealed OR NEW.added_at IS NOT OLD.added_at
BEGIN
    SELECT RAISE(ABORT, 'codes: a code never changes');
END;
-- +goose StatementEnd

CREATE TABLE settings_flags (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    maintenance           INTEGER NOT NULL DEFAULT 0 CHECK (maintenance IN (0, 1)),
    orders_disabled       INTEGER NOT NULL DEFAULT 0 CHECK (orders_disabled IN (0, 1)),
    eligibility_min_topup INTEGER NOT NULL DEFAULT 0 CHECK (eligibility_min_topup >= 0),
    sim_delay_ms          INTEGER NOT NULL DEFAULT 0 CHECK (sim_delay_ms >= 0),
    sim_call_ms           INTEGER NOT NULL DEFAULT 0 CHECK (sim_call_ms >= 0)
);
INSERT INTO settings_flags (id, maintenance, orders_disabled, eligibility_min_topup, sim_delay_ms, sim_call_ms)
    SELECT id, maintenance <> 0, orders_disabled <> 0, eligibility_min_topup, sim_delay_ms, sim_call_ms FROM settings;
DROP TABLE settings;
ALTER TABLE settings_flags RENAME TO settings;

-- +goose StatementBegin
CREATE TRIGGER settings_no_delete BEFORE DELETE ON settings
BEGIN
    SELECT RAISE(ABORT, 'settings: the settings row is never deleted');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER bot_state_no_delete BEFORE DELETE ON bot_state
BEGIN
    SELECT RAISE(ABORT, 'bot_state: the bot state row is never deleted');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER bot_state_no_delete;
DROP TRIGGER settings_no_delete;

CREATE TABLE settings_flags (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    maintenance           INTEGER NOT NULL DEFAULT 0,
    orders_disabled       INTEGER NOT NULL DEFAULT 0,
    eligibility_min_topup INTEGER NOT NULL DEFAULT 0 CHECK (eligibility_min_topup >= 0),
    sim_delay_ms          INTEGER NOT NULL DEFAULT 0 CHECK (sim_delay_ms >= 0),
    sim_call_ms           INTEGER NOT NULL DEFAULT 0 CHECK (sim_call_ms >= 0)
);
INSERT INTO settings_flags SELECT id, maintenance, orders_disabled, eligibility_min_topup, sim_delay_ms, sim_call_ms FROM settings;
DROP TABLE settings;
ALTER TABLE settings_flags RENAME TO settings;

DROP TRIGGER codes_content_fixed;
DROP TRIGGER orders_final_is_final;

-- +goose StatementBegin
CREATE TRIGGER orders_final_is_final BEFORE UPDATE OF status, refunded, amount, account_id ON orders
WHEN OLD.status <> 'processing'
BEGIN
    SELECT RAISE(ABORT, 'orders: a final order cannot change');
END;
-- +goose StatementEnd
