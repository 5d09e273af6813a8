-- Catalog bookkeeping in the code that changes the catalog (issue 35): the
-- triggers that kept terms_version (00028), catalog_marks (00024),
-- packs.changed (00025) and stock_alerts (00016) are gone. The store
-- writes each in the transaction of the change, by the same rules
-- (internal/sqlstore/catalogchange.go, lowstock.go): what a write changed
-- is decided in Go, from the row before and after; the triggers that are
-- left guard what no constraint can say (rows never changed or deleted,
-- codes sold once, the stock's tallies, the sandbox's walls).
--
-- Down puts the triggers back as they were.

-- +goose Up
DROP TRIGGER account_prices_changed;
DROP TRIGGER account_prices_changed_gone;
DROP TRIGGER account_prices_changed_new;
DROP TRIGGER account_prices_mark;
DROP TRIGGER account_prices_mark_gone;
DROP TRIGGER account_prices_mark_new;
DROP TRIGGER account_prices_terms_changed;
DROP TRIGGER account_prices_terms_gone;
DROP TRIGGER account_prices_terms_new;
DROP TRIGGER accounts_changed_tier;
DROP TRIGGER accounts_mark_tier;
DROP TRIGGER lines_changed;
DROP TRIGGER lines_mark;
DROP TRIGGER lines_mark_new;
DROP TRIGGER lines_terms_changed;
DROP TRIGGER lines_terms_gone;
DROP TRIGGER lines_terms_new;
DROP TRIGGER packs_changed;
DROP TRIGGER packs_changed_new;
DROP TRIGGER packs_low_in;
DROP TRIGGER packs_low_level;
DROP TRIGGER packs_mark;
DROP TRIGGER packs_mark_new;
DROP TRIGGER packs_terms_changed;
DROP TRIGGER packs_terms_gone;
DROP TRIGGER packs_terms_new;
DROP TRIGGER stock_levels_changed;
DROP TRIGGER stock_levels_changed_new;
DROP TRIGGER stock_levels_low_down;
DROP TRIGGER stock_levels_low_in;
DROP TRIGGER stock_levels_low_up;
DROP TRIGGER stock_levels_mark;
DROP TRIGGER stock_levels_mark_new;
DROP TRIGGER tier_prices_changed;
DROP TRIGGER tier_prices_changed_gone;
DROP TRIGGER tier_prices_changed_new;
DROP TRIGGER tier_prices_mark;
DROP TRIGGER tier_prices_mark_gone;
DROP TRIGGER tier_prices_mark_new;
DROP TRIGGER tier_prices_terms_changed;
DROP TRIGGER tier_prices_terms_gone;
DROP TRIGGER tier_prices_terms_new;
DROP TRIGGER tiers_changed;
DROP TRIGGER tiers_mark;
DROP TRIGGER tiers_terms_changed;
DROP TRIGGER tiers_terms_gone;
DROP TRIGGER tiers_terms_new;

