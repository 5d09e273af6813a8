-- What placing an order reads of the catalog and of an account's prices
-- (a pack, its line, the account's price book for the pack) is kept in
-- memory under terms_version (internal/sqlstore/termscache.go). Every
-- change to the tables it comes from (packs, lines, tiers, tier_prices,
-- account_prices) raises the version, by the triggers here, in the
-- change's own transaction; an order reads the version with its account's
-- row lock, and uses what it kept only at the version it was read at. The
-- account's own terms (its tier and limits) are read from its locked row
-- every time. The triggers here and on SQLite have the same names and events.

-- +goose Up
CREATE TABLE terms_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO terms_version (id, version) VALUES (1, 1);

-- +goose StatementBegin
CREATE FUNCTION terms_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE terms_version SET version = version + 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER packs_terms_new AFTER INSERT ON packs FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER packs_terms_changed AFTER UPDATE ON packs FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER packs_terms_gone AFTER DELETE ON packs FOR EACH ROW EXECUTE FUNCTION terms_bump();

CREATE TRIGGER lines_terms_new AFTER INSERT ON lines FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER lines_terms_changed AFTER UPDATE ON lines FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER lines_terms_gone AFTER DELETE ON lines FOR EACH ROW EXECUTE FUNCTION terms_bump();

CREATE TRIGGER tiers_terms_new AFTER INSERT ON tiers FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tiers_terms_changed AFTER UPDATE ON tiers FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tiers_terms_gone AFTER DELETE ON tiers FOR EACH ROW EXECUTE FUNCTION terms_bump();

CREATE TRIGGER tier_prices_terms_new AFTER INSERT ON tier_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tier_prices_terms_changed AFTER UPDATE ON tier_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER tier_prices_terms_gone AFTER DELETE ON tier_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();

CREATE TRIGGER account_prices_terms_new AFTER INSERT ON account_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER account_prices_terms_changed AFTER UPDATE ON account_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();
CREATE TRIGGER account_prices_terms_gone AFTER DELETE ON account_prices FOR EACH ROW EXECUTE FUNCTION terms_bump();

-- +goose Down
DROP TRIGGER account_prices_terms_gone ON account_prices;
DROP TRIGGER account_prices_terms_changed ON account_prices;
DROP TRIGGER account_prices_terms_new ON account_prices;
DROP TRIGGER tier_prices_terms_gone ON tier_prices;
DROP TRIGGER tier_prices_terms_changed ON tier_prices;
DROP TRIGGER tier_prices_terms_new ON tier_prices;
DROP TRIGGER tiers_terms_gone ON tiers;
DROP TRIGGER tiers_terms_changed ON tiers;
DROP TRIGGER tiers_terms_new ON tiers;
DROP TRIGGER lines_terms_gone ON lines;
DROP TRIGGER lines_terms_changed ON lines;
DROP TRIGGER lines_terms_new ON lines;
DROP TRIGGER packs_terms_gone ON packs;
DROP TRIGGER packs_terms_changed ON packs;
DROP TRIGGER packs_terms_new ON packs;
DROP FUNCTION terms_bump();
DROP TABLE terms_version;
