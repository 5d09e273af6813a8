-- Whole cents (back-office.md, section 4 (a) and (d)): every price an
-- account is charged is a whole count of cents. Stored prices with more
-- decimals are rounded up to the cent; a tier that rounded its marked-up
-- prices to the smallest unit rounds them to the cent, now the default.
-- A tier may price the packs it lists no price for at a percentage off
-- their list price (percent_off, in ten-thousandths of a percent) instead
-- of a markup on their cost; the code refuses both at once. Every pack is
-- marked changed for every account, so that no client keeps a catalog
-- whose prices the charges now differ from.
-- +goose Up
UPDATE packs SET price = ((price + 99) / 100) * 100 WHERE price % 100 <> 0;
UPDATE tier_prices SET price = ((price + 99) / 100) * 100 WHERE price % 100 <> 0;
UPDATE account_prices SET price = ((price + 99) / 100) * 100 WHERE price % 100 <> 0;
UPDATE tiers SET round_to = CASE WHEN round_to < 100 THEN 100 ELSE ((round_to + 99) / 100) * 100 END WHERE round_to % 100 <> 0 OR round_to < 100;
UPDATE terms_version SET version = version + 1;
INSERT INTO catalog_marks (account_id, pid, changed_at) SELECT '', pid, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM packs WHERE true
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = catalog_marks.version + 1;
INSERT INTO catalog_marks (account_id, pid, changed_at) SELECT id, '', CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) FROM accounts WHERE true
    ON CONFLICT (account_id, pid) DO UPDATE SET changed_at = excluded.changed_at, version = catalog_marks.version + 1;
ALTER TABLE tiers ADD COLUMN percent_off INTEGER CHECK (percent_off > 0 AND percent_off < 1000000);

-- +goose Down
ALTER TABLE tiers DROP COLUMN percent_off;
