-- catalog.changed (integration.md "Events"): triggers write a
-- packs.changed event into the stream (00020_events.sql), in the
-- transaction of the change, when a pack a reseller can see changes price
-- or status, goes in or out of stock, or its line changes status. The
-- webhooks notifier makes of each one a catalog.changed event for every
-- account it concerns, with an id derived from the stream event's and the
-- account's (webhooks/notifier.go).
--
-- A pack can be seen when it is active on an active line; a change is
-- told when the pack could be seen before it or after it. data is
-- { "pids": [...] } for every live account, with "accounts": [...] when
-- the change is some accounts' alone (their own or their tier's prices),
-- and "allPacks": true instead of pids when it prices every pack (a tier's
-- markup, an account's tier). Names and categories change the ETag and
-- updatedSince but are not told. The stock level's trigger fires only
-- when a level crosses 0 (its WHEN): a code drawn costs one comparison
-- more.
--
-- The triggers sit beside the catalog_marks ones (00024), with the same
-- names and events on SQLite. The event's tx is its transaction's, as
-- every event's (00020), so readers of the stream wait for it to commit.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION pack_on_sale(p_pid TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = p_pid AND p.status = 'active' AND l.status = 'active')
$$;
-- +goose StatementEnd

-- packs_changed_emit writes a packs.changed event of data.
-- +goose StatementBegin
CREATE FUNCTION packs_changed_emit(p_data JSONB) RETURNS void LANGUAGE sql AS $$
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || substr(md5(random()::text || clock_timestamp()::text), 1, 20), catalog_clock(), 'packs.changed', p_data::text)
$$;
-- +goose StatementEnd

-- The live accounts on tier that have no price of their own for pid.
-- +goose StatementBegin
CREATE FUNCTION tier_price_readers(p_tier TEXT, p_pid TEXT) RETURNS TEXT[] LANGUAGE sql STABLE AS $$
    SELECT ARRAY(SELECT a.id FROM accounts a WHERE a.tier = p_tier AND a.sandbox_of IS NULL
        AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = p_pid) ORDER BY a.id)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION packs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (TG_OP = 'UPDATE' AND OLD.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = OLD.slug AND status = 'active'))
        OR (NEW.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = NEW.slug AND status = 'active')) THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(NEW.pid)));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER packs_changed_new AFTER INSERT ON packs FOR EACH ROW EXECUTE FUNCTION packs_changed();
CREATE TRIGGER packs_changed AFTER UPDATE OF slug, price, cost, status, stock_based ON packs
    FOR EACH ROW WHEN (OLD.slug IS DISTINCT FROM NEW.slug OR OLD.price IS DISTINCT FROM NEW.price OR OLD.cost IS DISTINCT FROM NEW.cost
        OR OLD.status IS DISTINCT FROM NEW.status OR OLD.stock_based IS DISTINCT FROM NEW.stock_based)
    EXECUTE FUNCTION packs_changed();

-- +goose StatementBegin
CREATE FUNCTION lines_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    pids TEXT[] := ARRAY(SELECT pid FROM packs WHERE slug = NEW.slug AND status = 'active' ORDER BY pid);
BEGIN
    IF cardinality(pids) > 0 THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', to_jsonb(pids)));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER lines_changed AFTER UPDATE OF status ON lines
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND (OLD.status = 'active' OR NEW.status = 'active'))
    EXECUTE FUNCTION lines_changed();

-- +goose StatementBegin
CREATE FUNCTION stock_levels_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pack_on_sale(NEW.pid) THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(NEW.pid)));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER stock_levels_changed_new AFTER INSERT ON stock_levels
    FOR EACH ROW WHEN (NEW.available > 0) EXECUTE FUNCTION stock_levels_changed();
CREATE TRIGGER stock_levels_changed AFTER UPDATE OF available ON stock_levels
    FOR EACH ROW WHEN ((OLD.available > 0) IS DISTINCT FROM (NEW.available > 0)) EXECUTE FUNCTION stock_levels_changed();

