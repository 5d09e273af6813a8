-- Catalog bookkeeping in the code that changes the catalog (issue 35): the
-- triggers that kept terms_version (00028), catalog_marks (00024),
-- packs.changed (00025) and stock_alerts (00016) are gone, and the
-- functions only they called. The store writes each in the transaction of
-- the change, by the same rules (internal/sqlstore/catalogchange.go,
-- lowstock.go): what a write changed is decided in Go, from the row before
-- and after. A catalog mark still takes its stamp from catalog_stamp()
-- (the shared advisory lock that catalog_sync_point() waits on, and the
-- database's clock), kept here with catalog_clock() and
-- catalog_sync_point(). The triggers that are left guard what no
-- constraint can say (rows never changed or deleted, codes sold once, the
-- stock's tallies, the sandbox's walls).
--
-- Three pairs of guards become one trigger each, PostgreSQL firing one
-- trigger on two events (SQLite cannot, and keeps the pairs): the action
-- log and the ledger refuse an UPDATE or a DELETE in one trigger each,
-- and codes_live_orders_only checks a code given to an order whether it
-- is inserted so (a supplier's code) or drawn from stock.
--
-- Down puts the functions and triggers back as they were.

-- +goose Up
DROP TRIGGER account_prices_changed_gone ON account_prices;
DROP TRIGGER account_prices_changed_new ON account_prices;
DROP TRIGGER account_prices_changed ON account_prices;
DROP TRIGGER account_prices_mark_gone ON account_prices;
DROP TRIGGER account_prices_mark_new ON account_prices;
DROP TRIGGER account_prices_mark ON account_prices;
DROP TRIGGER account_prices_terms_changed ON account_prices;
DROP TRIGGER account_prices_terms_gone ON account_prices;
DROP TRIGGER account_prices_terms_new ON account_prices;
DROP TRIGGER accounts_changed_tier ON accounts;
DROP TRIGGER accounts_mark_tier ON accounts;
DROP TRIGGER lines_changed ON lines;
DROP TRIGGER lines_mark_new ON lines;
DROP TRIGGER lines_mark ON lines;
DROP TRIGGER lines_terms_changed ON lines;
DROP TRIGGER lines_terms_gone ON lines;
DROP TRIGGER lines_terms_new ON lines;
DROP TRIGGER packs_changed_new ON packs;
DROP TRIGGER packs_changed ON packs;
DROP TRIGGER packs_low ON packs;
DROP TRIGGER packs_mark_new ON packs;
DROP TRIGGER packs_mark ON packs;
DROP TRIGGER packs_terms_changed ON packs;
DROP TRIGGER packs_terms_gone ON packs;
DROP TRIGGER packs_terms_new ON packs;
DROP TRIGGER stock_levels_changed_new ON stock_levels;
DROP TRIGGER stock_levels_changed ON stock_levels;
DROP TRIGGER stock_levels_low ON stock_levels;
DROP TRIGGER stock_levels_mark_new ON stock_levels;
DROP TRIGGER stock_levels_mark ON stock_levels;
DROP TRIGGER tier_prices_changed_gone ON tier_prices;
DROP TRIGGER tier_prices_changed_new ON tier_prices;
DROP TRIGGER tier_prices_changed ON tier_prices;
DROP TRIGGER tier_prices_mark_gone ON tier_prices;
DROP TRIGGER tier_prices_mark_new ON tier_prices;
DROP TRIGGER tier_prices_mark ON tier_prices;
DROP TRIGGER tier_prices_terms_changed ON tier_prices;
DROP TRIGGER tier_prices_terms_gone ON tier_prices;
DROP TRIGGER tier_prices_terms_new ON tier_prices;
DROP TRIGGER tiers_changed ON tiers;
DROP TRIGGER tiers_mark ON tiers;
DROP TRIGGER tiers_terms_changed ON tiers;
DROP TRIGGER tiers_terms_gone ON tiers;
DROP TRIGGER tiers_terms_new ON tiers;
DROP FUNCTION account_prices_changed();
DROP FUNCTION account_prices_mark();
DROP FUNCTION accounts_changed_tier();
DROP FUNCTION accounts_mark_tier();
DROP FUNCTION lines_changed();
DROP FUNCTION lines_mark();
DROP FUNCTION packs_changed();
DROP FUNCTION packs_low();
DROP FUNCTION packs_mark();
DROP FUNCTION stock_levels_changed();
DROP FUNCTION stock_levels_low();
DROP FUNCTION stock_levels_mark();
DROP FUNCTION tier_prices_changed();
DROP FUNCTION tier_prices_mark();
DROP FUNCTION tiers_changed();
DROP FUNCTION tiers_mark();
DROP FUNCTION terms_bump();
DROP FUNCTION catalog_mark(p_accounts text[], p_pids text[], p_changed boolean);
DROP FUNCTION pack_on_sale(p_pid text);
DROP FUNCTION packs_changed_emit(p_data jsonb);
DROP FUNCTION stock_low_set(p_pid text);
DROP FUNCTION tier_price_readers(p_tier text, p_pid text);

DROP TRIGGER actions_no_update ON actions;
DROP TRIGGER actions_no_delete ON actions;
CREATE TRIGGER actions_append_only BEFORE UPDATE OR DELETE ON actions FOR EACH ROW
    EXECUTE FUNCTION topupd_refuse('actions: the action log is never changed, never deleted');
DROP TRIGGER ledger_no_update ON ledger;
DROP TRIGGER ledger_no_delete ON ledger;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ledger FOR EACH ROW
    EXECUTE FUNCTION topupd_refuse('ledger: entries are never changed, never deleted');
DROP TRIGGER codes_drawn_by_live_orders_only ON codes;
DROP TRIGGER codes_live_orders_only ON codes;
CREATE TRIGGER codes_live_orders_only BEFORE INSERT OR UPDATE OF order_seq ON codes FOR EACH ROW
    WHEN (NEW.order_seq IS NOT NULL) EXECUTE FUNCTION codes_live_orders_only();

-- +goose Down

DROP TRIGGER actions_append_only ON actions;
CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions FOR EACH ROW EXECUTE FUNCTION topupd_refuse('actions: the action log is never changed');
CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions FOR EACH ROW EXECUTE FUNCTION topupd_refuse('actions: the action log is never deleted');
DROP TRIGGER ledger_append_only ON ledger;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger FOR EACH ROW EXECUTE FUNCTION topupd_refuse('ledger: entries are never changed');
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger FOR EACH ROW EXECUTE FUNCTION topupd_refuse('ledger: entries are never deleted');
DROP TRIGGER codes_live_orders_only ON codes;
CREATE TRIGGER codes_live_orders_only BEFORE INSERT ON codes FOR EACH ROW WHEN (NEW.order_seq IS NOT NULL) EXECUTE FUNCTION codes_live_orders_only();
CREATE TRIGGER codes_drawn_by_live_orders_only BEFORE UPDATE OF order_seq ON codes FOR EACH ROW WHEN (NEW.order_seq IS NOT NULL) EXECUTE FUNCTION codes_live_orders_only();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tier_price_readers(p_tier text, p_pid text)
 RETURNS text[]
 LANGUAGE sql
 STABLE
AS $function$
    SELECT ARRAY(SELECT a.id FROM accounts a WHERE a.tier = p_tier AND a.sandbox_of IS NULL
        AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = p_pid) ORDER BY a.id)
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION stock_low_set(p_pid text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
    lvl BIGINT;
    avail BIGINT;
BEGIN
    SELECT low_stock_at INTO lvl FROM packs WHERE pid = p_pid;
    SELECT available INTO avail FROM stock_levels WHERE pid = p_pid;
    IF lvl IS NOT NULL AND COALESCE(avail, 0) <= lvl THEN
        INSERT INTO stock_alerts (pid) VALUES (p_pid) ON CONFLICT (pid) DO NOTHING;
    ELSE
        DELETE FROM stock_alerts WHERE pid = p_pid;
    END IF;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION packs_changed_emit(p_data jsonb)
 RETURNS void
 LANGUAGE sql
AS $function$
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || substr(md5(random()::text || clock_timestamp()::text), 1, 20), catalog_clock(), 'packs.changed', p_data::text)
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pack_on_sale(p_pid text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
    SELECT EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = p_pid AND p.status = 'active' AND l.status = 'active')
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION catalog_mark(p_accounts text[], p_pids text[], p_changed boolean)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
    stamp BIGINT := catalog_stamp();
BEGIN
    INSERT INTO catalog_marks AS m (account_id, pid, changed_at)
    SELECT a.id, p.id, stamp FROM unnest(p_accounts) a (id), unnest(p_pids) p (id)
    ON CONFLICT (account_id, pid) DO UPDATE SET version = m.version + 1,
        changed_at = CASE WHEN p_changed THEN excluded.changed_at ELSE m.changed_at END;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION terms_bump()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    UPDATE terms_version SET version = version + 1;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tiers_mark()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM catalog_mark(ARRAY(SELECT id FROM accounts WHERE tier = NEW.name ORDER BY id), ARRAY[''], true);
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tiers_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    readers TEXT[] := ARRAY(SELECT id FROM accounts WHERE tier = NEW.name AND sandbox_of IS NULL ORDER BY id);
BEGIN
    IF cardinality(readers) > 0 THEN
        PERFORM packs_changed_emit(jsonb_build_object('allPacks', true, 'accounts', to_jsonb(readers)));
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tier_prices_mark()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM catalog_mark(ARRAY(SELECT id FROM accounts WHERE tier = OLD.tier ORDER BY id), ARRAY[OLD.pid], true);
    ELSE
        PERFORM catalog_mark(ARRAY(SELECT id FROM accounts WHERE tier = NEW.tier ORDER BY id), ARRAY[NEW.pid], true);
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tier_prices_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION stock_levels_mark()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM catalog_mark(ARRAY[''], ARRAY[NEW.pid], TG_OP = 'INSERT' OR (OLD.available > 0) <> (NEW.available > 0));
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION stock_levels_low()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM stock_low_set(NEW.pid);
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION stock_levels_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF pack_on_sale(NEW.pid) THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(NEW.pid)));
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION packs_mark()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM catalog_mark(ARRAY[''], ARRAY[NEW.pid], true);
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION packs_low()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM 1 FROM stock_levels WHERE pid = NEW.pid FOR NO KEY UPDATE;
    PERFORM stock_low_set(NEW.pid);
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION packs_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF (TG_OP = 'UPDATE' AND OLD.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = OLD.slug AND status = 'active'))
        OR (NEW.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = NEW.slug AND status = 'active')) THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(NEW.pid)));
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION lines_mark()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM catalog_mark(ARRAY[''], ARRAY(SELECT pid FROM packs WHERE slug = NEW.slug ORDER BY pid), true);
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION lines_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    pids TEXT[] := ARRAY(SELECT pid FROM packs WHERE slug = NEW.slug AND status = 'active' ORDER BY pid);
BEGIN
    IF cardinality(pids) > 0 THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', to_jsonb(pids)));
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION accounts_mark_tier()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM catalog_mark(ARRAY[NEW.id], ARRAY[''], true);
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION accounts_changed_tier()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    PERFORM packs_changed_emit(jsonb_build_object('allPacks', true, 'accounts', jsonb_build_array(NEW.id)));
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION account_prices_mark()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM catalog_mark(ARRAY[OLD.account_id], ARRAY[OLD.pid], true);
    ELSE
        PERFORM catalog_mark(ARRAY[NEW.account_id], ARRAY[NEW.pid], true);
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION account_prices_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r account_prices;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF pack_on_sale(r.pid) THEN
        PERFORM packs_changed_emit(jsonb_build_object('pids', jsonb_build_array(r.pid), 'accounts', jsonb_build_array(r.account_id)));
    END IF;
    RETURN NULL;