-- +goose Down
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
CREATE TRIGGER account_prices_mark_new AFTER INSERT ON account_prices
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES (NEW.account_id, NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_terms_changed AFTER UPDATE ON account_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_terms_gone AFTER DELETE ON account_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER account_prices_terms_new AFTER INSERT ON account_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
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

-- +goose StatementBegin
CREATE TRIGGER accounts_mark_tier AFTER UPDATE OF tier ON accounts
WHEN OLD.tier IS NOT NEW.tier
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES (NEW.id, '', CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
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
CREATE TRIGGER lines_mark AFTER UPDATE OF status, game_name, game, kind ON lines
WHEN OLD.status IS NOT NEW.status OR OLD.game_name IS NOT NEW.game_name OR OLD.game IS NOT NEW.game OR OLD.kind IS NOT NEW.kind
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT '', pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM packs WHERE slug = NEW.slug
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
CREATE TRIGGER lines_terms_changed AFTER UPDATE ON lines
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_terms_gone AFTER DELETE ON lines
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER lines_terms_new AFTER INSERT ON lines
BEGIN
    UPDATE terms_version SET version = version + 1;
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
CREATE TRIGGER packs_changed_new AFTER INSERT ON packs
WHEN NEW.status = 'active' AND EXISTS (SELECT 1 FROM lines WHERE slug = NEW.slug AND status = 'active')
BEGIN
    INSERT INTO events (id, at, type, data)
    VALUES ('evt_' || lower(hex(randomblob(10))), CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER),
        'packs.changed', json_object('pids', json_array(NEW.pid)));
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_low_in AFTER INSERT ON packs
WHEN NEW.low_stock_at IS NOT NULL AND COALESCE((SELECT available FROM stock_levels WHERE pid = NEW.pid), 0) <= NEW.low_stock_at
BEGIN
    INSERT INTO stock_alerts (pid) VALUES (NEW.pid) ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_low_level AFTER UPDATE OF low_stock_at ON packs
BEGIN
    DELETE FROM stock_alerts WHERE pid = NEW.pid
        AND (NEW.low_stock_at IS NULL OR COALESCE((SELECT available FROM stock_levels WHERE pid = NEW.pid), 0) > NEW.low_stock_at);
    INSERT INTO stock_alerts (pid) SELECT NEW.pid
        WHERE NEW.low_stock_at IS NOT NULL AND COALESCE((SELECT available FROM stock_levels WHERE pid = NEW.pid), 0) <= NEW.low_stock_at
    ON CONFLICT (pid) DO NOTHING;
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
CREATE TRIGGER packs_mark_new AFTER INSERT ON packs
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES ('', NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_terms_changed AFTER UPDATE ON packs
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_terms_gone AFTER DELETE ON packs
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER packs_terms_new AFTER INSERT ON packs
BEGIN
    UPDATE terms_version SET version = version + 1;
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
CREATE TRIGGER stock_levels_low_down AFTER UPDATE OF available ON stock_levels
WHEN NEW.available < OLD.available AND NEW.available <= (SELECT low_stock_at FROM packs WHERE pid = NEW.pid)
BEGIN
    INSERT INTO stock_alerts (pid) VALUES (NEW.pid) ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_low_in AFTER INSERT ON stock_levels
BEGIN
    DELETE FROM stock_alerts WHERE pid = NEW.pid
        AND NEW.available > COALESCE((SELECT low_stock_at FROM packs WHERE pid = NEW.pid), -1);
    INSERT INTO stock_alerts (pid) SELECT NEW.pid
        WHERE NEW.available <= (SELECT low_stock_at FROM packs WHERE pid = NEW.pid)
    ON CONFLICT (pid) DO NOTHING;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER stock_levels_low_up AFTER UPDATE OF available ON stock_levels
WHEN NEW.available > OLD.available
BEGIN
    DELETE FROM stock_alerts WHERE pid = NEW.pid
        AND NEW.available > COALESCE((SELECT low_stock_at FROM packs WHERE pid = NEW.pid), -1);
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
CREATE TRIGGER stock_levels_mark_new AFTER INSERT ON stock_levels
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    VALUES ('', NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER))
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
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
CREATE TRIGGER tier_prices_mark_new AFTER INSERT ON tier_prices
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT id, NEW.pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE tier = NEW.tier
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_terms_changed AFTER UPDATE ON tier_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_terms_gone AFTER DELETE ON tier_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tier_prices_terms_new AFTER INSERT ON tier_prices
BEGIN
    UPDATE terms_version SET version = version + 1;
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
CREATE TRIGGER tiers_mark AFTER UPDATE OF markup, round_to ON tiers
WHEN OLD.markup IS NOT NEW.markup OR OLD.round_to IS NOT NEW.round_to
BEGIN
    INSERT INTO catalog_marks (account_id, pid, changed_at)
    SELECT id, '', CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE tier = NEW.name
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_terms_changed AFTER UPDATE ON tiers
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_terms_gone AFTER DELETE ON tiers
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER tiers_terms_new AFTER INSERT ON tiers
BEGIN
    UPDATE terms_version SET version = version + 1;
END;
-- +goose StatementEnd