-- +goose StatementBegin
CREATE FUNCTION account_prices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r account_prices;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF pack_on_sale(r.pid) THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(r.pid), 'accounts', jsonb_build_array(r.account_id)));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER account_prices_changed_new AFTER INSERT ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_changed();
CREATE TRIGGER account_prices_changed AFTER UPDATE OF price ON account_prices
    FOR EACH ROW WHEN (OLD.price IS DISTINCT FROM NEW.price) EXECUTE FUNCTION account_prices_changed();
CREATE TRIGGER account_prices_changed_gone AFTER DELETE ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_changed();

-- A tier's price of a pack is the price of the accounts on the tier that
-- have no price of their own for it.
-- +goose StatementBegin
CREATE FUNCTION tier_prices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r tier_prices;
    readers TEXT[];
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF pack_on_sale(r.pid) THEN
        readers := tier_price_readers(r.tier, r.pid);
        IF cardinality(readers) > 0 THEN
            PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(r.pid), 'accounts', to_jsonb(readers)));
        END IF;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER tier_prices_changed_new AFTER INSERT ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_changed();
CREATE TRIGGER tier_prices_changed AFTER UPDATE OF price ON tier_prices
    FOR EACH ROW WHEN (OLD.price IS DISTINCT FROM NEW.price) EXECUTE FUNCTION tier_prices_changed();
CREATE TRIGGER tier_prices_changed_gone AFTER DELETE ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_changed();

-- +goose StatementBegin
CREATE FUNCTION tiers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    readers TEXT[] := ARRAY(SELECT id FROM accounts WHERE tier = NEW.name AND sandbox_of IS NULL ORDER BY id);
BEGIN
    IF cardinality(readers) > 0 THEN
        PERFORM packs_changed_emit(jsonb_build_object('allPacks', true, 'accounts', to_jsonb(readers)));
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER tiers_changed AFTER UPDATE OF markup, round_to ON tiers
    FOR EACH ROW WHEN (OLD.markup IS DISTINCT FROM NEW.markup OR OLD.round_to IS DISTINCT FROM NEW.round_to)
    EXECUTE FUNCTION tiers_changed();

-- +goose StatementBegin
CREATE FUNCTION accounts_changed_tier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM packs_changed_emit(jsonb_build_object('allPacks', true, 'accounts', jsonb_build_array(NEW.id)));
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER accounts_changed_tier AFTER UPDATE OF tier ON accounts
    FOR EACH ROW WHEN (OLD.tier IS DISTINCT FROM NEW.tier AND NEW.sandbox_of IS NULL) EXECUTE FUNCTION accounts_changed_tier();

-- +goose Down
DROP TRIGGER accounts_changed_tier ON accounts;
DROP FUNCTION accounts_changed_tier();
DROP TRIGGER tiers_changed ON tiers;
DROP FUNCTION tiers_changed();
DROP TRIGGER tier_prices_changed_gone ON tier_prices;
DROP TRIGGER tier_prices_changed ON tier_prices;
DROP TRIGGER tier_prices_changed_new ON tier_prices;
DROP FUNCTION tier_prices_changed();
DROP TRIGGER account_prices_changed_gone ON account_prices;
DROP TRIGGER account_prices_changed ON account_prices;
DROP TRIGGER account_prices_changed_new ON account_prices;
DROP FUNCTION account_prices_changed();
DROP TRIGGER stock_levels_changed ON stock_levels;
DROP TRIGGER stock_levels_changed_new ON stock_levels;
DROP FUNCTION stock_levels_changed();
DROP TRIGGER lines_changed ON lines;
DROP FUNCTION lines_changed();
DROP TRIGGER packs_changed ON packs;
DROP TRIGGER packs_changed_new ON packs;
DROP FUNCTION packs_changed();
DROP FUNCTION tier_price_readers(TEXT, TEXT);
DROP FUNCTION packs_changed_emit(JSONB);
DROP FUNCTION pack_on_sale(TEXT);
