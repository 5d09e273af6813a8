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
-- Commit order: a transaction may commit after a reader's clock has passed
-- the time it stamped. So every stamp is taken under a shared advisory
-- lock held to the writer's commit (catalog_stamp), and a reader's sync
-- point (catalog_sync_point, the serverTime it answers) takes the same
-- lock exclusively first: every change stamped before the sync point has
-- committed when the reader reads, and every later one is stamped at or
-- after it (internal/sqlstore/catalogsync.go). The lock is per schema.

-- +goose Up
CREATE TABLE catalog_marks (
    account_id TEXT NOT NULL,
    pid        TEXT NOT NULL,
    changed_at BIGINT NOT NULL,
    version    BIGINT NOT NULL DEFAULT 1 CHECK (version > 0),
    PRIMARY KEY (account_id, pid)
);
CREATE INDEX catalog_marks_changed ON catalog_marks (account_id, changed_at);

-- +goose StatementBegin
CREATE FUNCTION catalog_clock() RETURNS BIGINT LANGUAGE sql AS $$
    SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION catalog_stamp() RETURNS BIGINT LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock_shared(73024, hashtext(current_schema()));
    RETURN catalog_clock();
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION catalog_sync_point() RETURNS BIGINT LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(73024, hashtext(current_schema()));
    RETURN catalog_clock();
END
$$;
-- +goose StatementEnd

-- catalog_mark marks pid (or every pack: '') for the accounts listed (''
-- for every account); changed says the change is one updatedSince lists.
-- +goose StatementBegin
CREATE FUNCTION catalog_mark(p_accounts TEXT[], p_pids TEXT[], p_changed BOOLEAN) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    stamp BIGINT := catalog_stamp();
BEGIN
    INSERT INTO catalog_marks AS m (account_id, pid, changed_at)
    SELECT a.id, p.id, stamp FROM unnest(p_accounts) a (id), unnest(p_pids) p (id)
    ON CONFLICT (account_id, pid) DO UPDATE SET version = m.version + 1,
        changed_at = CASE WHEN p_changed THEN excluded.changed_at ELSE m.changed_at END;
END
$$;
-- +goose StatementEnd

INSERT INTO catalog_marks (account_id, pid, changed_at) SELECT '', pid, catalog_clock() FROM packs;

-- +goose StatementBegin
CREATE FUNCTION packs_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalog_mark(ARRAY[''], ARRAY[NEW.pid], true);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER packs_mark_new AFTER INSERT ON packs FOR EACH ROW EXECUTE FUNCTION packs_mark();
CREATE TRIGGER packs_mark AFTER UPDATE OF slug, name, category, price, cost, status, stock_based, provider ON packs
    FOR EACH ROW WHEN (OLD.slug IS DISTINCT FROM NEW.slug OR OLD.name IS DISTINCT FROM NEW.name
        OR OLD.category IS DISTINCT FROM NEW.category OR OLD.price IS DISTINCT FROM NEW.price OR OLD.cost IS DISTINCT FROM NEW.cost
        OR OLD.status IS DISTINCT FROM NEW.status OR OLD.stock_based IS DISTINCT FROM NEW.stock_based
        OR OLD.provider IS DISTINCT FROM NEW.provider)
    EXECUTE FUNCTION packs_mark();

-- +goose StatementBegin
CREATE FUNCTION lines_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalog_mark(ARRAY[''], ARRAY(SELECT pid FROM packs WHERE slug = NEW.slug ORDER BY pid), true);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER lines_mark_new AFTER INSERT ON lines FOR EACH ROW EXECUTE FUNCTION lines_mark();
CREATE TRIGGER lines_mark AFTER UPDATE OF status, game_name, game, kind ON lines
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.game_name IS DISTINCT FROM NEW.game_name
        OR OLD.game IS DISTINCT FROM NEW.game OR OLD.kind IS DISTINCT FROM NEW.kind)
    EXECUTE FUNCTION lines_mark();

-- Every step of a stock level changes the ETag (quantity); only a step to
-- or from 0 is listed (inStock).
-- +goose StatementBegin
CREATE FUNCTION stock_levels_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalog_mark(ARRAY[''], ARRAY[NEW.pid], TG_OP = 'INSERT' OR (OLD.available > 0) <> (NEW.available > 0));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER stock_levels_mark_new AFTER INSERT ON stock_levels FOR EACH ROW EXECUTE FUNCTION stock_levels_mark();
CREATE TRIGGER stock_levels_mark AFTER UPDATE OF available ON stock_levels
    FOR EACH ROW WHEN (OLD.available IS DISTINCT FROM NEW.available) EXECUTE FUNCTION stock_levels_mark();

