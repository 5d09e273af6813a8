-- Catalog sync (GET /products?updatedSince=…, ETags): catalog_marks
-- records, per caller and pack, when the pack last changed as that caller
-- sees it, kept by triggers in the transaction of each change.
--
-- A row is (account_id, pid): '' as account_id means every account, ''
-- as pid every pack (a change of an account's tier or of its tier's
-- markup; a tier's markup applies to a pack's cost, so a cost counts as a
-- price). changed_at is the database clock in ms when the pack's price
-- for the caller, its status, its line, or whether it is in stock last
-- changed: what updatedSince lists. version counts every change a caller
-- can see, the stock level's every step included: the ETag sums it. Rows
-- are never deleted, so the sum only grows.
--
-- The triggers here and on PostgreSQL have the same names and events;
-- PostgreSQL's stamp also takes a shared advisory lock that a reader's
-- sync point waits on (internal/sqlstore/catalogsync.go). On SQLite one
-- writer commits in order, and the sync point is read on it.

-- +goose Up
CREATE TABLE catalog_marks (
    account_id TEXT NOT NULL,
    pid        TEXT NOT NULL,
    changed_at INTEGER NOT NULL,
    version    INTEGER NOT NULL DEFAULT 1 CHECK (version > 0),
    PRIMARY KEY (account_id, pid)
);
CREATE INDEX catalog_marks_changed ON catalog_marks (account_id, changed_at);

INSERT INTO catalog_marks (account_id, pid, changed_at)
SELECT '', pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM packs;

-- +goose StatementBegin
CREATE TRIGGER packs_mark_new AFTER INSERT ON packs
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES ('', NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_mark AFTER UPDATE OF slug, name, category, price, cost, status, stock_based, provider ON packs
WHEN OLD.slug IS NOT NEW.slug OR OLD.name IS NOT NEW.name OR OLD.category IS NOT NEW.category OR OLD.price IS NOT NEW.price
    OR OLD.cost IS NOT NEW.cost
    OR OLD.status IS NOT NEW.status OR OLD.stock_based IS NOT NEW.stock_based OR OLD.provider IS NOT NEW.provider
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES ('', NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_mark_new AFTER INSERT ON lines
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT '', pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM packs WHERE slug = NEW.slug
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_mark AFTER UPDATE OF status, game_name, game, kind ON lines
WHEN OLD.status IS NOT NEW.status OR OLD.game_name IS NOT NEW.game_name OR OLD.game IS NOT NEW.game OR OLD.kind IS NOT NEW.kind
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT '', pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM packs WHERE slug = NEW.slug
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_mark_new AFTER INSERT ON stock_levels
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES ('', NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_mark AFTER UPDATE OF available ON stock_levels
WHEN OLD.available IS NOT NEW.available
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES ('', NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET version = version + 1,
        changed_at = CASE WHEN (OLD.available > 0) = (NEW.available > 0) THEN changed_at ELSE excluded.changed_at END;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_mark_new AFTER INSERT ON account_prices
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES (NEW.account_id, NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_mark AFTER UPDATE OF price ON account_prices
WHEN OLD.price IS NOT NEW.price
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES (NEW.account_id, NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_mark_gone AFTER DELETE ON account_prices
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES (OLD.account_id, OLD.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_mark_new AFTER INSERT ON tier_prices
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT id, NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE tier = NEW.tier
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_mark AFTER UPDATE OF price ON tier_prices
WHEN OLD.price IS NOT NEW.price
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT id, NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE tier = NEW.tier
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_mark_gone AFTER DELETE ON tier_prices
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT id, OLD.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE tier = OLD.tier
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_mark AFTER UPDATE OF markup, round_to ON tiers
WHEN OLD.markup IS NOT NEW.markup OR OLD.round_to IS NOT NEW.round_to
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT id, '', CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE tier = NEW.name
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER accounts_mark_tier AFTER UPDATE OF tier ON accounts
WHEN OLD.tier IS NOT NEW.tier
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES (NEW.id, '', CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER accounts_mark_tier;
DROP TRIGGER tiers_mark;
DROP TRIGGER tier_prices_mark_gone;
DROP TRIGGER tier_prices_mark;
DROP TRIGGER tier_prices_mark_new;
DROP TRIGGER account_prices_mark_gone;
DROP TRIGGER account_prices_mark;
DROP TRIGGER account_prices_mark_new;
DROP TRIGGER stock_levels_mark;
DROP TRIGGER stock_levels_mark_new;
DROP TRIGGER lines_mark;
DROP TRIGGER lines_mark_new;
DROP TRIGGER packs_mark;
DROP TRIGGER packs_mark_new;
DROP TABLE catalog_marks;