END
$function$;
-- +goose StatementEnd

CREATE TRIGGER account_prices_changed_gone AFTER DELETE ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_changed();
CREATE TRIGGER account_prices_changed_new AFTER INSERT ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_changed();
CREATE TRIGGER account_prices_changed AFTER UPDATE OF price ON account_prices FOR EACH ROW WHEN ((old.price IS DISTINCT FROM new.price)) EXECUTE FUNCTION account_prices_changed();
CREATE TRIGGER account_prices_mark_gone AFTER DELETE ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_mark();
CREATE TRIGGER account_prices_mark_new AFTER INSERT ON account_prices FOR EACH ROW EXECUTE FUNCTION account_prices_mark();
CREATE TRIGGER account_prices_mark AFTER UPDATE OF price ON account_prices FOR EACH ROW WHEN ((old.price IS DISTINCT FROM new.price)) EXECUTE FUNCTION account_prices_mark();
CREATE TRIGGER account_prices_terms_changed AFTER UPDATE ON account_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER account_prices_terms_gone AFTER DELETE ON account_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER account_prices_terms_new AFTER INSERT ON account_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER accounts_changed_tier AFTER UPDATE OF tier ON accounts FOR EACH ROW WHEN (((old.tier IS DISTINCT FROM new.tier) AND (new.sandbox_of IS NULL))) EXECUTE FUNCTION accounts_changed_tier();
CREATE TRIGGER accounts_mark_tier AFTER UPDATE OF tier ON accounts FOR EACH ROW WHEN ((old.tier IS DISTINCT FROM new.tier)) EXECUTE FUNCTION accounts_mark_tier();
CREATE TRIGGER lines_changed AFTER UPDATE OF status ON lines FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) AND ((old.status = 'active'::text) OR (new.status = 'active'::text)))) EXECUTE FUNCTION lines_changed();
CREATE TRIGGER lines_mark_new AFTER INSERT ON lines FOR EACH ROW EXECUTE FUNCTION lines_mark();
CREATE TRIGGER lines_mark AFTER UPDATE OF status, game_name, game, kind ON lines FOR EACH ROW WHEN (((old.status IS DISTINCT FROM new.status) OR (old.game_name IS DISTINCT FROM new.game_name) OR (old.game IS DISTINCT FROM new.game) OR (old.kind IS DISTINCT FROM new.kind))) EXECUTE FUNCTION lines_mark();
CREATE TRIGGER lines_terms_changed AFTER UPDATE ON lines FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER lines_terms_gone AFTER DELETE ON lines FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER lines_terms_new AFTER INSERT ON lines FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER packs_changed_new AFTER INSERT ON packs FOR EACH ROW EXECUTE FUNCTION packs_changed();
CREATE TRIGGER packs_changed AFTER UPDATE OF slug, price, cost, status, stock_based ON packs FOR EACH ROW WHEN (((old.slug IS DISTINCT FROM new.slug) OR (old.price IS DISTINCT FROM new.price) OR (old.cost IS DISTINCT FROM new.cost) OR (old.status IS DISTINCT FROM new.status) OR (old.stock_based IS DISTINCT FROM new.stock_based))) EXECUTE FUNCTION packs_changed();
CREATE TRIGGER packs_low AFTER INSERT OR UPDATE OF low_stock_at ON packs FOR EACH ROW EXECUTE FUNCTION packs_low();
CREATE TRIGGER packs_mark_new AFTER INSERT ON packs FOR EACH ROW EXECUTE FUNCTION packs_mark();
CREATE TRIGGER packs_mark AFTER UPDATE OF slug, name, category, price, cost, status, stock_based, provider ON packs FOR EACH ROW WHEN (((old.slug IS DISTINCT FROM new.slug) OR (old.name IS DISTINCT FROM new.name) OR (old.category IS DISTINCT FROM new.category) OR (old.price IS DISTINCT FROM new.price) OR (old.cost IS DISTINCT FROM new.cost) OR (old.status IS DISTINCT FROM new.status) OR (old.stock_based IS DISTINCT FROM new.stock_based) OR (old.provider IS DISTINCT FROM new.provider))) EXECUTE FUNCTION packs_mark();
CREATE TRIGGER packs_terms_changed AFTER UPDATE ON packs FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER packs_terms_gone AFTER DELETE ON packs FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER packs_terms_new AFTER INSERT ON packs FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER stock_levels_changed_new AFTER INSERT ON stock_levels FOR EACH ROW WHEN ((new.available > 0)) EXECUTE FUNCTION stock_levels_changed();
CREATE TRIGGER stock_levels_changed AFTER UPDATE OF available ON stock_levels FOR EACH ROW WHEN (((old.available > 0) IS DISTINCT FROM (new.available > 0))) EXECUTE FUNCTION stock_levels_changed();
CREATE TRIGGER stock_levels_low AFTER INSERT OR UPDATE OF available ON stock_levels FOR EACH ROW EXECUTE FUNCTION stock_levels_low();
CREATE TRIGGER stock_levels_mark_new AFTER INSERT ON stock_levels FOR EACH ROW EXECUTE FUNCTION stock_levels_mark();
CREATE TRIGGER stock_levels_mark AFTER UPDATE OF available ON stock_levels FOR EACH ROW WHEN ((old.available IS DISTINCT FROM new.available)) EXECUTE FUNCTION stock_levels_mark();
CREATE TRIGGER tier_prices_changed_gone AFTER DELETE ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_changed();
CREATE TRIGGER tier_prices_changed_new AFTER INSERT ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_changed();
CREATE TRIGGER tier_prices_changed AFTER UPDATE OF price ON tier_prices FOR EACH ROW WHEN ((old.price IS DISTINCT FROM new.price)) EXECUTE FUNCTION tier_prices_changed();
CREATE TRIGGER tier_prices_mark_gone AFTER DELETE ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_mark();
CREATE TRIGGER tier_prices_mark_new AFTER INSERT ON tier_prices FOR EACH ROW EXECUTE FUNCTION tier_prices_mark();
CREATE TRIGGER tier_prices_mark AFTER UPDATE OF price ON tier_prices FOR EACH ROW WHEN ((old.price IS DISTINCT FROM new.price)) EXECUTE FUNCTION tier_prices_mark();
CREATE TRIGGER tier_prices_terms_changed AFTER UPDATE ON tier_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tier_prices_terms_gone AFTER DELETE ON tier_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tier_prices_terms_new AFTER INSERT ON tier_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tiers_changed AFTER UPDATE OF markup, round_to ON tiers FOR EACH ROW WHEN (((old.markup IS DISTINCT FROM new.markup) OR (old.round_to IS DISTINCT FROM new.round_to))) EXECUTE FUNCTION tiers_changed();
CREATE TRIGGER tiers_mark AFTER UPDATE OF markup, round_to ON tiers FOR EACH ROW WHEN (((old.markup IS DISTINCT FROM new.markup) OR (old.round_to IS DISTINCT FROM new.round_to))) EXECUTE FUNCTION tiers_mark();
CREATE TRIGGER tiers_terms_changed AFTER UPDATE ON tiers FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tiers_terms_gone AFTER DELETE ON tiers FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tiers_terms_new AFTER INSERT ON tiers FOR EACH ROW EXECUTE FUNCTION terms_bump();