-- +goose StatementBegin
CREATE FUNCTION account_prices_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM catalog_mark(ARRAY[OLD.account_id], ARRAY[OLD.pid], true);
    ELSE
        PERFORM catalog_mark(ARRAY[NEW.account_id], ARRAY[NEW.pid], true);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER account_prices_mark_new AFTER INSERT ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_mark();
CREATE TRIGGER account_prices_mark AFTER UPDATE OF price ON account_prices
    FOR EACH ROW WHEN (OLD.price IS DISTINCT FROM NEW.price) EXECUTE FUNCTION account_prices_mark();
CREATE TRIGGER account_prices_mark_gone AFTER DELETE ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_mark();

-- A tier's price of a pack is the price of every account on the tier.
-- +goose StatementBegin
CREATE FUNCTION tier_prices_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM catalog_mark(ARRAY(SELECT id FROM accounts WHERE tier = OLD.tier ORDER BY id), ARRAY[OLD.pid], true);
    ELSE
        PERFORM catalog_mark(ARRAY(SELECT id FROM accounts WHERE tier = NEW.tier ORDER BY id), ARRAY[NEW.pid], true);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER tier_prices_mark_new AFTER INSERT ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_mark();
CREATE TRIGGER tier_prices_mark AFTER UPDATE OF price ON tier_prices
    FOR EACH ROW WHEN (OLD.price IS DISTINCT FROM NEW.price) EXECUTE FUNCTION tier_prices_mark();
CREATE TRIGGER tier_prices_mark_gone AFTER DELETE ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_mark();

-- A tier's markup or rounding prices every pack of every account on it.
-- +goose StatementBegin
CREATE FUNCTION tiers_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalog_mark(ARRAY(SELECT id FROM accounts WHERE tier = NEW.name ORDER BY id), ARRAY[''], true);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER tiers_mark AFTER UPDATE OF markup, round_to ON tiers
    FOR EACH ROW WHEN (OLD.markup IS DISTINCT FROM NEW.markup OR OLD.round_to IS DISTINCT FROM NEW.round_to)
    EXECUTE FUNCTION tiers_mark();

-- +goose StatementBegin
CREATE FUNCTION accounts_mark_tier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM catalog_mark(ARRAY[NEW.id], ARRAY[''], true);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER accounts_mark_tier AFTER UPDATE OF tier ON accounts
    FOR EACH ROW WHEN (OLD.tier IS DISTINCT FROM NEW.tier) EXECUTE FUNCTION accounts_mark_tier();

-- +goose Down
DROP TRIGGER accounts_mark_tier ON accounts;
DROP FUNCTION accounts_mark_tier();
DROP TRIGGER tiers_mark ON tiers;
DROP FUNCTION tiers_mark();
DROP TRIGGER tier_prices_mark_gone ON tier_prices;
DROP TRIGGER tier_prices_mark ON tier_prices;
DROP TRIGGER tier_prices_mark_new ON tier_prices;
DROP FUNCTION tier_prices_mark();
DROP TRIGGER account_prices_mark_gone ON account_prices;
DROP TRIGGER account_prices_mark ON account_prices;
DROP TRIGGER account_prices_mark_new ON account_prices;
DROP FUNCTION account_prices_mark();
DROP TRIGGER stock_levels_mark ON stock_levels;
DROP TRIGGER stock_levels_mark_new ON stock_levels;
DROP FUNCTION stock_levels_mark();
DROP TRIGGER lines_mark ON lines;
DROP TRIGGER lines_mark_new ON lines;
DROP FUNCTION lines_mark();
DROP TRIGGER packs_mark ON packs;
DROP TRIGGER packs_mark_new ON packs;
DROP FUNCTION packs_mark();
DROP FUNCTION catalog_mark(TEXT[], TEXT[], BOOLEAN);
DROP FUNCTION catalog_sync_point();
DROP FUNCTION catalog_stamp();
DROP FUNCTION catalog_clock();
DROP TABLE catalog_marks;
