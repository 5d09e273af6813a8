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
-- updatedSince but are not told. The stock level's trigger does its work
-- only when a level crosses 0: a code drawn costs one comparison more.
--
-- The triggers sit beside the catalog_marks ones (00024), with the same
-- names and events on PostgreSQL.

-- +goose Up
-- +goose StatementBegin
CREATE TRIGGER packs_changed_new AFTER INSERT ON packs
WHEN NEW.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = NEW.slug AND status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_changed AFTER UPDATE OF slug, price, cost, status, stock_based ON packs
WHEN (OLD.slug IS NOT NEW.slug OR OLD.price IS NOT NEW.price OR OLD.cost IS NOT NEW.cost OR OLD.status IS NOT NEW.status
        OR OLD.stock_based IS NOT NEW.stock_based)
    AND ((OLD.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = OLD.slug AND status = 'active'))
        OR (NEW.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = NEW.slug AND status = 'active')))
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_changed AFTER UPDATE OF status ON lines
WHEN OLD.status IS NOT NEW.status AND (OLD.status = 'active' OR NEW.status = 'active')
    AND EXISTS (SELECT 1 FROM packs WHERE slug = NEW.slug AND status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids',
            json((SELECT json_group_array(pid) FROM (SELECT pid FROM packs WHERE slug = NEW.slug AND status = 'active' ORDER BY pid)))));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_changed_new AFTER INSERT ON stock_levels
WHEN NEW.available > 0 AND EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug
    WHERE p.pid = NEW.pid AND p.status = 'active' AND l.status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_changed AFTER UPDATE OF available ON stock_levels
WHEN (OLD.available > 0) IS NOT (NEW.available > 0) AND EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug
    WHERE p.pid = NEW.pid AND p.status = 'active' AND l.status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_changed_new AFTER INSERT ON account_prices
WHEN EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = NEW.pid AND p.status = 'active' AND l.status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid), 'accounts', json_array(NEW.account_id)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_changed AFTER UPDATE OF price ON account_prices
WHEN OLD.price IS NOT NEW.price
    AND EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = NEW.pid AND p.status = 'active' AND l.status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid), 'accounts', json_array(NEW.account_id)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_changed_gone AFTER DELETE ON account_prices
WHEN EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = OLD.pid AND p.status = 'active' AND l.status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(OLD.pid), 'accounts', json_array(OLD.account_id)));
END;
-- +goose StatementEnd

-- A tier's price of a pack is the price of the accounts on the tier that
-- have no price of their own for it.
-- +goose StatementBegin
CREATE TRIGGER tier_prices_changed_new AFTER INSERT ON tier_prices
WHEN EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = NEW.pid AND p.status = 'active' AND l.status = 'active')
    AND EXISTS (SELECT 1 FROM accounts a WHERE a.tier = NEW.tier AND a.sandbox_of IS NULL
        AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = NEW.pid))
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid), 'accounts', json((SELECT json_group_array(id) FROM (
            SELECT a.id FROM accounts a WHERE a.tier = NEW.tier AND a.sandbox_of IS NULL
                AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = NEW.pid) ORDER BY a.id)))));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_changed AFTER UPDATE OF price ON tier_prices
WHEN OLD.price IS NOT NEW.price
    AND EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = NEW.pid AND p.status = 'active' AND l.status = 'active')
    AND EXISTS (SELECT 1 FROM accounts a WHERE a.tier = NEW.tier AND a.sandbox_of IS NULL
        AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = NEW.pid))
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid), 'accounts', json((SELECT json_group_array(id) FROM (
            SELECT a.id FROM accounts a WHERE a.tier = NEW.tier AND a.sandbox_of IS NULL
                AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = NEW.pid) ORDER BY a.id)))));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_changed_gone AFTER DELETE ON tier_prices
WHEN EXISTS (SELECT 1 FROM packs p JOIN lines l ON l.slug = p.slug WHERE p.pid = OLD.pid AND p.status = 'active' AND l.status = 'active')
    AND EXISTS (SELECT 1 FROM accounts a WHERE a.tier = OLD.tier AND a.sandbox_of IS NULL
        AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = OLD.pid))
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(OLD.pid), 'accounts', json((SELECT json_group_array(id) FROM (
            SELECT a.id FROM accounts a WHERE a.tier = OLD.tier AND a.sandbox_of IS NULL
                AND NOT EXISTS (SELECT 1 FROM account_prices ap WHERE ap.account_id = a.id AND ap.pid = OLD.pid) ORDER BY a.id)))));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_changed AFTER UPDATE OF markup, round_to ON tiers
WHEN (OLD.markup IS NOT NEW.markup OR OLD.round_to IS NOT NEW.round_to)
    AND EXISTS (SELECT 1 FROM accounts WHERE tier = NEW.name AND sandbox_of IS NULL)
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('allPacks', json('true'), 'accounts', json((SELECT json_group_array(id) FROM (
            SELECT id FROM accounts WHERE tier = NEW.name AND sandbox_of IS NULL ORDER BY id)))));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER accounts_changed_tier AFTER UPDATE OF tier ON accounts
WHEN OLD.tier IS NOT NEW.tier AND NEW.sandbox_of IS NULL
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('allPacks', json('true'), 'accounts', json_array(NEW.id)));
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER accounts_changed_tier;
DROP TRIGGER tiers_changed;
DROP TRIGGER tier_prices_changed_gone;
DROP TRIGGER tier_prices_changed;
DROP TRIGGER tier_prices_changed_new;
DROP TRIGGER account_prices_changed_gone;
DROP TRIGGER account_prices_changed;
DROP TRIGGER account_prices_changed_new;
DROP TRIGGER stock_levels_changed;
DROP TRIGGER stock_levels_changed_new;
DROP TRIGGER lines_changed;
DROP TRIGGER packs_changed;
DROP TRIGGER packs_changed_new;
